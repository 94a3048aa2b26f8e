// ESM types of `tools`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './tools.js';
