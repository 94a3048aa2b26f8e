// Shared types of the public API (hand-written; the addon's own generated
// declarations are in ../index.d.ts).

export type VendorName = 'chatgpt' | 'gemini' | 'grok';

export interface ElementRef {
    ref: string;
    role: string;
    name: string;
    /** Index among refs with the same role and name: `getByRole(role, { name }).nth(occurrenceIndex)`. */
    occurrenceIndex: number;
    /** CSS selector unique where it is evaluated (after `framePath` and `shadowPath`); null inside a closed shadow root. */
    selector: string | null;
    /** Selectors of the iframe elements from the top document down (Playwright `frameLocator`). */
    framePath: string[];
    /** Selectors of the shadow hosts crossed, outermost first, each unique below the previous one. */
    shadowPath: string[];
    signatureHash: string;
    backendNodeId: number | null;
    frameId: string | null;
    /** Inside a closed (or user-agent) shadow root: no selector reaches it; `backendNodeId` does. */
    shadowClosed: boolean;
    /** Ref'd because the DOM makes it clickable (listener, `cursor: pointer`, tabindex, contenteditable), not for its role. */
    clickable: boolean;
    /** With `activeLayerOnly`: the open modal it is behind (`dialog "Cookies"`). */
    blockedBy?: string;
}

export interface SnapshotStats {
    nodeCount: number;
    interactiveCount: number;
    tokenEstimate: number;
    /** The text's o200k token count; present when `maxTokens` was set. */
    tokens?: number;
    captureMs: number;
    /** Page session snapshots only: `'incremental'` when a repeat snapshot read only what changed (engine `'dom'`). */
    captureMode?: 'full' | 'incremental';
    /** Page session snapshots only: how many changed subtrees were read again (0 for a full capture). */
    subtreesReread?: number;
}

export interface WebAiSnapshot {
    snapshotId: string;
    provider: string | null;
    url: string | null;
    title: string | null;
    domHash: string | null;
    axHash: string;
    text: string;
    refs: Record<string, ElementRef>;
    notes: string[];
    stats: SnapshotStats;
    /** With `includeElements`. */
    elements?: SnapshotElement[];
    /** With `includeElements`: the focused element's ref, or null. */
    focused?: string | null;
    /** With `includeElements`: ISO 8601. */
    timestamp?: string;
    /** With `untrustedContent: 'mark'`: the boundaries' nonce and the page's origin. */
    untrusted?: { nonce: string; origin: string };
}

export interface SnapshotOptions {
    provider?: string | null;
    /** Merge text, drop repeats, print lone text inline. Default true. */
    compact?: boolean;
    /** Playwright's "interesting only": drop ignored and empty nodes. Default true. */
    interactiveOnly?: boolean;
    /** Printed levels below the document. Default 6. */
    maxDepth?: number;
    rootSelector?: string | null;
    refPrefix?: string;
    redactText?: boolean;
    includeDomHash?: boolean;
    domHashMaxChars?: number;
    maxNameChars?: number;
    /** A text line longer than this is cut, and says how many characters it left out (names and values are cut at `maxNameChars`). Default 2000. */
    maxTextChars?: number;
    /** Refs for tier-2 elements even past 100 refs. Default false. */
    allRefs?: boolean;
    /** Deadline for the whole capture, every browser call included. Default 10000. */
    timeoutMs?: number;
    /** Only lines that carry refs, flat. Default false. */
    refsOnly?: boolean;
    /** Read the DOM beside the tree (selectors, framePath, shadowPath, clickable refs). Default true. */
    domPass?: boolean;
    /**
     * Where the tree comes from. `'dom'` (default): roles, names and states
     * computed in Rust from the DOM snapshot (HTML-AAM, WAI-ARIA 1.2, accname
     * 1.2), several times faster on large pages; its agreement with Chrome per
     * page is in the README. `'ax'`: Chrome's accessibility tree. Not given, a
     * browser that cannot take a DOM snapshot gets `'ax'` and a note.
     */
    engine?: 'ax' | 'dom';
    /**
     * How the DOM engine reads the page; every way gives the same snapshot.
     * `'snapshot'`: one `DOMSnapshot.captureSnapshot`, which carries every text
     * whole (megabytes of inline script and JSON state on many apps). `'walk'`:
     * `DOM.getDocument` and a walk in an isolated world that never reads a
     * script's or style's text; a page it cannot read that way (shadow roots,
     * frames of another origin in its process) is read with a snapshot after all, with a note.
     * `'auto'` (default): the walk where the first capture of the document
     * found inline text outweighs its elements. Layout boxes (`viewportOnly`,
     * `maxTokens`, `includeElements`, `untrustedContent: 'mark'`) always take the snapshot.
     */
    domRead?: 'auto' | 'snapshot' | 'walk';
    /**
     * Only what shows in the viewport (frames and their scroll included), with
     * refs for that only; a note counts what is left out. Needs the DOM pass.
     * Default false (the tools layer defaults to true, as seed 001 does).
     */
    viewportOnly?: boolean;
    /** Seed 001's structured `elements`, `focused` and `timestamp` beside the text (reads layout boxes). Default false. */
    includeElements?: boolean;
    /** At most this many `elements`, by seed 001's ranking (in view, role, document order); a note counts the rest. */
    maxElements?: number;
    /**
     * `'mark'`: the text inside seed 003's untrusted-content boundaries, each with a
     * per-snapshot nonce and the page's origin; page text imitating a boundary is defused.
     * Default `'off'` (the tools use `'mark'`).
     */
    untrustedContent?: 'mark' | 'off';
    /**
     * With a modal dialog open (`aria-modal="true"`), show the modal and one `inert` line
     * counting what is behind it; refs behind it get `blockedBy`, and actions on them fail
     * with `element_obscured`. Default false (true in page sessions and the tools).
     */
    activeLayerOnly?: boolean;
    /**
     * At most this many o200k tokens of text (boundaries included with `untrustedContent: 'mark'`;
     * >= 50). When it binds, lines are kept by priority (in the viewport, then seed 001's role
     * order, then landmarks and headings, then text, document order) and what is left out is
     * counted on `- more: 212 links, 3 headings [expand: rootSelector="nav#main"]` lines; refs of
     * left-out elements stay in `refs`, resolvable; `stats.tokens` is the count. The first use in a
     * process loads the o200k table (about 0.4 s). Default: no budget (the tools use 2000).
     */
    maxTokens?: number;
    /** Each link's target as `url="…"` in its bracket: the path when on the page's own origin, else the whole URL. Default false. */
    urls?: boolean;
}

