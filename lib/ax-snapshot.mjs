// ESM entry: re-exports the CommonJS module so both share one WebAiError class.
import cjs from './ax-snapshot.cjs';

export const {
    DEFAULT_SNAPSHOT_MAX_DEPTH,
    DEFAULT_MAX_NAME_CHARS,
    DEFAULT_INTERACTIVE_ROLES,
    buildWebAiSnapshot,
    buildWebAiSnapshotFromAxTree,
    estimateSnapshotTokens,
    hashAccessibilitySnapshot,
    extractInteractiveRefs,
    summarizeSnapshotForDoctor,
    hashDoctorField,
    snapshotHistory,
    cdpSessionFor,
    captureOverCdp,
} = cjs;
export default cjs;
