// ESM entry: re-exports the CommonJS module so both share one WebAiError class.
import cjs from './dom-hash.cjs';

export const {
    normalizeDomForHash,
    domHashAround,
    selectorMatchSummary,
} = cjs;
export default cjs;
