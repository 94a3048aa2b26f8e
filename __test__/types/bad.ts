// Must NOT compile: a wrongly typed option and a misspelt field.
import { buildWebAiSnapshotFromAxTree } from '@agbrowse/web-ai-snapshot';
const s = buildWebAiSnapshotFromAxTree(null, { maxDepth: 'deep' });
console.log(s.refz);
