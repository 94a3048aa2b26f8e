// The CLI end to end, spawned as a process like a user would run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, pagesDir } from './helpers.mjs';

const bin = join(root, 'bin', 'web-ai-snapshot.mjs');

function cli(...argv) {
    return cliWith({}, ...argv);
}

function cliWith(env, ...argv) {
    return new Promise(resolve => {
        const child = spawn(process.execPath, [bin, ...argv], { cwd: root, env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', d => { stdout += d; });
        child.stderr.on('data', d => { stderr += d; });
        child.on('close', status => resolve({ status, stdout, stderr }));
    });
}

test('snapshot with no URL prints the bundled page with refs', async () => {
    const r = await cli('snapshot');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^- document "ChatGPT":\n/);
    assert.match(r.stdout, /textbox "Message ChatGPT" \[ref=@e\d+\]/);
});

test('WEB_AI_TRACE=1 prints where a capture\'s time went, one line a phase on stderr, and changes nothing else', async () => {
    const page = join(root, 'fixtures', 'agent', 'shop.html');
    const [plain, traced] = await Promise.all([cli('snapshot', page), cliWith({ WEB_AI_TRACE: '1' }, 'snapshot', page)]);
    assert.equal(traced.status, 0, traced.stderr);
    assert.equal(traced.stdout, plain.stdout);
    assert.doesNotMatch(plain.stderr, /web-ai-trace/);
    const phases = new Map([...traced.stderr.matchAll(/^web-ai-trace (\S+) (\d+\.\d\d)$/gm)].map(m => [m[1], Number(m[2])]));
    for (const phase of ['engine.page', 'engine.build', 'dom.read', 'serialize', 'locate', 'build_snapshot', 'capture', 'session.outcome']) {
        assert.ok(phases.has(phase), `${phase} in\n${traced.stderr}`);
    }
    // The phases nest: the capture holds its build, the build its serializing.
    assert.ok(phases.get('capture') >= phases.get('build_snapshot') && phases.get('build_snapshot') >= phases.get('serialize'));
});

test('snapshot FILE --json prints a whole WebAiSnapshot; options pass through', async () => {
    const r = await cli('snapshot', join(pagesDir, 'forms.html'), '--json', '--refs-only', '--vendor', 'grok');
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.provider, 'grok');
    assert.equal(s.title, 'Checkout');
    assert.ok(s.text.split('\n').every(l => l.includes('[ref=@e')));
    assert.equal(Object.keys(s.refs).length, 22);
    const deep = await cli('snapshot', join(pagesDir, 'forms.html'), '--max-depth', '1', '--root-selector', 'form');
    assert.equal(deep.status, 0, deep.stderr);
    assert.match(deep.stdout, /^- document "Checkout":\n {2}- form:\n {4}- textbox "Email"/);
    assert.match(deep.stderr, /# maxDepth 1/);
});

test('usage errors exit 2, runtime failures exit 1 with errorCode: message', async () => {
    for (const argv of [['snapshot', '--max-depth', 'deep'], ['snapshot', '--bogus'], ['frobnicate'], ['snapshot', '--vendor', 'bard'], ['doctor', '--snapshot', 'full'], ['snapshot', 'no-such-file.html']]) {
        const r = await cli(...argv);
        assert.equal(r.status, 2, `${argv.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /^usage: /);
    }
    const r = await cli('snapshot', '--root-selector', '#missing');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^snapshot\.root-not-found: rootSelector matched nothing: #missing/);
});

test('--help works for every command', async () => {
    for (const argv of [['--help'], ['snapshot', '--help'], ['doctor', '--help']]) {
        const r = await cli(...argv);
        assert.equal(r.status, 0);
        assert.match(r.stdout, /Usage: web-ai-snapshot/);
    }
});

test('doctor never prints snapshot text or a raw name (canary)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    const page = join(dir, 'canary.html');
    const CANARY = 'Canary7f3aSecret';
    writeFileSync(page, `<!doctype html><title>${CANARY} title</title><main><h1>${CANARY} heading</h1>
        <div contenteditable="true" role="textbox" aria-label="Message ${CANARY}"></div>
        <button aria-label="Send ${CANARY}">go</button><p>${CANARY} paragraph</p></main>`);
    try {
        for (const extra of [['--json'], []]) {
            const r = await cli('doctor', '--vendor', 'chatgpt', '--snapshot', 'interactive', page, ...extra);
            assert.equal(r.status, 0, r.stderr);
            assert.ok(!r.stdout.includes(CANARY) && !r.stderr.includes(CANARY), 'a raw name leaked');
            assert.ok(!r.stdout.includes('- document'), 'snapshot text leaked');
            if (extra.length) {
                const report = JSON.parse(r.stdout);
                assert.equal(report.snapshot.contentSafe, true);
                assert.ok(report.snapshot.topRefs.every(t => /^sha256:[0-9a-f]{12}$/.test(t.nameHash) && t.nameChars > 0));
                const composer = report.semanticTargets.composer.find(c => c.source === 'snapshot-ref');
                assert.equal(composer.nameChars, `Message ${CANARY}`.length);
                assert.equal('name' in composer, false);
                assert.deepEqual(report.warnings, []);
            }
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('doctor reports a page it cannot snapshot as a warning, not a crash, and exits 1', async () => {
    const r = await cli('doctor', '--vendor', 'gemini', '--timeout', '1', '--json');
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.warnings[0].code, 'snapshot-failed');
    assert.ok(['snapshot.timeout', 'page.navigation-failed'].includes(report.warnings[0].errorCode), report.warnings[0].errorCode);
    assert.equal(report.snapshot, null);
    const ok = await cli('doctor', '--vendor', 'gemini', '--json');
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(JSON.parse(ok.stdout).snapshot.interactiveCount > 0, '--snapshot interactive is the default');
});

test('without playwright-core the CLI launches Chromium itself and drives it through the addon', async () => {
    const env = { WEB_AI_SNAPSHOT_NATIVE_BROWSER: '1' };
    const r = await cliWith(env, 'snapshot');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^- document "ChatGPT":\n/);
    assert.match(r.stdout, /textbox "Message ChatGPT" \[ref=@e\d+\]/);
    const file = await cliWith(env, 'snapshot', join(pagesDir, 'forms.html'), '--refs-only');
    assert.equal(file.status, 0, file.stderr);
    assert.match(file.stdout, /textbox "Email"/);
    const dns = await cliWith(env, 'snapshot', 'http://no-such-host.invalid/', '--timeout', '5000', '--json');
    assert.equal(dns.status, 1);
    assert.equal(JSON.parse(dns.stdout).error.errorCode, 'page.dns-failed', dns.stdout);
    const d = await cliWith(env, 'doctor', '--vendor', 'grok', '--json');
    assert.equal(d.status, 0, d.stderr);
    assert.ok(JSON.parse(d.stdout).snapshot.interactiveCount > 0);
});

test('--version, errors as JSON under --json, and a hint for a bare domain', async () => {
    const { version } = JSON.parse((await import('node:fs')).readFileSync(join(root, 'package.json'), 'utf8'));
    const v = await cli('--version');
    assert.equal(v.status, 0);
    assert.equal(v.stdout.trim(), version);
    const usage = await cli('snapshot', '--bogus', '--json');
    assert.equal(usage.status, 2);
    assert.equal(JSON.parse(usage.stdout).error.errorCode, 'usage');
    const runtime = await cli('snapshot', '--root-selector', '#missing', '--json');
    assert.equal(runtime.status, 1);
    const e = JSON.parse(runtime.stdout).error;
    assert.deepEqual([e.name, e.errorCode, e.stage, e.retryHint], ['WebAiError', 'snapshot.root-not-found', 'snapshot-capture', 'fix-root-selector']);
    const domain = await cli('snapshot', 'example.com');
    assert.equal(domain.status, 2);
    assert.match(domain.stderr, /did you mean https:\/\/example\.com\?/);
    const help = await cli('click', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: web-ai-snapshot click REF/);
});
