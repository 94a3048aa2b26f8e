// ESM types of `observe-targets`: the same declarations as the CommonJS ones (one implementation, one WebAiError).
export * from './observe-targets.js';
