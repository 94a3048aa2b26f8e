'use strict';
// The ChatGPT editor adapter of the old `vendor-editor-contract` module
// (`createChatGptEditorAdapter`), built on this package.
//
// Two drivers, chosen by what the page can do:
// - snapshot: a Playwright page or `{ cdp }` / `{ cdpEndpoint }`. The composer
//   and the send button are the vendor contract's semantic targets in a
//   snapshot; the prompt goes in and out through `runAction` (real input
//   events, checked).
// - locator: an object that speaks only Playwright's locator protocol
//   (`page.locator(sel).first().isVisible()/click()/fill()/inputValue()`), as
//   the consumers' fake pages and page wrappers do. The contract's CSS
//   fallbacks find the elements, as the old module did.
// A caller that already resolved a target (`composerTarget` / `sendTarget`
// with a `selector`, as agbrowse's resolver hands over) gets that element
// through the locator when the page has one, on either driver.
//
// A commit is read off the conversation turns (the old module's markup and
// count), so a baseline taken by either driver means the same number.
const ax = require('./ax-snapshot.cjs');
const { runAction } = require('./actions.cjs');
const { observeProviderTargets } = require('./observe-targets.cjs');
const { WebAiError } = require('./errors.cjs');
const { adapt } = require('./transport.cjs');
const { webAiError } = require('./raise.cjs');

const READY_TIMEOUT_MS = 10_000;
const COMMIT_TIMEOUT_MS = 60_000;
const SEND_BUTTON_TIMEOUT_MS = 8_000;
const POLL_MS = 100;

// ChatGPT's conversation turns and streaming markers, as the old module read them.
const TURN_SELECTOR = ['article', 'div', 'section']
    .flatMap(tag => [`${tag}[data-testid^="conversation-turn"]`, `${tag}[data-message-author-role]`, `${tag}[data-turn]`])
    .join(', ');
const STOP_SELECTOR = '[data-testid="stop-button"]';
const ASSISTANT_SELECTOR = '[data-message-author-role="assistant"], [data-turn="assistant"]';

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const normalize = text => String(text || '').toLowerCase().replace(/\s+/g, ' ').trim();

function adapterError(errorCode, stage, message, evidence = null) {
    return new WebAiError({ errorCode, stage, retryHint: 're-snapshot', message, vendor: 'chatgpt', evidence });
}

function contract() {
    return require('./vendor-editor-contract.cjs').CHATGPT_EDITOR_CONTRACT;
}

/**
 * What the page shows of the conversation: the turns' text, the composer's
 * text, streaming markers. Turns are every element the turn markup matches,
 * nested ones included, as the old module and the locator protocol count them.
 */
function pageStateExpression(composerSelectors) {
    return `(() => {
        const read = n => !n ? '' : ('value' in n && typeof n.value === 'string') ? n.value : (n.innerText || n.textContent || '');
        const turns = Array.from(document.querySelectorAll(${JSON.stringify(TURN_SELECTOR)}))
            .map(read).map(t => t.trim()).filter(Boolean);
        const shown = n => { const r = n.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
        const composers = ${JSON.stringify(composerSelectors)}.flatMap(s => { try { return Array.from(document.querySelectorAll(s)); } catch { return []; } });
        const composer = composers.find(shown) || composers[0] || null;
        return {
            turns,
            composerText: read(composer),
            streaming: Boolean(document.querySelector(${JSON.stringify(STOP_SELECTOR)})),
            assistant: Boolean(document.querySelector(${JSON.stringify(ASSISTANT_SELECTOR)})),
        };
    })()`;
}

/** Evaluate an expression in the page, by Playwright or by CDP. */
async function evaluate(page, expression) {
    if (page && typeof page.evaluate === 'function') return page.evaluate(expression);
    const source = adapt(page);
    const r = JSON.parse(await source.send({ method: 'Runtime.evaluate', params: { expression, returnByValue: true } }));
    return r.result ? r.result.value : undefined;
}

