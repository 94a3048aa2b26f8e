export type WebAiErrorCode =
    | 'snapshot.unavailable'
    | 'snapshot.root-not-found'
    | 'snapshot.capture-failed'
    | 'snapshot.timeout'
    | 'snapshot.invalid-input'
    | 'snapshot.ref-not-found'
    | 'snapshot.ref-stale'
    | 'cdp.unreachable'
    | 'cdp.target-mismatch'
    | 'cdp.connection-closed'
    | 'cdp.protocol-violation'
    | 'cdp.message-too-large'
    | 'cdp.invalid-json'
    | 'target.crashed'
    | 'target.detached'
    | 'browser.not-found'
    | 'browser.launch-failed'
    | 'page.navigation-failed'
    | 'page.dns-failed'
    | 'addon.binary-missing';

export interface WebAiErrorInit {
    message?: string;
    errorCode?: WebAiErrorCode | string;
    stage?: string;
    retryHint?: string;
    vendor?: string;
    mutationAllowed?: boolean;
    selectorsTried?: string[];
    evidence?: unknown;
    traceId?: string;
    ruleId?: string;
    cause?: unknown;
}

/** `toJSON()` / `toErrorJson()`: the fields that are set, in this order. */
export interface WebAiErrorJson {
    name: string;
    errorCode: string;
    stage: string;
    message: string;
    retryHint: string;
    vendor?: string;
    mutationAllowed: boolean;
    selectorsTried: string[];
    evidence: unknown;
    traceId?: string;
    ruleId?: string;
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
    traceId?: string;
    ruleId?: string;
    cause?: unknown;
    toJSON(): WebAiErrorJson;
}

/** Any thrown value as a WebAiError (a WebAiError passes through; `fallback` fields win; the original is the `cause`). */
export declare function wrapError(err: unknown, fallback?: WebAiErrorInit): WebAiError;
export declare function providerError(vendor: string | undefined, init?: WebAiErrorInit): WebAiError;
export declare function contextError(init?: WebAiErrorInit): WebAiError;
export declare function toErrorJson(
    err: WebAiError | { name?: string; errorCode?: string; stage?: string; message?: string; retryHint?: string; vendor?: string; mutationAllowed?: boolean; selectorsTried?: string[]; evidence?: unknown } | null | undefined,
): WebAiErrorJson;
/** cli-jaw's WrongTargetError, BrowserCapabilityError and ProviderRuntimeDisabledError as WebAiErrors; null otherwise. */
export declare function fromCliJawStructuredError(err: unknown, fallbackStage?: string): WebAiError | null;
