// ESM entry: re-exports the CommonJS module so both share one state.
import cjs from './actions.cjs';

export const {
    ACTION_ERRORS,
    DEFAULT_ACTION_TIMEOUT_MS,
    runAction,
    verifyRefLive,
} = cjs;
export default cjs;
