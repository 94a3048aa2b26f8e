/** The old module's page shapes. */
export interface PageLike {
    evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
}
export interface DomHashOptions {
    maxChars?: number;
}
export interface SelectorMatch {
    selector: string;
    matched: number;
    visible: boolean;
}
export interface LocatorLike {
    count(): Promise<number>;
    nth(index: number): LocatorLike;
    isVisible(): Promise<boolean>;
}
export interface PageWithLocator extends PageLike {
    locator(selector: string): LocatorLike;
}

export declare function normalizeDomForHash(html: unknown): string;
export declare function domHashAround(page: PageLike | { evaluate(fn: any, arg: any): Promise<unknown> }, selectors: readonly string[], options?: DomHashOptions): Promise<string | null>;
export declare function selectorMatchSummary(page: PageWithLocator | { locator(selector: string): any }, selectors: readonly string[]): Promise<SelectorMatch[]>;
