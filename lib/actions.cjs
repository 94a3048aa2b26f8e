'use strict';
// Actions by ref over CDP (seed 001 §1.1): click, fill, select, scroll.
// Every action is bounded by a deadline and returns
// `{ success, snapshot, error, message }` with a fresh snapshot even on
// failure; `error` is one of ACTION_ERRORS. The element is reached through
// the ref's backendNodeId (exact, and gone when the element is gone), in the
// session of its frame.
const native = require('./native.cjs');
const ax = require('./ax-snapshot.cjs');
const { TIMED_OUT, withDeadline } = require('./deadline.cjs');
const { cdpSessionFor, frameSessionSend } = require('./sessions.cjs');

const ACTION_ERRORS = Object.freeze([
    'ref_invalid', 'element_disabled', 'element_obscured', 'element_not_visible',
    'action_failed', 'timeout', 'human_rejected', 'invalid_params',
]);
const DEFAULT_ACTION_TIMEOUT_MS = 2000;
const REF_PATTERN = /^@?e\d+$/;

class ActionError extends Error {
    constructor(code, message, evidence = null) {
        super(message);
        this.code = code;
        this.evidence = evidence;
    }
}

function fail(code, message, evidence) {
    throw new ActionError(code, message, evidence);
}

/** CDP senders for a snapshot source: the page's, and (Playwright) each out-of-process frame's. */
async function sendersFor(source) {
    if (source && typeof source.context === 'function') {
        const session = await cdpSessionFor(source);
        return {
            send: (method, params) => session.send(method, params),
            frameSend: frameId => frameSessionSend(source, frameId),
        };
    }
    if (source && source.cdp && typeof source.cdp.send === 'function') {
        return { send: (method, params) => source.cdp.send(method, params), frameSend: async () => null };
    }
    if (source && typeof source.cdpEndpoint === 'string') {
        fail('invalid_params', `actions need a session that stays open, and { cdpEndpoint } connects for one capture only: connect Playwright to ${source.cdpEndpoint} (chromium.connectOverCDP) and pass its page, or pass { cdp } with a CDP session`);
    }
    fail('invalid_params', 'actions need a Playwright page or { cdp: { send } }');
}

/** Where the frame of an out-of-process iframe sits in the page's viewport. */
async function frameOffset(send, frameId) {
    const owner = await send('DOM.getFrameOwner', { frameId });
    const box = await send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId });
    return { x: box.model.content[0], y: box.model.content[1] };
}

/**
 * The live element of a ref, or null when it is gone: `send` for its frame,
 * the page's `send` (input goes there), an objectId and the frame's offset.
 */
async function liveElement(senders, entry) {
    if (!entry || typeof entry.backendNodeId !== 'number') return null;
    let send = senders.send;
    let offset = { x: 0, y: 0 };
    let oopif = false;
    if (entry.frameId) {
        const frameSend = await senders.frameSend(entry.frameId).catch(() => null);
        if (frameSend) {
            send = frameSend;
            oopif = true;
            // Boxes from this session are in its out-of-process root's viewport,
            // same-process frames nested in it included: offset by that root.
            offset = await frameOffset(senders.send, frameSend.rootFrameId || entry.frameId);
        }
    }
    // Only "no such node" means gone; a dead session is a failure, not a verdict.
    const resolved = await send('DOM.resolveNode', { backendNodeId: entry.backendNodeId }).catch(err => {
        if (/no node/i.test(String(err && err.message))) return null;
        throw err;
    });
    const objectId = resolved && resolved.object && resolved.object.objectId;
    if (!objectId) return null;
    // A node removed from the page still resolves while something holds it.
    const connected = await call(send, objectId, 'function () { return this.isConnected; }');
    if (connected !== true) return null;
    return { send, pageSend: senders.send, objectId, offset, oopif, backendNodeId: entry.backendNodeId };
}

async function call(send, objectId, fn, args = []) {
    const r = await send('Runtime.callFunctionOn', {
        objectId,
        functionDeclaration: fn,
        arguments: args.map(a => (a && a.objectId ? { objectId: a.objectId } : { value: a })),
        returnByValue: true,
        awaitPromise: true,
    });
    if (r.exceptionDetails) {
        const d = r.exceptionDetails;
        throw new Error((d.exception && d.exception.description) || d.text || 'the page threw');
    }
    return r.result ? r.result.value : undefined;
}

