import type { NamePattern, SemanticTarget, TargetCandidate } from './types';
export type { SemanticTarget, TargetCandidate } from './types';

/** A contract (`{ semanticTargets }`) or a plain map of targets. */
export type FeatureMap = { semanticTargets?: Readonly<Record<string, SemanticTarget>> } | Readonly<Record<string, SemanticTarget>>;
export interface RefLike {
    ref: string;
    role: string;
    name?: string;
}
/** A snapshot, or any part of one with refs. */
export interface SnapshotLike {
    refs?: Record<string, RefLike>;
}
/** A page CSS fallbacks are counted on (a Playwright page; `{ cdp }` counts with querySelectorAll). */
export interface ObserveTargetsPageLike {
    locator: (selector: string) => {
        count: () => Promise<number>;
        nth?: (index: number) => { isVisible: () => Promise<boolean> };
    };
}
export interface ObserveOptions {
    provider?: string | null;
    featureMap?: FeatureMap;
    snapshot?: SnapshotLike | null;
}
export interface RankOptions {
    expectedRole?: string | null;
    expectedNames?: readonly NamePattern[];
}

export declare function observeProviderTargets(page: ObserveTargetsPageLike | { cdp: unknown } | null | undefined, options?: ObserveOptions): Promise<Record<string, TargetCandidate[]>>;
export declare function rankTargetCandidates<T extends { confidence?: number; role?: string; name?: string; source?: string }>(
    candidates: readonly T[] | null | undefined,
    options?: RankOptions,
): T[];
