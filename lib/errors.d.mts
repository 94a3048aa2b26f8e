// ESM types of `errors`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './errors.js';
