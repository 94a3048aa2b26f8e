// ESM types of `ref-registry`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './ref-registry.js';
