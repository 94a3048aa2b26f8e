// observe-targets and the vendor contracts, on the provider fixtures in live
// Chromium and on plain data.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
    observeProviderTargets, rankTargetCandidates, buildWebAiSnapshot, buildWebAiSnapshotFromAxTree,
    editorContractForVendor, semanticTargetsForVendor, EDITOR_CONTRACT_BY_VENDOR,
    CHATGPT_EDITOR_CONTRACT, GEMINI_EDITOR_CONTRACT, GROK_EDITOR_CONTRACT, GEMINI_DEEP_THINK_CONSTRAINTS,
    CHATGPT_COMPOSER_SELECTORS, CHATGPT_UPLOAD_SELECTORS, CHATGPT_COPY_SELECTORS, GROK_RESPONSE_SELECTORS,
} from '../lib/index.mjs';
import { closeBrowser, openFixture, recording, replaySession } from './helpers.mjs';

after(closeBrowser);

const top = (cands, source = 'snapshot-ref') => cands.find(c => c.source === source);

for (const [vendor, file, expected] of [
    ['chatgpt', 'chatgpt.html', { composer: 'Message ChatGPT', modelPicker: 'Model selector', uploadSurface: 'Add files and more', copyButton: 'Copy', streamingIndicator: 'Stop streaming', sendButton: 'Send prompt' }],
    ['gemini', 'gemini.html', { composer: 'Enter a prompt here', modelPicker: 'Open mode picker', uploadSurface: 'Open upload file menu', copyButton: 'Copy', streamingIndicator: 'Stop response' }],
    ['grok', 'grok.html', { composer: 'Ask Grok anything', modelPicker: 'Model select', uploadSurface: 'Attach', copyButton: 'Copy', streamingIndicator: 'Stop generating' }],
]) {
    test(`the ${vendor} contract finds composer, model picker, upload, copy and stop on its fixture`, async () => {
        const page = await openFixture(file);
        try {
            const snapshot = await buildWebAiSnapshot(page, { provider: vendor });
            const found = await observeProviderTargets(page, { provider: vendor, featureMap: editorContractForVendor(vendor), snapshot });
            assert.deepEqual(Object.keys(found), Object.keys(semanticTargetsForVendor(vendor)));
            for (const [feature, name] of Object.entries(expected)) {
                const list = found[feature];
                assert.ok(list.length, `${vendor}.${feature}: no candidate`);
                // The control is among the best-scored snapshot refs (a contract may
                // name several controls equally, e.g. Gemini's "response" buttons).
                const hit = list.find(c => c.source === 'snapshot-ref' && c.name === name);
                assert.ok(hit, `${vendor}.${feature}: ${name} not found in ${JSON.stringify(list)}`);
                assert.equal(hit.confidence, Math.max(...list.map(c => c.confidence)), `${vendor}.${feature}`);
                assert.equal(list[0].source, 'snapshot-ref', `${vendor}.${feature}: a snapshot ref ranks first`);
                assert.ok(snapshot.refs[hit.ref], 'the candidate ref exists in the snapshot');
            }
            const composer = top(found.composer);
            assert.equal(composer.confidence, 5, 'role 2 + name 2 + required 1');
            assert.ok(found.composer.some(c => c.source === 'css' && c.count >= 1), 'css fallbacks are counted on the page');
            for (const list of Object.values(found)) {
                for (let i = 1; i < list.length; i += 1) assert.ok(list[i - 1].confidence + (list[i - 1].source === 'snapshot-ref' ? 0.5 : 0) + 2 >= list[i].confidence);
            }
        } finally {
            await page.close();
        }
    });
}

test('excludeNames removes matches (ChatGPT composer ignores "Search chats")', async () => {
    const page = await openFixture('chatgpt.html');
    try {
        const snapshot = await buildWebAiSnapshot(page);
        const found = await observeProviderTargets(page, { featureMap: CHATGPT_EDITOR_CONTRACT, snapshot });
        assert.ok(!found.composer.some(c => /search/i.test(c.name || '')));
        assert.ok(!found.modelPicker.some(c => /attach|upload|search/i.test(c.name || '')));
    } finally {
        await page.close();
    }
});

