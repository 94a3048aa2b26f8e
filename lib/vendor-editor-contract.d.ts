import type { EditorContract, SemanticTarget, VendorName } from './types';
export type { EditorContract, SemanticTarget, VendorName } from './types';

export interface CopySelectors { readonly turnSelectors: readonly string[]; readonly copyButtonSelectors: readonly string[] }

export declare const CHATGPT_COMPOSER_SELECTORS: readonly string[];
export declare const CHATGPT_SEND_SELECTORS: readonly string[];
export declare const CHATGPT_UPLOAD_SELECTORS: readonly string[];
export declare const CHATGPT_RESPONSE_SELECTORS: readonly string[];
export declare const CHATGPT_STREAMING_SELECTORS: readonly string[];
export declare const GEMINI_COMPOSER_SELECTORS: readonly string[];
export declare const GEMINI_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const GEMINI_UPLOAD_SELECTORS: readonly string[];
export declare const GEMINI_RESPONSE_SELECTORS: readonly string[];
export declare const GEMINI_STREAMING_SELECTORS: readonly string[];
export declare const GROK_COMPOSER_SELECTORS: readonly string[];
export declare const GROK_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const GROK_UPLOAD_SELECTORS: readonly string[];
export declare const GROK_RESPONSE_SELECTORS: readonly string[];
export declare const GROK_STREAMING_SELECTORS: readonly string[];
export declare const GEMINI_DEEP_THINK_CONSTRAINTS: {
    readonly inputSelectors: readonly string[];
    readonly responseSelectors: readonly string[];
    readonly completionSignals: readonly string[];
    readonly modeSelectors: readonly string[];
};
export declare const CHATGPT_EDITOR_CONTRACT: EditorContract;
export declare const GEMINI_EDITOR_CONTRACT: EditorContract;
export declare const GROK_EDITOR_CONTRACT: EditorContract;
export declare const EDITOR_CONTRACT_BY_VENDOR: Readonly<Record<VendorName, EditorContract>>;
export declare function editorContractForVendor(vendor?: VendorName | string): EditorContract;
export declare function semanticTargetsForVendor(vendor?: VendorName | string): Readonly<Record<string, SemanticTarget>>;

/** The ChatGPT editor adapter's types (cli-jaw's names; agbrowse's JSDoc names below). */
export type PromptInsertStage = 'composer-focus' | 'composer-insert' | 'composer-verify' | 'composer-submit' | 'prompt-commit';
export interface PromptCommitBaseline {
    turnsCount?: number;
}
export interface PromptCommitResult {
    turnsCount: number;
}
export interface PromptSubmitResult {
    method: 'button' | 'enter';
    /** The caller's `sendTarget.selector`, when that button was clicked. */
    selector?: string;
    resolution?: unknown;
}
/** A target the caller already resolved (agbrowse's resolver hands these over). */
export interface ResolvedEditorTarget {
    selector: string;
    resolution?: unknown;
}
export interface VendorEditorAdapterOptions {
    /** Types the prompt (after the composer is focused) instead of a checked `fill`. */
    insertText?: (text: string) => Promise<void> | void;
    /** Without `insertText`: the prompt goes in by this session's `Input.insertText`. */
    getCdpSession?: () => Promise<{ send(method: string, params?: object): Promise<unknown>; detach?(): Promise<unknown> }>;
    /** The composer, already resolved: used through `page.locator(selector)`. */
    composerTarget?: ResolvedEditorTarget | null;
    /** The send button, already resolved: clicked when visible and enabled. */
    sendTarget?: ResolvedEditorTarget | null;
    /** Deadline of waitForReady and verifyPromptCommitted (default 10 s and 60 s). */
    timeoutMs?: number;
    /** Turns before sending, when verifyPromptCommitted gets no baseline. */
    baselineTurns?: number;
    /** How long a disabled send button is waited for before Enter (default 8 s). */
    sendButtonTimeoutMs?: number;
}
export interface VendorEditorAdapter {
    vendor: 'chatgpt';
    waitForReady(): Promise<void>;
    /** `turnsCount`: the conversation's turns (user and assistant) before sending. */
    getCommitBaseline(): Promise<PromptCommitBaseline>;
    insertPrompt(text: string): Promise<void>;
    submitPrompt(submitOptions?: VendorEditorAdapterOptions): Promise<PromptSubmitResult>;
    verifyPromptCommitted(prompt: string, baseline?: PromptCommitBaseline, verifyOptions?: VendorEditorAdapterOptions): Promise<PromptCommitResult>;
}
export type Page = unknown;
export type ComposerOptions = VendorEditorAdapterOptions;
export type SubmitResult = PromptSubmitResult;
export type EditorAdapterBaseline = PromptCommitBaseline;
export type EditorAdapter = VendorEditorAdapter;

/**
 * The composer and send button found by the ChatGPT contract in a snapshot, the prompt
 * filled and sent with real input events, and its commit read off the conversation turns.
 * `page` is a Playwright page, `{ cdp }`, `{ cdpEndpoint }`, or an object with only
 * Playwright's locator protocol (then the contract's CSS fallbacks find the elements).
 * Failures are WebAiErrors (`provider.composer-not-visible`, `provider.commit-not-verified`,
 * `snapshot.invalid-input` for a page it cannot drive).
 */
export declare function createChatGptEditorAdapter(page: unknown, options?: VendorEditorAdapterOptions): VendorEditorAdapter;
