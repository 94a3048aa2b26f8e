// ESM entry: re-exports the CommonJS module so both share one WebAiError class.
import cjs from './ref-registry.cjs';

export const {
    createRefRegistry,
    resolveRef,
    invalidateRefsOnDomChange,
    isRegistryStale,
    locatorForRef,
} = cjs;
export default cjs;
