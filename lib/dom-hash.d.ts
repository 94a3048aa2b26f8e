export declare function normalizeDomForHash(html: unknown): string;
export declare function domHashAround(page: { evaluate(fn: any, arg: any): Promise<unknown> }, selectors: readonly string[], options?: { maxChars?: number }): Promise<string | null>;
export declare function selectorMatchSummary(page: { locator(selector: string): any }, selectors: readonly string[]): Promise<Array<{ selector: string; matched: number; visible: boolean }>>;