/** The prompt is committed when a new turn shows it, or when the composer emptied into a new turn that is being answered. */
function committed(state, prompt, baselineTurns) {
    const wanted = normalize(prompt);
    const prefix = wanted.slice(0, 120);
    const turns = state.turns.map(normalize);
    const isNew = baselineTurns < 0 ? turns.length > 0 : turns.length > baselineTurns;
    const shown = turns.some(t => t.includes(wanted) || (prefix.length > 30 && t.includes(prefix)));
    const answered = !normalize(state.composerText) && (state.streaming || state.assistant);
    return isNew && (shown || answered);
}

/** True when a locator's element is there and visible (and enabled, when asked). */
async function usable(locator, { enabled = false } = {}) {
    if (!locator) return false;
    if (typeof locator.count === 'function' && (await locator.count().catch(() => 0)) === 0) return false;
    if (typeof locator.isVisible === 'function' && !(await locator.isVisible().catch(() => false))) return false;
    if (enabled && typeof locator.isEnabled === 'function' && !(await locator.isEnabled().catch(() => false))) return false;
    return true;
}

async function locatorText(locator) {
    if (typeof locator.inputValue === 'function') {
        const value = await locator.inputValue().catch(() => null);
        if (typeof value === 'string') return value;
    }
    if (typeof locator.innerText === 'function') return String(await locator.innerText().catch(() => ''));
    return '';
}

async function clickLocator(locator) {
    try {
        await locator.click({ timeout: 5_000 });
        return true;
    } catch {
        return false;
    }
}

/**
 * The locator driver: the contract's CSS fallbacks (or the caller's resolved
 * selectors) through Playwright's locator protocol.
 */
function locatorDriver(page, opts) {
    const composerSelectors = contract().semanticTargets.composer.cssFallbacks;
    const sendSelectors = contract().semanticTargets.sendButton.cssFallbacks;

    async function composer(stage) {
        const given = opts.composerTarget && opts.composerTarget.selector;
        if (given) return page.locator(given).first();
        let present = null;
        for (const selector of composerSelectors) {
            const locator = page.locator(selector).first();
            const count = typeof locator.count === 'function' ? await Promise.resolve(locator.count()).catch(() => 0) : 1;
            if (count === 0) continue;
            if (typeof locator.isVisible !== 'function' || await Promise.resolve(locator.isVisible()).catch(() => false)) return locator;
            present = present || locator;
        }
        if (present) return present;
        throw adapterError('provider.composer-not-visible', stage, `the ChatGPT composer is not on the page (tried ${composerSelectors.join(', ')})`, { selectorsTried: [...composerSelectors] });
    }

    async function state() {
        const turns = [];
        const all = await Promise.resolve(page.locator(TURN_SELECTOR).all()).catch(() => []);
        for (const turn of all || []) {
            const text = String(await Promise.resolve(turn.innerText()).catch(() => '')).trim();
            if (text) turns.push(text);
        }
        const field = await composer('prompt-commit').catch(() => null);
        const exists = async selector => (await Promise.resolve(page.locator(selector).first().count()).catch(() => 0)) > 0;
        return {
            turns,
            composerText: field ? await locatorText(field) : '',
            streaming: await exists(STOP_SELECTOR),
            assistant: await exists(ASSISTANT_SELECTOR),
        };
    }

    return {
        async waitForReady(timeoutMs) {
            const selector = (opts.composerTarget && opts.composerTarget.selector) || composerSelectors.join(', ');
            const locator = page.locator(selector).first();
            try {
                if (typeof locator.waitFor === 'function') await locator.waitFor({ state: 'visible', timeout: timeoutMs });
                else await pollUntil(() => usable(locator), timeoutMs);
            } catch {
                throw adapterError('provider.composer-not-visible', 'composer-prereq', 'the ChatGPT composer did not appear in time', { selector });
            }
        },
        state,
        async insert(text) {
            const field = await composer('composer-focus');
            await clickLocator(field);
            let typed = false;
            try {
                typed = await typeLikeUser(page, text, opts);
            } catch {
                typed = false;
            }
            const seen = () => locatorText(field).then(value => normalize(value).includes(normalize(text).slice(0, 120)));
            if (!typed || !(await seen())) {
                if (typeof field.fill === 'function') await Promise.resolve(field.fill(text)).catch(() => undefined);
            }
            if (!(await seen())) {
                throw adapterError('provider.commit-not-verified', 'composer-verify', 'the composer does not hold the prompt after inserting it');
            }
        },
        async submit(submit) {
            const target = submit.sendTarget && submit.sendTarget.selector;
            if (target) {
                const button = page.locator(target).first();
                if (await usable(button, { enabled: true }) && await clickLocator(button)) {
                    return { method: 'button', selector: target, resolution: submit.sendTarget.resolution || null };
                }
            }
            const deadline = Date.now() + submit.sendButtonTimeoutMs;
            for (;;) {
                let present = false;
                for (const selector of sendSelectors) {
                    const button = page.locator(selector).first();
                    if (!(await usable(button))) continue;
                    present = true;
                    if (await usable(button, { enabled: true }) && await clickLocator(button)) return { method: 'button' };
                }
                // A disabled send button is waited for (an upload may still be running); no button at all is not.
                if (!present || Date.now() > deadline) break;
                await sleep(POLL_MS);
            }
            await clickLocator(await composer('composer-submit'));
            await page.keyboard.press('Enter');
            return { method: 'enter' };
        },
    };
}