const STATE_FN = `function () {
    const el = this;
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(el) : null;
    const type = String(el.type || '').toLowerCase();
    const nonText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'];
    return {
        disabled: !!(el.disabled || (el.matches && el.matches(':disabled')) || (el.closest && el.closest('[aria-disabled="true"]'))),
        readOnly: !!(el.readOnly || (el.getAttribute && el.getAttribute('aria-readonly') === 'true')),
        hidden: !style || style.visibility === 'hidden' || style.display === 'none',
        tag: el.localName || el.nodeName,
        textInput: el.localName === 'textarea' || (el.localName === 'input' && !nonText.includes(type)),
        editable: !!el.isContentEditable,
        select: el.localName === 'select',
        popup: !!(el.getAttribute && ['listbox', 'menu', 'true', 'tree', 'grid'].includes(String(el.getAttribute('aria-haspopup')).toLowerCase())),
    };
}`;

const DESCRIBE_FN = `function () {
    const el = this.nodeType === 1 ? this : this.parentElement;
    if (!el) return String(this.nodeName);
    let d = el.localName;
    if (el.id) d += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) d += '.' + cls.join('.');
    const text = (el.getAttribute('aria-label') || el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
    if (text) d += ' "' + (text.length > 60 ? text.slice(0, 60) + '…' : text) + '"';
    return d;
}`;

const CONTAINS_FN = `function (other) {
    for (let n = other; n; n = n.parentNode || n.host) if (n === this) return true;
    return false;
}`;

async function viewport(send) {
    const m = await send('Page.getLayoutMetrics', {});
    const v = m.cssVisualViewport || m.visualViewport || {};
    return { width: v.clientWidth, height: v.clientHeight, scrollX: v.pageX, scrollY: v.pageY };
}

/** Scroll the element into view and return the centre of its first box, in page-viewport coordinates. */
async function clickPoint(el, entry) {
    await el.send('DOM.scrollIntoViewIfNeeded', { backendNodeId: el.backendNodeId }).catch(() => undefined);
    const q = await el.send('DOM.getContentQuads', { backendNodeId: el.backendNodeId }).catch(() => ({ quads: [] }));
    const quad = (q.quads || []).find(p => Math.abs((p[2] - p[0]) * (p[7] - p[1])) > 0.5 || Math.abs((p[4] - p[0]) * (p[5] - p[1])) > 0.5);
    if (!quad) fail('element_not_visible', `${label(entry)} has no visible box (hidden, collapsed or not rendered)`);
    const x = (quad[0] + quad[2] + quad[4] + quad[6]) / 4 + el.offset.x;
    const y = (quad[1] + quad[3] + quad[5] + quad[7]) / 4 + el.offset.y;
    const vp = await viewport(el.pageSend);
    if (!(x >= 0 && y >= 0 && x < vp.width && y < vp.height)) {
        fail('element_not_visible', `${label(entry)} is outside the viewport at (${Math.round(x)}, ${Math.round(y)}) and cannot be scrolled into it`,
            { point: { x, y }, viewport: vp });
    }
    return { point: { x, y }, viewport: vp };
}

function label(entry) {
    return `${entry.role}${entry.name ? ` ${JSON.stringify(entry.name)}` : ''} (ref ${entry.ref})`;
}

/** What is on top at the click point must be the element or inside it. */
async function assertNotObscured(el, entry, point) {
    const local = { x: Math.round(point.x - el.offset.x), y: Math.round(point.y - el.offset.y) };
    const hit = await el.send('DOM.getNodeForLocation', { ...local, includeUserAgentShadowDOM: false, ignorePointerEventsNone: true }).catch(() => null);
    if (!hit || hit.backendNodeId === el.backendNodeId) return;
    const hitNode = await el.send('DOM.resolveNode', { backendNodeId: hit.backendNodeId }).catch(() => null);
    const hitId = hitNode && hitNode.object && hitNode.object.objectId;
    if (!hitId) return;
    // Objects of two frames cannot meet in one call: a hit in another frame covers the element.
    const inside = await call(el.send, el.objectId, CONTAINS_FN, [{ objectId: hitId }]).catch(() => false);
    if (inside) return;
    const cover = await call(el.send, hitId, DESCRIBE_FN).catch(() => 'another element');
    fail('element_obscured', `${label(entry)} is covered by ${cover} at (${Math.round(point.x)}, ${Math.round(point.y)})`,
        { coveredBy: cover, point });
}

async function state(el) {
    return call(el.send, el.objectId, STATE_FN);
}

