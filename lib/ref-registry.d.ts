import type { ElementRef, RefRegistry, WebAiSnapshot } from './types';
export type { RefRegistry } from './types';

export interface Freshness {
    expectedSnapshotId?: string | null;
    currentDomHash?: string | null;
    currentAxHash?: string | null;
}

export declare function createRefRegistry(snapshot: WebAiSnapshot | null | undefined): RefRegistry;
/** A ref checked on the live page (`verify: true`). */
export interface VerifiedRef extends ElementRef {
    /** Role and name the page reports now. */
    current: { role: string; name: string };
    /** Set when the element changed a little (or the registry was stale): "Note: Element may have changed. Using current state." */
    note: string | null;
}

export declare function resolveRef(page: unknown, registry: RefRegistry | null | undefined, ref: string,
    options: Freshness & { allowStale?: boolean; verify: true; timeoutMs?: number }): Promise<VerifiedRef>;
export declare function resolveRef(page: unknown, registry: RefRegistry | null | undefined, ref: string, options?: Freshness & { allowStale?: boolean; verify?: false }): Promise<ElementRef>;
export declare function invalidateRefsOnDomChange(registry: RefRegistry | null | undefined, hashes?: { domHash?: string | null; axHash?: string | null }): boolean;
export declare function isRegistryStale(registry: RefRegistry | null | undefined, ctx?: Freshness): boolean;
/** Playwright locator for a ref (`frameLocator` per `framePath`, then `shadowPath`, then `selector`); null inside closed shadow roots. */
export declare function locatorForRef(page: any, ref: ElementRef | null | undefined): any | null;