/** opts.insertText, else a CDP session's Input.insertText, else page.keyboard; false when none exists. */
async function typeLikeUser(page, text, opts) {
    if (typeof opts.insertText === 'function') {
        await opts.insertText(text);
        return true;
    }
    if (typeof opts.getCdpSession === 'function') {
        const cdp = await opts.getCdpSession();
        try {
            await cdp.send('Input.insertText', { text });
        } finally {
            if (cdp && typeof cdp.detach === 'function') await Promise.resolve(cdp.detach()).catch(() => undefined);
        }
        return true;
    }
    if (page && page.keyboard && typeof page.keyboard.insertText === 'function') {
        await page.keyboard.insertText(text);
        return true;
    }
    return false;
}

async function pollUntil(check, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        if (await check()) return;
        if (Date.now() > deadline) throw new Error('timed out');
        await sleep(POLL_MS);
    }
}

/** The snapshot driver: the contract's semantic targets in a snapshot, acted on with runAction. */
function snapshotDriver(page, opts) {
    const composerSelectors = contract().semanticTargets.composer.cssFallbacks;
    // A resolved target the caller hands over is used through Playwright's locator.
    const viaLocator = typeof page.locator === 'function' ? locatorDriver(page, opts) : null;

    async function look() {
        const snapshot = await ax.buildWebAiSnapshot(page, { provider: 'chatgpt', maxDepth: 100 });
        const targets = await observeProviderTargets(null, { provider: 'chatgpt', featureMap: contract(), snapshot });
        const first = feature => (targets[feature] || []).find(c => c.source === 'snapshot-ref') || null;
        return { snapshot, composer: first('composer'), send: first('sendButton') };
    }

    async function composerOrThrow(stage) {
        const seen = await look();
        if (!seen.composer) {
            throw adapterError('provider.composer-not-visible', stage, 'the ChatGPT composer is not on the page (no textbox the contract names)', { url: seen.snapshot.url });
        }
        return seen;
    }

    const failed = (stage, r) => adapterError(stage === 'composer-submit' ? 'provider.commit-not-verified' : 'provider.composer-not-visible', stage, r.message, { error: r.error });

    return {
        async waitForReady(timeoutMs) {
            if (opts.composerTarget && opts.composerTarget.selector && viaLocator) return viaLocator.waitForReady(timeoutMs);
            const deadline = Date.now() + timeoutMs;
            for (;;) {
                const seen = await look().catch(() => null);
                if (seen && seen.composer) return;
                if (Date.now() > deadline) throw adapterError('provider.composer-not-visible', 'composer-prereq', 'the ChatGPT composer did not appear in time');
                await sleep(POLL_MS);
            }
        },
        async state() {
            const value = await evaluate(page, pageStateExpression(composerSelectors));
            return value && Array.isArray(value.turns) ? value : { turns: [], composerText: '', streaming: false, assistant: false };
        },
        async insert(text) {
            if (opts.composerTarget && opts.composerTarget.selector && viaLocator) return viaLocator.insert(text);
            const { snapshot, composer } = await composerOrThrow('composer-focus');
            if (typeof opts.insertText === 'function' || typeof opts.getCdpSession === 'function') {
                const focus = await runAction(page, snapshot, 'click', { ref: composer.ref });
                if (!focus.success) throw failed('composer-focus', focus);
                await typeLikeUser(page, text, opts);
                return;
            }
            const r = await runAction(page, snapshot, 'fill', { ref: composer.ref, value: text });
            if (!r.success) throw failed('composer-insert', r);
        },
        async submit(submit) {
            if (submit.sendTarget && submit.sendTarget.selector && viaLocator) return viaLocator.submit(submit);
            const { snapshot, composer, send } = await composerOrThrow('composer-submit');
            if (send) {
                const r = await runAction(page, snapshot, 'click', { ref: send.ref });
                if (r.success) return { method: 'button' };
            }
            // No usable send button: Enter in the composer, as a user would.
            const focus = await runAction(page, snapshot, 'click', { ref: composer.ref });
            if (!focus.success) throw failed('composer-submit', focus);
            if (page.keyboard && typeof page.keyboard.press === 'function') {
                await page.keyboard.press('Enter');
            } else {
                const source = adapt(page);
                for (const type of ['keyDown', 'keyUp']) {
                    await source.send({ method: 'Input.dispatchKeyEvent', params: { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: type === 'keyDown' ? '\r' : undefined } });
                }
            }
            return { method: 'enter' };
        },
    };
}

