import type { SessionActionResult, SnapshotDelta, LoadingState, PageSession, UiChangeKind } from './session';
import type { SnapshotOptions, WebAiSnapshot } from './types';

export interface ToolSchema {
    name: 'get_snapshot' | 'browser_click' | 'browser_fill' | 'browser_select' | 'browser_scroll' | 'wait_for_ui_change' | 'request_human_approval' | 'complete_task';
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
    /** The page session's settle cap after actions (default 1500) and cache lifetime (default 5000). */
    settleMs?: number;
    cacheTtlMs?: number;
}

/** A snapshot as the tools return it: the session's, plus seed 001's page facts and seed 004's revision fields. */
export interface ToolSnapshot extends WebAiSnapshot {
    /** Seed 001's name for `snapshotId`. */
    snapshot_id: string;
    revision: number;
    capturedAtMs: number;
    snapshot_revision: number;
    captured_at_ms: number;
    loading_state?: LoadingState;
    loadingState?: LoadingState;
    delta?: SnapshotDelta;
    /** In action results: `text` is the delta since the last snapshot (it was shorter than the full text). */
    textIsDelta?: boolean;
    page: { url: string | null; title: string | null };
    /** CSS pixels; null when the page has no CDP session to ask. */
    viewport: { width: number; height: number; scroll_x: number; scroll_y: number } | null;
    /** Base64 PNG, with `screenshot: true` only. */
    screenshot?: string | null;
}

export interface ApprovalResult { approved: boolean; message: string | null; error: 'human_rejected' | 'invalid_params' | null }
export interface CompletionResult { acknowledged: boolean; message: string | null; snapshot?: ToolSnapshot | null; failureIndicatorsHeld?: number; error?: 'invalid_params' }
export interface ToolActionResult extends Omit<SessionActionResult, 'snapshot'> {
    snapshot: ToolSnapshot | null;
    snapshot_revision: number;
}
export interface WaitToolResult {
    success: boolean;
    observed_change: UiChangeKind | null;
    snapshot_revision: number;
    timeout: boolean;
    delta?: SnapshotDelta | null;
    error: 'invalid_params' | null;
    message: string | null;
}
export interface SnapshotToolResult { success: boolean; snapshot: ToolSnapshot | null; error: 'invalid_params' | null; message: string | null }

export interface BrowserTools {
    readonly schemas: readonly ToolSchema[];
    /** The latest full snapshot. */
    readonly snapshot: ToolSnapshot | null;
    /** The page session underneath. */
    readonly session: PageSession;
    execute(name: 'request_human_approval', args: { action: string; reason: string }): Promise<ApprovalResult>;
    execute(name: 'complete_task', args: { status: 'success' | 'failed'; reason: string }): Promise<CompletionResult>;
    execute(name: 'get_snapshot', args?: { viewport_only?: boolean }): Promise<SnapshotToolResult>;
    execute(name: 'wait_for_ui_change', args?: { expected_change?: UiChangeKind; timeout_ms?: number; stability_window_ms?: number }): Promise<WaitToolResult>;
    execute(name: string, args?: Record<string, unknown>): Promise<ToolActionResult>;
}

export declare function createBrowserTools(page: unknown, options?: BrowserToolsOptions): BrowserTools;