/** Seed 001 §1.3.4's state values. */
export type ElementState =
    | 'visible' | 'hidden' | 'offscreen'
    | 'enabled' | 'disabled' | 'readonly'
    | 'checked' | 'unchecked' | 'mixed'
    | 'expanded' | 'collapsed'
    | 'focused' | 'busy';

/** Seed 001 §1.3.1's element. */
export interface SnapshotElement {
    ref: string;
    role: string;
    /** At most 200 characters, then "...". */
    name: string;
    state: ElementState[];
    /** Viewport coordinates (CSS pixels); null without a layout box. */
    /** Its own box, or its nearest ancestor's (an option of a closed select); an element with neither is hidden and not listed. */
    bbox: { x: number; y: number; width: number; height: number };
    value?: string;
    /** Headings. */
    level?: number;
    /** Refs whose nearest ref'd ancestor this is. */
    children?: string[];
}

/** Anything with a CDP `send` (Playwright CDPSession, Puppeteer CDPSession, chrome-remote-interface). */
export interface CdpSend {
    send(method: string, params?: Record<string, unknown>): Promise<unknown>;
}

/** What `buildWebAiSnapshot` accepts; a Playwright `Page` matches `PlaywrightPageLike`. */
export interface PlaywrightPageLike {
    context(): { newCDPSession(page: any): Promise<CdpSend> };
    url(): string;
    title?(): Promise<string>;
    locator?(selector: string): { count(): Promise<number> };
}

export interface LegacyAccessibilityPage {
    accessibility: { snapshot(options?: { interestingOnly?: boolean; root?: unknown }): Promise<LegacyAxNode | null> };
    url?(): string;
    title?(): Promise<string>;
    evaluate?(fn: (...args: any[]) => unknown, arg?: unknown): Promise<unknown>;
    locator?(selector: string): any;
}

export type SnapshotSource = PlaywrightPageLike | { cdp: CdpSend } | LegacyAccessibilityPage;

/** A node of `page.accessibility.snapshot()` (old Playwright). */
export interface LegacyAxNode {
    role?: string;
    name?: string;
    value?: string | number;
    checked?: boolean | string;
    pressed?: boolean | string;
    disabled?: boolean;
    expanded?: boolean;
    selected?: boolean;
    focused?: boolean;
    focusable?: boolean;
    level?: number;
    children?: LegacyAxNode[];
    [key: string]: unknown;
}

/** A CDP `Accessibility.getFullAXTree` result. */
export interface CdpAxTree {
    nodes: Array<Record<string, unknown>>;
}

export type NamePattern = RegExp | string;

export interface SemanticTarget {
    roles?: readonly string[];
    names?: readonly NamePattern[];
    excludeNames?: readonly NamePattern[];
    cssFallbacks?: readonly string[];
    required?: boolean;
}

export interface EditorContract {
    vendor: VendorName;
    semanticTargets: Readonly<Record<string, SemanticTarget>>;
}

/**
 * A candidate for a target: `source: 'snapshot-ref'` has ref, role and name;
 * `source: 'css'` has selector and count (and `unsupported` when raw CDP
 * cannot count a Playwright-only selector).
 */
export interface TargetCandidate {
    source: 'snapshot-ref' | 'css' | (string & {});
    ref?: string;
    role?: string;
    name?: string;
    selector?: string;
    count?: number;
    confidence: number;
    unsupported?: string;
    [key: string]: unknown;
}

/**
 * A ref as registries and hand-built snapshots hold it: what the old modules
 * had is required, what this package added is optional on input.
 */
export interface RefEntry {
    ref: string;
    role: string;
    name: string;
    selector?: string | null;
    framePath?: string[];
    shadowPath?: string[];
    signatureHash?: string;
    occurrenceIndex?: number;
    backendNodeId?: number | null;
    frameId?: string | null;
    shadowClosed?: boolean;
    clickable?: boolean;
}

/** What `createRefRegistry` takes: a snapshot, or any part of one. */
export interface RefRegistryInput<E extends RefEntry = RefEntry> {
    snapshotId?: string | null;
    axHash?: string | null;
    domHash?: string | null;
    refs?: Record<string, E>;
}

/** A registry; `E` is what its refs are (ElementRef when made from a snapshot). */
export interface RefRegistry<E extends RefEntry = RefEntry> {
    snapshotId: string | null;
    axHash: string | null;
    domHash: string | null;
    refs: Record<string, E>;
    createdAt: number;
    stale: boolean;
    invalidatedAt: number | null;
}

export interface DoctorSnapshotSummary {
    enabled: boolean;
    contentSafe: boolean;
    snapshotId: string | null;
    axHash: string | null;
    domHash: string | null;
    interactiveCount: number;
    tokenEstimate: number;
    topRefs: Array<{ ref: string; role: string; nameHash: string | null; nameChars: number }>;
}