test('Playwright-only selectors count through a Playwright page and are reported, not thrown, over raw CDP', async () => {
    const page = await openFixture('chatgpt.html');
    try {
        const target = { upload: { roles: ['button'], names: [], cssFallbacks: ['button:has-text("+")', 'button[aria-label*="Add" i]'] } };
        const viaPage = await observeProviderTargets(page, { featureMap: target, snapshot: null });
        assert.ok(viaPage.upload.some(c => c.selector === 'button:has-text("+")' && c.count === 1));
        const session = await page.context().newCDPSession(page);
        const viaCdp = await observeProviderTargets({ cdp: session }, { featureMap: target, snapshot: null });
        const hasText = viaCdp.upload.find(c => c.selector === 'button:has-text("+")');
        assert.deepEqual([hasText.count, hasText.confidence], [0, 0]);
        assert.match(hasText.unsupported, /Playwright-only/);
        assert.ok(viaCdp.upload.some(c => c.selector === 'button[aria-label*="Add" i]' && c.count === 1));
        assert.equal(viaCdp.upload.at(-1), hasText, 'unsupported selectors rank last');
    } finally {
        await page.close();
    }
});

test('observeProviderTargets accepts a plain target map, string names and recorded sessions', async () => {
    const rec = recording('grok');
    const snapshot = await buildWebAiSnapshot({ cdp: replaySession(rec) });
    const found = await observeProviderTargets(null, { featureMap: { ask: { roles: ['textbox'], names: ['GROK'] }, none: { roles: ['slider'] } }, snapshot });
    assert.equal(found.ask[0].name, 'Ask Grok anything');
    assert.equal(found.ask[0].confidence, 4);
    assert.deepEqual(found.none, []);
    assert.deepEqual(await observeProviderTargets(null, {}), {});
});

test('name patterns keep exact JS RegExp semantics, lookaround, backreferences and stateful flags included', async () => {
    const tree = { role: 'WebArea', children: ['Send', 'Sender', 'send send', 'ſend', 'SEND', 'Ｓend', '😀Send', 'Resend'].map(name => ({ role: 'button', name })) };
    const snapshot = buildWebAiSnapshotFromAxTree(tree);
    const patterns = [/send(?!er)/i, /^(\w+) \1$/, /^.send$/i, /\bsend\b/i, /send/iu, /s/i, /^[a-z]end$/i, /e(?<=se)n/, /^\W?send$/i];
    for (const re of patterns) {
        const found = await observeProviderTargets(null, { featureMap: { t: { roles: ['button'], names: [re] } }, snapshot });
        // The oracle: the same RegExp objects, fresh, evaluated in the same order by JS.
        const oracle = new RegExp(re.source, re.flags);
        const expected = Object.values(snapshot.refs).filter(r => oracle.test(r.name)).map(r => r.name);
        assert.deepEqual(found.t.map(c => c.name), expected, String(re));
    }
});

test('patterns run in Rust with JS semantics, never calling back into the RegExp; g and y as a first test', async () => {
    const names = ['Send', 'Sender', 'send it', 'ſend', 'a send', '\u212Aey', 'key', '😀Send', 'resend'];
    const snapshot = buildWebAiSnapshotFromAxTree({ role: 'WebArea', children: names.map(name => ({ role: 'button', name })) });
    class Spy extends RegExp {
        constructor(...args) { super(...args); this.calls = 0; }
        test(s) { this.calls += 1; return super.test(s); }
        exec(s) { this.calls += 1; return super.exec(s); }
    }
    for (const [source, flags] of [['send(?!er)', 'i'], ['(s)\\1', ''], ['send', 'gi'], ['send', 'y'], ['send', 'iy'], ['send', 'iu'], ['^.send$', 'i'], ['^.send$', 'iu'], ['key', 'i'], ['^se', 'i']]) {
        const spy = new Spy(source, flags);
        const found = await observeProviderTargets(null, { featureMap: { t: { roles: ['button'], names: [spy] } }, snapshot });
        assert.equal(spy.calls, 0, `/${source}/${flags} was run by JS`);
        // The oracle: a fresh RegExp per subject, as a first test sees it.
        const expected = names.filter(n => new RegExp(source, flags).test(n));
        assert.deepEqual(found.t.map(c => c.name), expected, `/${source}/${flags}`);
    }
});