async function click(el, entry) {
    const s = await state(el);
    if (s.disabled) fail('element_disabled', `${label(entry)} is disabled`);
    const { point } = await clickPoint(el, entry);
    await assertNotObscured(el, entry, point);
    const base = { x: point.x, y: point.y, button: 'left', clickCount: 1 };
    await el.pageSend('Input.dispatchMouseEvent', { type: 'mouseMoved', x: point.x, y: point.y });
    await el.pageSend('Input.dispatchMouseEvent', { type: 'mousePressed', buttons: 1, ...base });
    await el.pageSend('Input.dispatchMouseEvent', { type: 'mouseReleased', buttons: 0, ...base });
    return { point };
}

async function fill(el, entry, value, clearFirst) {
    const s = await state(el);
    if (s.disabled) fail('element_disabled', `${label(entry)} is disabled`);
    if (s.readOnly) fail('element_disabled', `${label(entry)} is read-only`);
    if (!s.textInput && !s.editable) fail('action_failed', `${label(entry)} is not a text field (<${s.tag}>); fill needs an input, a textarea or an editable element`);
    await el.send('DOM.scrollIntoViewIfNeeded', { backendNodeId: el.backendNodeId }).catch(() => undefined);
    await el.send('DOM.focus', { backendNodeId: el.backendNodeId });
    await call(el.send, el.objectId, `function (clear) {
        if (this.isContentEditable) {
            const sel = this.ownerDocument.getSelection();
            const range = this.ownerDocument.createRange();
            range.selectNodeContents(this);
            if (!clear) range.collapse(false);
            sel.removeAllRanges();
            sel.addRange(range);
        } else if (clear) {
            this.select();
        } else {
            const end = String(this.value).length;
            try { this.setSelectionRange(end, end); } catch (e) {}
        }
    }`, [clearFirst]);
    if (value === '') {
        if (clearFirst) await call(el.send, el.objectId, 'function () { this.ownerDocument.execCommand("delete"); }');
    } else {
        await el.send('Input.insertText', { text: value });
    }
    const now = await call(el.send, el.objectId, 'function () { return this.isContentEditable ? this.innerText : String(this.value); }');
    const ok = clearFirst ? String(now).replace(/\n$/, '') === value : String(now).endsWith(value);
    if (!ok) fail('action_failed', `${label(entry)} holds ${JSON.stringify(now)} after filling ${JSON.stringify(value)} (the page limited or rewrote the input)`);
    return { value: now };
}

async function select(el, entry, wanted) {
    const s = await state(el);
    if (s.disabled) fail('element_disabled', `${label(entry)} is disabled`);
    if (!s.select) {
        if (s.popup || ['combobox', 'listbox'].includes(entry.role)) return selectCustom(el, entry, wanted);
        fail('action_failed', `${label(entry)} is not a <select> (<${s.tag}>) nor a dropdown (role combobox or listbox, or aria-haspopup)`);
    }
    const r = await call(el.send, el.objectId, `function (wanted) {
        const opts = Array.from(this.options);
        const w = String(wanted).trim();
        const o = opts.find(o => o.value === wanted) || opts.find(o => o.label.trim() === w)
            || opts.find(o => o.textContent.trim().toLowerCase() === w.toLowerCase());
        if (!o) return { ok: false, options: opts.slice(0, 20).map(o => o.label || o.value) };
        if (o.disabled) return { ok: false, disabled: o.label || o.value };
        this.value = o.value;
        o.selected = true;
        this.dispatchEvent(new Event('input', { bubbles: true }));
        this.dispatchEvent(new Event('change', { bubbles: true }));
        return { ok: true, value: o.value, label: o.label };
    }`, [wanted]);
    if (r.disabled) fail('element_disabled', `option ${JSON.stringify(r.disabled)} of ${label(entry)} is disabled`);
    if (!r.ok) fail('action_failed', `${label(entry)} has no option with value or text ${JSON.stringify(wanted)}; options: ${r.options.map(o => JSON.stringify(o)).join(', ')}`);
    return { value: r.value, label: r.label };
}

const OPTION_ROLES = ['option', 'menuitemradio', 'menuitem', 'treeitem'];

/**
 * A custom dropdown (an ARIA combobox, a button with a popup, a listbox):
 * open it with a real click unless it is a listbox already showing, find the
 * option by its accessible name in the frame's accessibility tree (popups
 * are often rendered elsewhere in the document), and click that.
 */
