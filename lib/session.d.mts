// ESM types of `session`: the same declarations as the CommonJS ones.
export * from './session.js';