test('rankTargetCandidates is a stable sort by confidence + role + name + snapshot bonus', () => {
    const c = [
        { source: 'css', selector: 'a', count: 1, confidence: 2 },
        { source: 'snapshot-ref', ref: '@e1', role: 'link', name: 'Send', confidence: 2 },
        { source: 'snapshot-ref', ref: '@e2', role: 'button', name: 'Go', confidence: 2 },
        { source: 'css', selector: 'b', count: 1, confidence: 2 },
        { source: 'snapshot-ref', ref: '@e3', role: 'button', name: 'Send now', confidence: 1 },
    ];
    const ranked = rankTargetCandidates(c, { expectedRole: 'button', expectedNames: [/send/i] });
    assert.deepEqual(ranked.map(x => x.ref || x.selector), ['@e2', '@e3', '@e1', 'a', 'b']);
    assert.equal(ranked[0], c[2], 'the same objects come back');
    assert.deepEqual(rankTargetCandidates([]), []);
    assert.deepEqual(rankTargetCandidates(null), []);
});

test('the contracts carry exactly the data of SPEC §8 and are frozen', () => {
    assert.deepEqual(Object.keys(EDITOR_CONTRACT_BY_VENDOR), ['chatgpt', 'gemini', 'grok']);
    assert.equal(editorContractForVendor(), CHATGPT_EDITOR_CONTRACT);
    assert.equal(editorContractForVendor('nope'), CHATGPT_EDITOR_CONTRACT);
    assert.equal(editorContractForVendor('toString'), CHATGPT_EDITOR_CONTRACT);
    assert.equal(editorContractForVendor('gemini'), GEMINI_EDITOR_CONTRACT);
    assert.equal(semanticTargetsForVendor('grok'), GROK_EDITOR_CONTRACT.semanticTargets);
    const c = CHATGPT_EDITOR_CONTRACT.semanticTargets;
    assert.deepEqual(Object.keys(c), ['composer', 'sendButton', 'modelPicker', 'uploadSurface', 'responseFeed', 'copyButton', 'streamingIndicator']);
    assert.deepEqual(c.composer.names.map(String), ['/message/i', '/prompt/i', '/chatgpt/i']);
    assert.deepEqual(c.composer.excludeNames.map(String), ['/search/i']);
    assert.equal(c.composer.required, true);
    assert.deepEqual(c.modelPicker.names.map(String), ['/^(Instant|Medium|High|Extra High|Pro)$/i', '/^(GPT-5\\.6 Sol|GPT-5\\.5|GPT-5\\.4|GPT-5\\.3|o3)$/i', '/intelligence/i', '/model/i', '/gpt/i']);
    assert.deepEqual(c.modelPicker.excludeNames.map(String), ['/search/i', '/attach/i', '/upload/i']);
    assert.deepEqual(c.copyButton.cssFallbacks, CHATGPT_COPY_SELECTORS.copyButtonSelectors);
    assert.deepEqual(c.composer.cssFallbacks, CHATGPT_COMPOSER_SELECTORS);
    assert.equal(CHATGPT_COMPOSER_SELECTORS.length, 9);
    assert.equal(CHATGPT_UPLOAD_SELECTORS[2], 'button[aria-label="파일 추가 및 기타"]');
    assert.equal(CHATGPT_UPLOAD_SELECTORS.at(-1), 'button:has-text("Upload")');
    assert.deepEqual(GROK_RESPONSE_SELECTORS, ['[data-testid="assistant-message"]', '[id^="response-"]:has([data-testid="assistant-message"])']);
    const g = GEMINI_EDITOR_CONTRACT.semanticTargets;
    assert.deepEqual(Object.keys(g), ['composer', 'modelPicker', 'uploadSurface', 'responseFeed', 'copyButton', 'streamingIndicator']);
    assert.deepEqual(g.streamingIndicator.roles, ['button', 'status']);
    assert.deepEqual(g.streamingIndicator.names.map(String), ['/stop/i', '/response/i']);
    assert.deepEqual(GROK_EDITOR_CONTRACT.semanticTargets.composer.names.map(String), ['/message/i', '/prompt/i', '/ask/i', '/grok/i']);
    assert.deepEqual(GEMINI_DEEP_THINK_CONSTRAINTS.inputSelectors, ['rich-textarea .ql-editor', '[role="textbox"][aria-label*="prompt" i]', 'div[contenteditable="true"]']);
    assert.equal(GEMINI_DEEP_THINK_CONSTRAINTS.modeSelectors[2], '[role="menuitemcheckbox"]:has-text("Deep think")');
    for (const frozen of [CHATGPT_EDITOR_CONTRACT, c, c.composer, c.composer.roles, CHATGPT_COMPOSER_SELECTORS, GEMINI_DEEP_THINK_CONSTRAINTS, EDITOR_CONTRACT_BY_VENDOR]) {
        assert.ok(Object.isFrozen(frozen));
    }
});

