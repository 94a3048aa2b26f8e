// ESM entry: re-exports the CommonJS module so both share one WebAiError class.
import cjs from './errors.cjs';

export const {
    WebAiError,
    wrapError,
    providerError,
    contextError,
    toErrorJson,
    fromCliJawStructuredError,
} = cjs;
export default cjs;
