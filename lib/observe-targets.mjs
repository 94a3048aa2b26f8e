// ESM entry: re-exports the CommonJS module so both share one WebAiError class.
import cjs from './observe-targets.cjs';

export const {
    observeProviderTargets,
    rankTargetCandidates,
} = cjs;
export default cjs;
