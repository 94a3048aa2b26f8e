import type { ActionResult } from './actions';
import type { SnapshotOptions, WebAiSnapshot } from './types';

export interface ToolSchema {
    name: 'get_snapshot' | 'browser_click' | 'browser_fill' | 'browser_select' | 'browser_scroll' | 'request_human_approval' | 'complete_task';
    description: string;
    input_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

export declare const TOOL_SCHEMAS: readonly ToolSchema[];

export type SnapshotPredicate = (snapshot: WebAiSnapshot) => boolean;

export interface BrowserToolsOptions {
    snapshotOptions?: SnapshotOptions;
    /** Deadline of each action in ms (default 2000). */
    timeoutMs?: number;
    approve?: (request: { action: string; reason: string; snapshot: WebAiSnapshot | null }) =>
        boolean | { approved: boolean; message?: string | null } | Promise<boolean | { approved: boolean; message?: string | null }>;
    /** After an action, a true checkpoint asks `approve`; a refusal turns the result into `human_rejected`. */
    checkpoints?: SnapshotPredicate[];
    completionCriteria?: { successIndicators?: SnapshotPredicate[]; failureIndicators?: SnapshotPredicate[] };
    /** Attach a base64 PNG of the viewport to every snapshot (seed 001's `screenshot`). Default false. */
    screenshot?: boolean;
}

/** A snapshot as the tools return it: ours, plus seed 001's page facts. */
export interface ToolSnapshot extends WebAiSnapshot {
    page: { url: string | null; title: string | null };
    /** CSS pixels; null when the page has no CDP session to ask. */
    viewport: { width: number; height: number; scroll_x: number; scroll_y: number } | null;
    /** Base64 PNG, with `screenshot: true` only. */
    screenshot?: string | null;
}

export interface ApprovalResult { approved: boolean; message: string | null; error: 'human_rejected' | 'invalid_params' | null }
export interface CompletionResult { acknowledged: boolean; message: string | null; snapshot?: ToolSnapshot | null; failureIndicatorsHeld?: number; error?: 'invalid_params' }
export interface SnapshotToolResult { success: boolean; snapshot: ToolSnapshot | null; error: 'invalid_params' | null; message: string | null }

export interface BrowserTools {
    readonly schemas: readonly ToolSchema[];
    /** The latest snapshot; refs are valid against it only. */
    readonly snapshot: ToolSnapshot | null;
    execute(name: 'request_human_approval', args: { action: string; reason: string }): Promise<ApprovalResult>;
    execute(name: 'complete_task', args: { status: 'success' | 'failed'; reason: string }): Promise<CompletionResult>;
    execute(name: 'get_snapshot', args?: { viewport_only?: boolean }): Promise<SnapshotToolResult>;
    execute(name: string, args?: Record<string, unknown>): Promise<ActionResult>;
}

export declare function createBrowserTools(page: unknown, options?: BrowserToolsOptions): BrowserTools;
