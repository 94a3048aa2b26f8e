import type { ElementRef, RefEntry, RefRegistry, RefRegistryInput } from './types';
export type { RefEntry, RefRegistry, RefRegistryInput } from './types';

export interface Freshness {
    expectedSnapshotId?: string | null;
    currentDomHash?: string | null;
    currentAxHash?: string | null;
}
/** The old module's names. */
export type StaleCheckOptions = Freshness;
export interface ResolveRefOptions extends Freshness {
    allowStale?: boolean;
}
/** `verify: true`: check the element on the live page (see `VerifiedRef`), within `timeoutMs` (default 5000). */
export interface VerifyRefOptions extends ResolveRefOptions {
    verify: true;
    timeoutMs?: number;
}
export interface InvalidateOptions {
    domHash?: string | null;
    axHash?: string | null;
}
export interface RefRegistryPageLike {
    [key: string]: unknown;
}

export declare function createRefRegistry<E extends RefEntry = RefEntry>(snapshot: RefRegistryInput<E> | null | undefined): RefRegistry<E>;
/** A ref checked on the live page (`verify: true`). */
export type VerifiedRef<E extends RefEntry = ElementRef> = E & VerifiedFields;
export interface VerifiedFields {
    /** Role and name the page reports now. */
    current: { role: string; name: string };
    /** Set when the element changed a little (or the registry was stale): "Note: Element may have changed. Using current state." */
    note: string | null;
}

export declare function resolveRef<E extends RefEntry>(page: unknown, registry: RefRegistry<E> | null | undefined, ref: string,
    options: VerifyRefOptions): Promise<VerifiedRef<E>>;
export declare function resolveRef<E extends RefEntry>(page: unknown, registry: RefRegistry<E> | null | undefined, ref: string, options?: ResolveRefOptions & { verify?: false | undefined }): Promise<E>;
export declare function invalidateRefsOnDomChange(registry: RefRegistry<RefEntry> | null | undefined, hashes?: InvalidateOptions): boolean;
export declare function isRegistryStale(registry: RefRegistry<RefEntry> | null | undefined, ctx?: StaleCheckOptions): boolean;
/** Playwright locator for a ref (`frameLocator` per `framePath`, then `shadowPath`, then `selector`); null inside closed shadow roots. */
export declare function locatorForRef(page: any, ref: ElementRef | RefEntry | null | undefined): any | null;
