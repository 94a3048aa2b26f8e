export * from './ax-snapshot';
export * from './ref-registry';
export * from './observe-targets';
export * from './vendor-editor-contract';
export * from './dom-hash';
export * from './actions';
export * from './tools';
export { WebAiError, wrapError, providerError, contextError, toErrorJson, fromCliJawStructuredError } from './errors';
export type { WebAiErrorCode, WebAiErrorInit, WebAiErrorJson } from './errors';
