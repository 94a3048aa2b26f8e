// ESM types of `index`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './index.js';
