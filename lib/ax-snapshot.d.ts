import type { CdpAxTree, DoctorSnapshotSummary, ElementRef, LegacyAxNode, SnapshotOptions, SnapshotSource, WebAiSnapshot } from './types';
export type * from './types';

export declare const DEFAULT_SNAPSHOT_MAX_DEPTH: 6;
export declare const DEFAULT_MAX_NAME_CHARS: 900;
export declare const DEFAULT_INTERACTIVE_ROLES: Set<string>;

/** The old module's names for these shapes. */
export type AxSnapshotOptions = SnapshotOptions;
export type AxNode = LegacyAxNode;
export interface SerializedSnapshot {
    text: string;
    refs: Record<string, ElementRef>;
    nodeCount: number;
}
export interface SummarizeOptions {
    maxRefs?: number;
}
export type SummarizeResult = DoctorSnapshotSummary;
/** The page shape cli-jaw typed its pages with (old Playwright: `accessibility.snapshot()`). */
export interface AxSnapshotPageLike {
    url?: () => string | null;
    accessibility?: {
        snapshot: (opts?: { interestingOnly?: boolean; root?: unknown }) => Promise<AxNode>;
    };
    locator: (selector: string) => {
        elementHandle: () => Promise<{ dispose?: () => Promise<void> } | null>;
    };
    evaluate: <T, A>(fn: (arg: A) => T | null, arg: A) => Promise<T | null>;
}
/** A tab of a running browser the core connects to by itself. */
export interface EndpointSource {
    cdpEndpoint: string;
    targetId?: string | null;
    urlIncludes?: string | null;
    /**
     * The largest websocket message accepted, in bytes (1024 to 4294967295;
     * default 64 MiB, four times the largest real reply measured). A larger
     * message fails the call with `cdp.message-too-large` before its payload is read.
     */
    maxMessageBytes?: number | null;
}

/** Capture a snapshot from a Playwright page, a CDP session (`{ cdp }`), `{ cdpEndpoint }` or a legacy page. */
export declare function buildWebAiSnapshot(page: SnapshotSource | AxSnapshotPageLike | EndpointSource, options?: SnapshotOptions): Promise<WebAiSnapshot>;
/** Serialize a recorded tree: a `getFullAXTree` result (or its `nodes`), a legacy tree, or JSON text of either. */
export declare function buildWebAiSnapshotFromAxTree(
    input: CdpAxTree | Array<Record<string, unknown>> | LegacyAxNode | string | null | undefined,
    options?: SnapshotOptions & { url?: string | null; title?: string | null },
): WebAiSnapshot;
export declare function estimateSnapshotTokens(text: unknown): number;
export declare function hashAccessibilitySnapshot(text: unknown): string;
export declare function hashDoctorField(value: unknown): string;
export declare function extractInteractiveRefs(snapshotOrTree: WebAiSnapshot | LegacyAxNode | CdpAxTree | null | undefined, prefix?: string): Record<string, ElementRef>;
export declare function summarizeSnapshotForDoctor(
    snapshot: Partial<Pick<WebAiSnapshot, 'snapshotId' | 'axHash' | 'domHash' | 'stats'>> & { refs?: Record<string, { ref: string; role: string; name?: string | null }> } | null | undefined,
    options?: SummarizeOptions,
): SummarizeResult;
/** The page's latest snapshot and the one before it (kept for stale-ref checks). */
export declare function snapshotHistory(page: unknown): { current: WebAiSnapshot | null; previous: WebAiSnapshot | null };
/** The CDP session the package keeps for a Playwright page (created on first use). */
export declare function cdpSessionFor(page: unknown): Promise<{ send(method: string, params?: object): Promise<any> }>;
/**
 * Capture over any CDP `send`: the Rust core drives the plan and calls `send`
 * for each command. `options` may also be given as JSON text. `timings`
 * (optional) collects the package's own processing time in ms: `project`
 * (replies to text, JS) and `rust` (reading and serializing).
 * `frameSend(frameId)` resolves the send of an out-of-process frame's session.
 */
export declare function captureOverCdp(
    send: (method: string, params: Record<string, unknown>) => Promise<unknown>,
    options?: SnapshotOptions | string | null,
    timings?: { project?: number; rust?: number } | null,
    frameSend?: ((frameId: string) => Promise<((method: string, params: Record<string, unknown>) => Promise<unknown>) | null>) | null,
): Promise<WebAiSnapshot>;
