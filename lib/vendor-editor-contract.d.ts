import type { EditorContract, SemanticTarget, VendorName } from './types';
export type { EditorContract, SemanticTarget, VendorName } from './types';

interface CopySelectors { readonly turnSelectors: readonly string[]; readonly copyButtonSelectors: readonly string[] }

export declare const CHATGPT_COMPOSER_SELECTORS: readonly string[];
export declare const CHATGPT_SEND_SELECTORS: readonly string[];
export declare const CHATGPT_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const CHATGPT_UPLOAD_SELECTORS: readonly string[];
export declare const CHATGPT_RESPONSE_SELECTORS: readonly string[];
export declare const CHATGPT_STREAMING_SELECTORS: readonly string[];
export declare const CHATGPT_COPY_SELECTORS: CopySelectors;
export declare const GEMINI_COMPOSER_SELECTORS: readonly string[];
export declare const GEMINI_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const GEMINI_UPLOAD_SELECTORS: readonly string[];
export declare const GEMINI_RESPONSE_SELECTORS: readonly string[];
export declare const GEMINI_STREAMING_SELECTORS: readonly string[];
export declare const GEMINI_COPY_SELECTORS: CopySelectors;
export declare const GROK_COMPOSER_SELECTORS: readonly string[];
export declare const GROK_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const GROK_UPLOAD_SELECTORS: readonly string[];
export declare const GROK_RESPONSE_SELECTORS: readonly string[];
export declare const GROK_STREAMING_SELECTORS: readonly string[];
export declare const GROK_COPY_SELECTORS: CopySelectors;
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
