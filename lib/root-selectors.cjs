'use strict';
// Selector arrays exported from the package root only (see ROOT_ONLY in
// vendor-editor-contract.cjs). Plain `exports.X =` assignments, so that Node
// reads them as named exports of index.cjs too.
const selectors = require('./vendor-editor-contract.cjs').rootOnlySelectors;

exports.CHATGPT_MODEL_SELECTOR_BUTTONS = selectors.CHATGPT_MODEL_SELECTOR_BUTTONS;
exports.CHATGPT_COPY_SELECTORS = selectors.CHATGPT_COPY_SELECTORS;
exports.GEMINI_COPY_SELECTORS = selectors.GEMINI_COPY_SELECTORS;
exports.GROK_COPY_SELECTORS = selectors.GROK_COPY_SELECTORS;
