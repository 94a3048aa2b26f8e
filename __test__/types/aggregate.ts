// cli-jaw's web-ai/index.ts re-exports its modules side by side: after the
// swap, the subpaths must not export a name a neighbouring module also does.
export * from '@agbrowse/web-ai-snapshot/ax-snapshot';
export * from '@agbrowse/web-ai-snapshot/ref-registry';
export * from '@agbrowse/web-ai-snapshot/observe-targets';
export * from '@agbrowse/web-ai-snapshot/vendor-editor-contract';
export * from './chatgpt-model-like.js';
