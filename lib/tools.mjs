// ESM entry: re-exports the CommonJS module so both share one state.
import cjs from './tools.cjs';

export const {
    TOOL_SCHEMAS,
    createBrowserTools,
} = cjs;
export default cjs;
