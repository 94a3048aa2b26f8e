// ESM types of `vendor-editor-contract`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './vendor-editor-contract.js';
