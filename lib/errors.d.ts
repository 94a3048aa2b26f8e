export type WebAiErrorCode =
    | 'snapshot.unavailable'
    | 'snapshot.root-not-found'
    | 'snapshot.capture-failed'
    | 'snapshot.timeout'
    | 'snapshot.invalid-input'
    | 'snapshot.ref-not-found'
    | 'snapshot.ref-stale'
    | 'cdp.unreachable'
    | 'cdp.target-mismatch';

export interface WebAiErrorInit {
    message?: string;
    errorCode?: WebAiErrorCode | string;
    stage?: string;
    retryHint?: string;
    vendor?: string;
    mutationAllowed?: boolean;
    selectorsTried?: string[];
    evidence?: unknown;
    cause?: unknown;
}

export declare class WebAiError extends Error {
    constructor(init?: WebAiErrorInit);
    readonly name: 'WebAiError';
    errorCode: WebAiErrorCode | string;
    stage: string;
    retryHint: string;
    vendor?: string;
    mutationAllowed: boolean;
    selectorsTried: string[];
    evidence: unknown;
    toJSON(): Record<string, unknown>;
}
