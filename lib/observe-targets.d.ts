import type { EditorContract, NamePattern, SemanticTarget, TargetCandidate, WebAiSnapshot } from './types';
export type { TargetCandidate } from './types';

export declare function observeProviderTargets(
    page: unknown,
    options?: { provider?: string | null; featureMap?: EditorContract | Record<string, SemanticTarget>; snapshot?: WebAiSnapshot | null },
): Promise<Record<string, TargetCandidate[]>>;
export declare function rankTargetCandidates<T extends { confidence?: number; role?: string; name?: string; source?: string }>(
    candidates: readonly T[],
    options?: { expectedRole?: string | null; expectedNames?: readonly NamePattern[] },
): T[];