/**
 * createChatGptEditorAdapter(page, options):
 *   waitForReady()                       the composer is on the page
 *   getCommitBaseline()                  { turnsCount }: conversation turns before sending
 *   insertPrompt(text)                   the prompt in the composer, verified
 *   submitPrompt(submitOptions?)         { method: 'button' | 'enter', selector?, resolution? }
 *   verifyPromptCommitted(prompt, baseline?, verifyOptions?)  { turnsCount } once committed
 * Options (the old module's `ComposerOptions`): composerTarget, sendTarget,
 * insertText, getCdpSession, timeoutMs, baselineTurns, sendButtonTimeoutMs.
 */
function createChatGptEditorAdapter(page, options = {}) {
    const opts = options || {};
    let driver;
    if (adapt(page).kind) driver = snapshotDriver(page, opts);
    else if (page && typeof page.locator === 'function') driver = locatorDriver(page, opts);
    else {
        throw webAiError('snapshot.invalid-input',
            'createChatGptEditorAdapter needs a Playwright page, { cdp: { send } }, { cdpEndpoint } or an object with locator(selector)',
            { what: 'page' }, { vendor: 'chatgpt' });
    }
    const timeout = (given, fallback) => (Number.isFinite(Number(given)) && Number(given) > 0 ? Number(given) : fallback);

    return {
        vendor: 'chatgpt',

        async waitForReady() {
            await driver.waitForReady(timeout(opts.timeoutMs, READY_TIMEOUT_MS));
        },

        async getCommitBaseline() {
            return { turnsCount: (await driver.state()).turns.length };
        },

        async insertPrompt(text) {
            await driver.insert(String(text));
        },

        async submitPrompt(submitOptions = {}) {
            const merged = { ...opts, ...(submitOptions || {}) };
            return driver.submit({ sendTarget: merged.sendTarget || null, sendButtonTimeoutMs: timeout(merged.sendButtonTimeoutMs, SEND_BUTTON_TIMEOUT_MS) });
        },

        async verifyPromptCommitted(prompt, baseline = {}, verifyOptions = {}) {
            const merged = { ...opts, ...(verifyOptions || {}) };
            const given = baseline && baseline.turnsCount != null ? baseline.turnsCount : merged.baselineTurns;
            const base = Number.isFinite(Number(given)) && given !== null ? Number(given) : -1;
            const deadline = Date.now() + timeout(merged.timeoutMs, COMMIT_TIMEOUT_MS);
            for (;;) {
                const state = await driver.state();
                if (committed(state, prompt, base)) return { turnsCount: state.turns.length };
                if (Date.now() > deadline) {
                    throw adapterError('provider.commit-not-verified', 'prompt-commit',
                        'the prompt did not appear as a new conversation turn before the deadline (the send may have failed)', { turnsCount: state.turns.length, baseline: base });
                }
                await sleep(POLL_MS);
            }
        },
    };
}

module.exports = { createChatGptEditorAdapter, TURN_SELECTOR };