async function selectCustom(el, entry, wanted) {
    if (entry.role !== 'listbox') {
        await click(el, entry);
        await settle(el.send);
    }
    // Where its options are: the popup it names (aria-controls, aria-owns), a
    // listbox itself, else anywhere in its document.
    const root = await el.send('Runtime.callFunctionOn', {
        objectId: el.objectId,
        functionDeclaration: `function () {
            if (this.getAttribute('role') === 'listbox') return this;
            const ids = [this.getAttribute('aria-controls'), this.getAttribute('aria-owns')].join(' ').split(/\\s+/).filter(Boolean);
            return ids.map(id => this.ownerDocument.getElementById(id)).find(Boolean) || this.ownerDocument;
        }`,
        returnByValue: false,
    });
    const docId = root && root.result && root.result.objectId;
    if (!docId) fail('action_failed', `the popup of ${label(entry)} could not be read`);
    const w = String(wanted).trim();
    const seen = [];
    for (const role of OPTION_ROLES) {
        const { nodes = [] } = await el.send('Accessibility.queryAXTree', { objectId: docId, role });
        const options = nodes
            .filter(n => !n.ignored && typeof n.backendDOMNodeId === 'number')
            .map(n => ({ name: String((n.name && n.name.value) || '').trim(), backendNodeId: n.backendDOMNodeId }));
        seen.push(...options.map(o => o.name));
        const o = options.find(x => x.name === w) || options.find(x => x.name.toLowerCase() === w.toLowerCase());
        if (!o) continue;
        const resolved = await el.send('DOM.resolveNode', { backendNodeId: o.backendNodeId });
        const objectId = resolved && resolved.object && resolved.object.objectId;
        if (!objectId) fail('action_failed', `option ${JSON.stringify(o.name)} went away before it could be clicked`);
        const optionEl = { ...el, objectId, backendNodeId: o.backendNodeId };
        await click(optionEl, { role, name: o.name, ref: `in ${entry.ref || 'the dropdown'}` });
        return { value: o.name, label: o.name };
    }
    const listed = seen.length ? `; options: ${seen.slice(0, 20).map(n => JSON.stringify(n)).join(', ')}` : '; no options showed after opening it';
    fail('action_failed', `${label(entry)} has no option named ${JSON.stringify(w)}${listed}`);
}

async function scrollPage(send, direction, amount) {
    const expr = {
        up: `window.scrollBy(0, -${amount})`,
        down: `window.scrollBy(0, ${amount})`,
        top: 'window.scrollTo(0, 0)',
        bottom: 'window.scrollTo(0, (document.scrollingElement || document.documentElement).scrollHeight)',
    }[direction];
    await send('Runtime.evaluate', { expression: `${expr}; 0`, returnByValue: true });
}

/** One frame for the page to react (listeners, re-render) before the fresh snapshot. */
async function settle(send) {
    await send('Runtime.evaluate', {
        expression: 'new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))',
        awaitPromise: true,
    }).catch(() => undefined);
}

function checkParams(action, args) {
    const a = args && typeof args === 'object' ? args : {};
    const needRef = action !== 'scroll' || a.ref !== undefined;
    if (needRef && (typeof a.ref !== 'string' || !REF_PATTERN.test(a.ref.trim()))) {
        if (action === 'scroll' && a.ref === undefined) return 'browser_scroll needs either ref or direction';
        return `ref must be a string like "@e7", got ${JSON.stringify(a.ref)}`;
    }
    if (action === 'fill') {
        if (typeof a.value !== 'string') return `value must be a string, got ${typeof a.value}`;
        if (a.clear_first !== undefined && typeof a.clear_first !== 'boolean') return 'clear_first must be a boolean';
    }
    if (action === 'select' && typeof a.value !== 'string') return `value must be a string, got ${typeof a.value}`;
    if (action === 'scroll' && a.ref === undefined) {
        if (a.direction === undefined) return 'browser_scroll needs either ref or direction';
        if (!['up', 'down', 'top', 'bottom'].includes(a.direction)) return `direction must be up, down, top or bottom, got ${JSON.stringify(a.direction)}`;
        if (a.amount !== undefined && !(Number.isInteger(a.amount) && a.amount >= 0)) return `amount must be a non-negative integer, got ${JSON.stringify(a.amount)}`;
    }
    return null;
}

/**
 * Run one action against the refs of `snapshot` (the latest one: refs are
 * valid for one snapshot only) and take a fresh snapshot.
 *   action: 'click' | 'fill' | 'select' | 'scroll'
 *   args: { ref?, value?, clear_first?, direction?, amount?, snapshot_id? }
 *   options: { timeoutMs = 2000, snapshotOptions }
 */
