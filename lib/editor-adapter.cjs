'use strict';
// The ChatGPT editor adapter of the old `vendor-editor-contract` module
// (`createChatGptEditorAdapter`), built on this package: the composer and the
// send button are found by the vendor contract's semantic targets in a
// snapshot, the prompt goes in and out through `runAction` (real input
// events, checked), and a commit is read off the page's conversation turns.
const ax = require('./ax-snapshot.cjs');
const { runAction } = require('./actions.cjs');
const { observeProviderTargets } = require('./observe-targets.cjs');
const { WebAiError } = require('./errors.cjs');
const { adapt } = require('./transport.cjs');

const READY_TIMEOUT_MS = 10_000;
const COMMIT_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

// The user turns of the conversation, newest last (ChatGPT's markup).
const USER_TURNS_EXPRESSION = `Array.from(document.querySelectorAll(
    '[data-message-author-role="user"], article[data-turn="user"], div[data-turn="user"], section[data-turn="user"]'
)).filter(n => !n.parentElement || !n.parentElement.closest('[data-message-author-role="user"], [data-turn="user"]'))
 .map(n => n.innerText || n.textContent || '')`;

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const normalize = text => String(text || '').replace(/\s+/g, ' ').trim();

function adapterError(errorCode, stage, retryHint, message, evidence = null) {
    return new WebAiError({ errorCode, stage, retryHint, message, vendor: 'chatgpt', evidence });
}

/** Evaluate an expression in the page, by Playwright or by CDP. */
async function evaluate(page, expression) {
    if (page && typeof page.evaluate === 'function') return page.evaluate(expression);
    const source = adapt(page);
    if (!source.send) throw new Error('the editor adapter needs a Playwright page or { cdp: { send } }');
    const r = JSON.parse(await source.send({ method: 'Runtime.evaluate', params: { expression, returnByValue: true } }));
    return r.result ? r.result.value : undefined;
}

/**
 * createChatGptEditorAdapter(page, { insertText?, timeoutMs? }):
 *   waitForReady()                     the composer is on the page (a snapshot ref)
 *   getCommitBaseline()                { turnsCount }: user turns before sending
 *   insertPrompt(text)                 fill the composer (or options.insertText after focusing it), verified
 *   submitPrompt()                     { method: 'button' | 'enter' }
 *   verifyPromptCommitted(prompt, baseline?)  { turnsCount } once the prompt shows as a new user turn
 */
function createChatGptEditorAdapter(page, options = {}) {
    const opts = options || {};
    const contract = require('./vendor-editor-contract.cjs').CHATGPT_EDITOR_CONTRACT;

    async function look() {
        const snapshot = await ax.buildWebAiSnapshot(page, { provider: 'chatgpt', maxDepth: 100 });
        const targets = await observeProviderTargets(null, { provider: 'chatgpt', featureMap: contract, snapshot });
        const first = feature => (targets[feature] || []).find(c => c.source === 'snapshot-ref') || null;
        return { snapshot, composer: first('composer'), send: first('sendButton') };
    }

    async function composerOrThrow(stage) {
        const seen = await look();
        if (!seen.composer) {
            throw adapterError('provider.composer-not-visible', stage, 're-snapshot', 'the ChatGPT composer is not on the page (no textbox the contract names)', { url: seen.snapshot.url });
        }
        return seen;
    }

    async function userTurns() {
        const turns = await evaluate(page, USER_TURNS_EXPRESSION);
        return Array.isArray(turns) ? turns.map(normalize) : [];
    }

    return {
        vendor: 'chatgpt',

        async waitForReady() {
            const deadline = Date.now() + (opts.timeoutMs || READY_TIMEOUT_MS);
            for (;;) {
                const seen = await look().catch(() => null);
                if (seen && seen.composer) return;
                if (Date.now() > deadline) throw adapterError('provider.composer-not-visible', 'composer-prereq', 're-snapshot', 'the ChatGPT composer did not appear in time');
                await sleep(POLL_MS);
            }
        },

        async getCommitBaseline() {
            return { turnsCount: (await userTurns()).length };
        },

        async insertPrompt(text) {
            const { snapshot, composer } = await composerOrThrow('composer-focus');
            if (typeof opts.insertText === 'function') {
                const focus = await runAction(page, snapshot, 'click', { ref: composer.ref });
                if (!focus.success) throw adapterError('provider.composer-not-visible', 'composer-focus', 're-snapshot', focus.message, { error: focus.error });
                await opts.insertText(String(text));
                return;
            }
            const r = await runAction(page, snapshot, 'fill', { ref: composer.ref, value: String(text) });
            if (!r.success) throw adapterError('provider.composer-not-visible', 'composer-insert', 're-snapshot', r.message, { error: r.error });
        },

        async submitPrompt() {
            const { snapshot, composer, send } = await composerOrThrow('composer-submit');
            if (send) {
                const r = await runAction(page, snapshot, 'click', { ref: send.ref });
                if (r.success) return { method: 'button' };
            }
            // No usable send button: Enter in the composer, as a user would.
            const focus = await runAction(page, snapshot, 'click', { ref: composer.ref });
            if (!focus.success) throw adapterError('provider.commit-not-verified', 'composer-submit', 're-snapshot', focus.message, { error: focus.error });
            if (page && page.keyboard && typeof page.keyboard.press === 'function') {
                await page.keyboard.press('Enter');
            } else {
                const source = adapt(page);
                for (const type of ['keyDown', 'keyUp']) {
                    await source.send({ method: 'Input.dispatchKeyEvent', params: { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: type === 'keyDown' ? '\r' : undefined } });
                }
            }
            return { method: 'enter' };
        },

        async verifyPromptCommitted(prompt, baseline = {}) {
            const base = baseline && Number.isFinite(Number(baseline.turnsCount)) ? Number(baseline.turnsCount) : -1;
            const wanted = normalize(prompt);
            const prefix = wanted.slice(0, 120);
            const deadline = Date.now() + (opts.timeoutMs || COMMIT_TIMEOUT_MS);
            for (;;) {
                const turns = await userTurns();
                const isNew = base < 0 ? turns.length > 0 : turns.length > base;
                const shown = turns.some(t => t.includes(wanted) || (prefix.length > 30 && t.includes(prefix)));
                if (isNew && shown) return { turnsCount: turns.length };
                if (Date.now() > deadline) {
                    throw adapterError('provider.commit-not-verified', 'prompt-commit', 're-snapshot',
                        'the prompt did not appear as a new user turn before the deadline (the send may have failed)', { turnsCount: turns.length, baseline: base });
                }
                await sleep(POLL_MS);
            }
        },
    };
}

module.exports = { createChatGptEditorAdapter };
