import type { CopySelectors } from './vendor-editor-contract';

/** Exported from the package root only (cli-jaw keeps them in chatgpt-model and copy-markdown). */
export declare const CHATGPT_MODEL_SELECTOR_BUTTONS: readonly string[];
export declare const CHATGPT_COPY_SELECTORS: CopySelectors;
export declare const GEMINI_COPY_SELECTORS: CopySelectors;
export declare const GROK_COPY_SELECTORS: CopySelectors;