async function runAction(source, snapshot, action, args = {}, options = {}) {
    const timeoutMs = typeof options.timeoutMs === 'number' && options.timeoutMs > 0 ? options.timeoutMs : DEFAULT_ACTION_TIMEOUT_MS;
    const started = performance.now();
    let outcome;
    try {
        const work = perform(source, snapshot, action, args);
        const r = await withDeadline(work, timeoutMs);
        if (r === TIMED_OUT) fail('timeout', `${action} did not finish within ${timeoutMs} ms`);
        outcome = { success: true, error: null, message: null, detail: r };
    } catch (err) {
        if (err instanceof ActionError) outcome = { success: false, error: err.code, message: err.message, evidence: err.evidence };
        else outcome = { success: false, error: 'action_failed', message: `the browser refused the action: ${err && err.message ? err.message : err}` };
    }
    const actionMs = performance.now() - started;
    let fresh = null;
    let snapshotError = null;
    try {
        fresh = await ax.buildWebAiSnapshot(source, options.snapshotOptions || {});
    } catch (err) {
        snapshotError = err && err.message ? err.message : String(err);
    }
    const result = { success: outcome.success, snapshot: fresh, error: outcome.error, message: outcome.message };
    if (outcome.evidence) result.evidence = outcome.evidence;
    if (outcome.detail) Object.assign(result, outcome.detail);
    if (snapshotError) result.snapshotError = snapshotError;
    result.timings = { actionMs: Math.round(actionMs * 10) / 10, snapshotMs: Math.round((performance.now() - started - actionMs) * 10) / 10 };
    return result;
}

async function perform(source, snapshot, action, args) {
    if (!['click', 'fill', 'select', 'scroll'].includes(action)) fail('invalid_params', `unknown action ${JSON.stringify(action)}`);
    const problem = checkParams(action, args);
    if (problem) fail('invalid_params', problem);
    const senders = await sendersFor(source);
    if (action === 'scroll' && args.ref === undefined) {
        await scrollPage(senders.send, args.direction, args.amount === undefined ? 300 : args.amount);
        return { viewport: await viewport(senders.send) };
    }
    const ref = native.normalizeRef(args.ref);
    if (!snapshot || !snapshot.refs) fail('ref_invalid', `no snapshot to resolve ${ref} against: take a snapshot first`);
    if (args.snapshot_id && args.snapshot_id !== snapshot.snapshotId) {
        fail('ref_invalid', `${ref} is from snapshot ${args.snapshot_id}, not the latest (${snapshot.snapshotId}); refs are valid for one snapshot only`);
    }
    const entry = Object.prototype.hasOwnProperty.call(snapshot.refs, ref) ? snapshot.refs[ref] : null;
    if (!entry) fail('ref_invalid', `${ref} is not in the current snapshot (${Object.keys(snapshot.refs).length} refs); refs are valid for one snapshot only`);
    const el = await liveElement(senders, entry);
    if (!el) fail('ref_invalid', native.goneMessage(entry.role, entry.name, ref));
    let detail;
    if (action === 'click') detail = await click(el, entry);
    else if (action === 'fill') detail = await fill(el, entry, args.value, args.clear_first !== false);
    else if (action === 'select') detail = await select(el, entry, args.value);
    else detail = await clickPoint(el, entry); // scroll a ref into view: the same check as a click's
    await settle(senders.send);
    return detail;
}

/**
 * Check a ref's element on the live page: `{ verdict: 'same' | 'minor' |
 * 'changed' | 'gone', message, now: { role, name } | null }`.
 */
async function verifyRefLive(source, entry) {
    const senders = await sendersFor(source);
    const el = await liveElement(senders, entry);
    if (!el) return { verdict: 'gone', message: native.goneMessage(entry.role || '', entry.name || '', entry.ref || ''), now: null };
    const tree = await el.send('Accessibility.getPartialAXTree', { backendNodeId: entry.backendNodeId, fetchRelatives: false });
    const node = (tree.nodes || []).find(n => n.backendDOMNodeId === entry.backendNodeId) || (tree.nodes || [])[0];
    const now = {
        role: String((node && node.role && node.role.value) || ''),
        name: String((node && node.name && node.name.value) || ''),
    };
    const v = JSON.parse(native.verifyIdentity(entry.role || '', entry.name || '', now.role, now.name));
    return { verdict: v.verdict, message: v.message, now };
}

module.exports = { ACTION_ERRORS, DEFAULT_ACTION_TIMEOUT_MS, runAction, verifyRefLive };
