import type { ActionArgs, ActionName, ActionResult } from './actions';
import type { SnapshotOptions, WebAiSnapshot } from './types';

/** Seed 004 §4.3's kinds of change. */
export type UiChangeKind = 'hierarchy_diff' | 'text_change' | 'state_change';

/** Seed 004 §4.4: present only when a loading signal is detectable, never partial. */
export interface LoadingState {
    active: true;
    signal: 'document_loading' | 'aria_busy' | 'progress_indicator' | 'skeleton' | 'network';
    source: 'document' | 'dom' | 'snapshot' | 'network';
    /** What showed the signal (an element, a request count). */
    detail: string;
}

export interface RefChange {
    ref: string;
    /** The ref's line before and now, without indentation. */
    was: string;
    now: string;
}

export interface SnapshotDelta {
    fromRevision: number;
    toRevision: number;
    /** Refs whose line is the same (churn aside). */
    unchanged: number;
    added: string[];
    removed: string[];
    changed: RefChange[];
    /** A header, then the changed lines (`+`, `-`, `~`) under the ancestor lines that place them. */
    text: string;
}

export interface SessionSnapshot extends WebAiSnapshot {
    /** Monotonic per session from 1; moves only on a meaningful change. */
    revision: number;
    capturedAtMs: number;
    /** Answered from the cache: no action ran and the page reported no change. */
    fromCache: boolean;
    /** From the previous snapshot of the same options (absent on the first). */
    delta?: SnapshotDelta;
    /** The main kind of change since the previous snapshot, null when none. */
    observedChange?: UiChangeKind | null;
    loadingState?: LoadingState;
    /** With `delta: true`: `text` is the delta (it was under 70% of the full text). */
    textIsDelta?: boolean;
    /** With `delta: true` and `textIsDelta`: the full text. */
    fullText?: string;
}

export interface SessionSnapshotOptions extends SnapshotOptions {
    /** Answer with the delta as `text` when it is under 70% of the full text. */
    delta?: boolean;
}

export interface PageSessionOptions {
    /** Defaults for every snapshot of the session. */
    snapshotOptions?: SnapshotOptions;
    /** In a session that captures in full, a repeat snapshot within this many ms, with no action and no reported mutation, is the cached one. Default 5000. */
    cacheTtlMs?: number;
    /** The longest an action waits for the page to settle. Default 1500. */
    settleMs?: number;
    /** How long the DOM must be quiet to count as settled. Default 100. */
    quietMs?: number;
    /** Each action's deadline. Default 2000. */
    timeoutMs?: number;
    /** Follow the page's requests (Playwright events, or the Network domain of a `{ cdp }` with `on`). Default true. */
    trackRequests?: boolean;
    /**
     * With the DOM engine (the default; Playwright pages and `{ cdp }`): a repeat snapshot
     * reads only the subtrees that changed and patches a mirror of the page kept in Rust
     * (`stats.captureMode`). Default true. On a page of fewer than `REPEAT_MIN_NODES`
     * (200) DOM nodes a look after a change is a full capture, which costs less there;
     * `'always'` reads only what changed whatever the size. A session that captures in
     * full (this false, `engine: 'ax'`, or a `{ cdpEndpoint }`) uses `cacheTtlMs` instead.
     */
    incremental?: boolean | 'always';
}

export interface SettleReport {
    waitedMs: number;
    /** The DOM was quiet and the action's requests had finished before `settleMs`. */
    settled: boolean;
    /** What was still pending when the cap was reached (null when settled). */
    pending: { requests: string[]; domQuietMs: number | null; readyState: string | null } | null;
    /** False for `{ cdpEndpoint }` sessions: requests are not followed, only the DOM. */
    requestsTracked: boolean;
}

export interface SessionActionResult extends Omit<ActionResult, 'snapshot'> {
    snapshot: SessionSnapshot | null;
    settle?: SettleReport;
    revision: number;
}

export interface WaitForUiChangeOptions {
    expectedChange?: UiChangeKind | null;
    /** Default 5000. */
    timeoutMs?: number;
    /** How long the change must hold still. Default 300. */
    stabilityWindowMs?: number;
    /** The snapshot options of the looks the wait compares: the change is judged against the last snapshot of these (default: the session's). */
    snapshotOptions?: SessionSnapshotOptions;
}

export interface UiChangeResult {
    success: boolean;
    observedChange: UiChangeKind | null;
    snapshotRevision: number;
    timeout: boolean;
    snapshot: SessionSnapshot | null;
    /** From the snapshot the wait started from. */
    delta: SnapshotDelta | null;
    waitedMs: number;
    /** When the change was seen to hold still (before the snapshot that confirmed it). */
    detectedMs?: number;
}

export declare class PageSession {
    /** The latest revision (0 before the first snapshot). */
    readonly revision: number;
    /** The latest snapshot, or null. */
    readonly latest: SessionSnapshot | null;
    snapshot(options?: SessionSnapshotOptions): Promise<SessionSnapshot>;
    waitForUiChange(options?: WaitForUiChangeOptions): Promise<UiChangeResult>;
    act(action: ActionName, args?: ActionArgs, options?: { timeoutMs?: number; settleMs?: number; snapshotOptions?: SessionSnapshotOptions }): Promise<SessionActionResult>;
    /** The next snapshot captures the whole page, whatever the cache and the mirror hold. */
    invalidate(): void;
    /**
     * One CDP command on the session's tab (over a `{ cdpEndpoint }`, the session's own
     * connection), bounded by `timeoutMs` (default: the action deadline); its result.
     */
    send<T = any>(method: string, params?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<T>;
    /** Run a step of your own as an action: watched before, settled after, then looked at. */
    perform<T>(fn: () => Promise<T> | T, options?: { settleMs?: number; snapshotOptions?: SessionSnapshotOptions }): Promise<{ value: T; snapshot: SessionSnapshot; settle: SettleReport; revision: number }>;
    /** Over a `{ cdpEndpoint }`: follow the tab's JavaScript dialogs (a no-op elsewhere: Playwright reports them itself). */
    watchDialogs(): Promise<void>;
    /** The JavaScript dialog open in the tab, after `watchDialogs()`; null when none (or not followed). */
    dialog(): Promise<{ type: 'alert' | 'confirm' | 'prompt' | 'beforeunload'; message: string; defaultPrompt?: string | null; url: string } | null>;
    close(): Promise<void>;
}

/** A Playwright page (Chromium), `{ cdp: { send } }`, or `{ cdpEndpoint, targetId?, urlIncludes?, maxMessageBytes? }`. */
export declare function createPageSession(source: unknown, options?: PageSessionOptions): PageSession;

export declare const DEFAULT_CACHE_TTL_MS: number;
export declare const DEFAULT_SETTLE_MS: number;
export declare const DEFAULT_STABILITY_WINDOW_MS: number;
export declare const DEFAULT_WAIT_TIMEOUT_MS: number;