test('createChatGptEditorAdapter inserts, submits and verifies a prompt on the ChatGPT look-alike', async () => {
    const { createChatGptEditorAdapter } = await import('../lib/vendor-editor-contract.mjs');
    const page = await openFixture('chatgpt.html');
    try {
        const adapter = createChatGptEditorAdapter(page, { timeoutMs: 5000 });
        assert.equal(adapter.vendor, 'chatgpt');
        await adapter.waitForReady();
        const baseline = await adapter.getCommitBaseline();
        assert.deepEqual(baseline, { turnsCount: 4 }, 'each turn and its message, as the old module counted');
        const prompt = 'Compare the  second quarter with the first.';
        await adapter.insertPrompt(prompt);
        assert.equal(await page.locator('#prompt-textarea').innerText(), prompt.replace(/\s+/g, ' '), 'as the editor renders it');
        assert.deepEqual(await adapter.submitPrompt(), { method: 'button' });
        assert.deepEqual(await adapter.verifyPromptCommitted(prompt, baseline), { turnsCount: 6 });
        assert.equal(await page.locator('#prompt-textarea').innerText(), '', 'the composer was cleared by the page');
        // Nothing sent: the check fails with the old catalog's code, not a hang.
        const quick = createChatGptEditorAdapter(page, { timeoutMs: 300 });
        await assert.rejects(quick.verifyPromptCommitted('never sent', { turnsCount: 6 }), err => err.errorCode === 'provider.commit-not-verified' && err.vendor === 'chatgpt');
        // A caller's own insertText runs after the composer is focused.
        const typed = createChatGptEditorAdapter(page, { insertText: text => page.keyboard.type(text) });
        await typed.insertPrompt('typed by the caller');
        assert.equal(await page.locator('#prompt-textarea').innerText(), 'typed by the caller');
    } finally {
        await page.close();
    }
});

test('createChatGptEditorAdapter drives a page that speaks only the locator protocol, with the caller\'s resolved targets', async () => {
    const { createChatGptEditorAdapter } = await import('../lib/vendor-editor-contract.mjs');
    const page = await openFixture('chatgpt.html');
    try {
        // The consumers' fake pages and page wrappers: locator(), keyboard and url, no CDP.
        const facade = { locator: selector => page.locator(selector), keyboard: page.keyboard, url: () => page.url() };
        const adapter = createChatGptEditorAdapter(facade, { timeoutMs: 5000 });
        await adapter.waitForReady();
        const baseline = await adapter.getCommitBaseline();
        assert.deepEqual(baseline, { turnsCount: 4 }, 'the same count as the snapshot driver');
        await adapter.insertPrompt('Through the locator');
        assert.equal(await page.locator('#prompt-textarea').innerText(), 'Through the locator');
        assert.deepEqual(await adapter.submitPrompt(), { method: 'button' });
        assert.deepEqual(await adapter.verifyPromptCommitted('Through the locator', baseline), { turnsCount: 6 });

        // agbrowse hands over targets it resolved: those elements are used, and the result names the selector.
        let inserted = null;
        const resolved = createChatGptEditorAdapter(page, {
            composerTarget: { selector: '#prompt-textarea', resolution: { ref: '@e9' } },
            getCdpSession: async () => ({
                send: async (_method, params) => { inserted = params.text; await page.keyboard.insertText(params.text); },
                detach: async () => undefined,
            }),
        });
        await resolved.insertPrompt('By the resolved composer');
        assert.equal(inserted, 'By the resolved composer', 'the CDP session typed it');
        const sent = await resolved.submitPrompt({ sendTarget: { selector: 'button[data-testid="send-button"]', resolution: { ref: '@e12' } } });
        assert.deepEqual(sent, { method: 'button', selector: 'button[data-testid="send-button"]', resolution: { ref: '@e12' } });
        assert.deepEqual(await resolved.verifyPromptCommitted('By the resolved composer', {}, { baselineTurns: 6, timeoutMs: 5000 }), { turnsCount: 8 });

        // A composer that never shows: the old module's code and stage, promptly.
        const missing = createChatGptEditorAdapter(facade, { composerTarget: { selector: '#no-such-composer' }, timeoutMs: 300 });
        await assert.rejects(missing.waitForReady(), err => err.errorCode === 'provider.composer-not-visible' && err.stage === 'composer-prereq');
        // Something that is no page at all is bad input, said at once.
        assert.throws(() => createChatGptEditorAdapter({}), err => err.errorCode === 'snapshot.invalid-input');
    } finally {
        await page.close();
    }
});
