// ESM types of `actions`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './actions.js';
