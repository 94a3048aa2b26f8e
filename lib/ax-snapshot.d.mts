// ESM types of `ax-snapshot`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './ax-snapshot.js';
