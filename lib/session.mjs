// ESM entry: re-exports the CommonJS module so both share one state.
import cjs from './session.cjs';

export const {
    createPageSession,
    PageSession,
    DEFAULT_CACHE_TTL_MS,
    DEFAULT_SETTLE_MS,
    DEFAULT_STABILITY_WINDOW_MS,
    DEFAULT_WAIT_TIMEOUT_MS,
} = cjs;
export default cjs;
