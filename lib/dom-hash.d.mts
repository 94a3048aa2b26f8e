// ESM types of `dom-hash`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './dom-hash.js';
