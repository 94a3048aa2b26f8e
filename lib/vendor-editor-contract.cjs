'use strict';
const native = require('./native.cjs');

const data = native.contractData();

function deepFreeze(value) {
    const stack = [value];
    while (stack.length) {
        const v = stack.pop();
        if (v && typeof v === 'object' && !(v instanceof RegExp) && !Object.isFrozen(v)) {
            Object.freeze(v);
            for (const k of Object.keys(v)) stack.push(v[k]);
        }
    }
    return value;
}

const selectors = Object.fromEntries(data.selectors);

function toRegExps(list) {
    return list.map(p => new RegExp(p.source, p.flags));
}

function buildContract({ vendor, targets }) {
    const semanticTargets = {};
    for (const [name, t] of targets) {
        semanticTargets[name] = {
            roles: t.roles,
            names: toRegExps(t.names),
            ...(t.excludeNames ? { excludeNames: toRegExps(t.excludeNames) } : {}),
            cssFallbacks: t.cssFallbacks,
            ...(t.required ? { required: true } : {}),
        };
    }
    return deepFreeze({ vendor, semanticTargets });
}

const contracts = Object.fromEntries(data.contracts.map(c => [c.vendor, buildContract(c)]));

const CHATGPT_EDITOR_CONTRACT = contracts.chatgpt;
const GEMINI_EDITOR_CONTRACT = contracts.gemini;
const GROK_EDITOR_CONTRACT = contracts.grok;
const EDITOR_CONTRACT_BY_VENDOR = Object.freeze({
    chatgpt: CHATGPT_EDITOR_CONTRACT,
    gemini: GEMINI_EDITOR_CONTRACT,
    grok: GROK_EDITOR_CONTRACT,
});
const GEMINI_DEEP_THINK_CONSTRAINTS = deepFreeze(data.geminiDeepThink);

function editorContractForVendor(vendor = 'chatgpt') {
    return  Object.hasOwn(EDITOR_CONTRACT_BY_VENDOR, vendor)
        ? EDITOR_CONTRACT_BY_VENDOR[vendor]
        : CHATGPT_EDITOR_CONTRACT;
}

function semanticTargetsForVendor(vendor = 'chatgpt') {
    return editorContractForVendor(vendor).semanticTargets;
}

for (const k of Object.keys(selectors)) deepFreeze(selectors[k]);

// Selector arrays the old modules kept in other files (cli-jaw's chatgpt-model
// and copy-markdown): exported from the package root only, so that
// `export * from '@agbrowse/web-ai-snapshot/vendor-editor-contract'` beside a
// consumer's own `export * from './chatgpt-model.js'` has no name twice.
const ROOT_ONLY = ['CHATGPT_MODEL_SELECTOR_BUTTONS', 'CHATGPT_COPY_SELECTORS', 'GEMINI_COPY_SELECTORS', 'GROK_COPY_SELECTORS'];
const subpathSelectors = Object.fromEntries(Object.entries(selectors).filter(([k]) => !ROOT_ONLY.includes(k)));
const rootOnlySelectors = Object.fromEntries(ROOT_ONLY.map(k => [k, selectors[k]]));

module.exports = {
    ...subpathSelectors,
    CHATGPT_EDITOR_CONTRACT,
    GEMINI_EDITOR_CONTRACT,
    GROK_EDITOR_CONTRACT,
    EDITOR_CONTRACT_BY_VENDOR,
    GEMINI_DEEP_THINK_CONSTRAINTS,
    editorContractForVendor,
    semanticTargetsForVendor,
    createChatGptEditorAdapter: require('./editor-adapter.cjs').createChatGptEditorAdapter,
};
Object.defineProperty(module.exports, 'rootOnlySelectors', { value: rootOnlySelectors, enumerable: false });
