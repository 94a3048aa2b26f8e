import type { ElementRef, SnapshotOptions, WebAiSnapshot } from './types';

/** Error codes of seed 001 §1.1.2. */
export type ActionErrorCode =
    | 'ref_invalid' | 'element_disabled' | 'element_obscured' | 'element_not_visible'
    | 'action_failed' | 'timeout' | 'human_rejected' | 'invalid_params';

export declare const ACTION_ERRORS: readonly ActionErrorCode[];
export declare const DEFAULT_ACTION_TIMEOUT_MS: number;

export type ActionName = 'click' | 'fill' | 'select' | 'scroll';

export interface ActionArgs {
    ref?: string;
    value?: string;
    clear_first?: boolean;
    direction?: 'up' | 'down' | 'top' | 'bottom';
    amount?: number;
    /** The snapshot the ref was read from; a ref from an older one is `ref_invalid`. */
    snapshot_id?: string;
}

export interface Viewport { width: number; height: number; scrollX: number; scrollY: number }

export interface ActionResult {
    success: boolean;
    /** A fresh snapshot, on failure too (null only if the page could not be read; see snapshotError). */
    snapshot: WebAiSnapshot | null;
    error: ActionErrorCode | null;
    message: string | null;
    /** `element_obscured`: `{ coveredBy, point }`; `element_not_visible`: `{ point, viewport }`. */
    evidence?: Record<string, unknown>;
    /** Where a click landed, or a ref was scrolled to. */
    point?: { x: number; y: number };
    /** After a scroll. */
    viewport?: Viewport;
    /** fill: the field's value afterwards; select: the chosen option. */
    value?: string;
    label?: string;
    snapshotError?: string;
    timings: { actionMs: number; snapshotMs: number };
}

/**
 * A Playwright page, `{ cdp: { send } }`, or `{ cdpEndpoint, targetId?, urlIncludes? }`
 * (the core connects, acts and detaches). On an unreachable endpoint the result is
 * `action_failed` with `evidence: { errorCode: 'cdp.unreachable', evidence }`.
 */
export declare function runAction(
    page: unknown,
    snapshot: WebAiSnapshot | null,
    action: ActionName,
    args?: ActionArgs,
    options?: { timeoutMs?: number; snapshotOptions?: SnapshotOptions },
): Promise<ActionResult>;

export interface LiveVerdict {
    verdict: 'same' | 'minor' | 'changed' | 'gone';
    message: string | null;
    now: { role: string; name: string } | null;
}

/** Rejects when the element cannot be checked; `timedOut` says the deadline passed. */
export declare function verifyRefLive(page: unknown, ref: ElementRef, timeoutMs?: number): Promise<LiveVerdict>;
