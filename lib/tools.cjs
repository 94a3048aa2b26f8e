'use strict';
// The seven tools of seed 001, and seed 004's wait_for_ui_change, as a ready
// layer: their JSON schemas and an executor with that response contract,
// over a page session (stable refs, revisions, deltas, settling). An agent
// loop is a few lines:
//
//   const tools = createBrowserTools(page, { approve, completionCriteria });
//   // hand tools.schemas to the model; for each tool call:
//   const result = await tools.execute(call.name, call.input);
const native = require('./native.cjs');
const { adapt } = require('./transport.cjs');
const { createPageSession } = require('./session.cjs');
const { TIMED_OUT, withDeadline } = require('./deadline.cjs');

const REF = { type: 'string', pattern: '^@e\\d+$' };
const SNAPSHOT_ID = {
    type: 'string',
    description: 'Optional: the snapshot_id the ref was read from. A snapshot_id not from this session is rejected with ref_invalid.',
};
const INVALIDATION = 'Refs stay valid while their element exists; new elements get new refs. The result carries snapshot_revision and the page afterwards: the changes since your last snapshot (delta) when that is shorter, else a fresh snapshot.';

const TOOL_SCHEMAS = Object.freeze([
    {
        name: 'get_snapshot',
        description: "Capture the current page state: the accessibility tree as text, with a ref on every control. Call this to see what's on the page before taking action.",
        input_schema: {
            type: 'object',
            properties: {
                viewport_only: {
                    type: 'boolean',
                    default: true,
                    description: 'If true, only include elements visible in the viewport (a note says how many are left out; use browser_scroll to see them). If false, the whole page. The choice also holds for the snapshots that later actions return.',
                },
            },
        },
    },
    {
        name: 'browser_click',
        description: `Click an element by its ref from the most recent snapshot. ${INVALIDATION} Errors: ref_invalid, element_disabled, element_obscured, element_not_visible, action_failed, timeout.`,
        input_schema: {
            type: 'object',
            properties: { ref: { ...REF, description: "Element reference (e.g., '@e7')" }, snapshot_id: SNAPSHOT_ID },
            required: ['ref'],
        },
    },
    {
        name: 'browser_fill',
        description: `Fill a text input field with the specified value. The element must have role 'textbox' or be an input element. ${INVALIDATION} Errors: ref_invalid, element_disabled, action_failed, timeout, invalid_params.`,
        input_schema: {
            type: 'object',
            properties: {
                ref: { ...REF, description: 'Element reference for the input field' },
                value: { type: 'string', description: 'Text to enter into the field' },
                clear_first: { type: 'boolean', default: true, description: 'If true, clear existing content before filling' },
                snapshot_id: SNAPSHOT_ID,
            },
            required: ['ref', 'value'],
        },
    },
    {
        name: 'browser_select',
        description: `Select an option from a dropdown/combobox. The element must have role 'combobox' or be a select element; a custom dropdown is opened and its option clicked. ${INVALIDATION} Errors: ref_invalid, element_disabled, element_obscured, action_failed, timeout, invalid_params.`,
        input_schema: {
            type: 'object',
            properties: {
                ref: { ...REF, description: 'Element reference for the dropdown' },
                value: { type: 'string', description: 'Option value or visible text to select' },
                snapshot_id: SNAPSHOT_ID,
            },
            required: ['ref', 'value'],
        },
    },
    {
        name: 'browser_scroll',
        description: `Scroll the page or bring an element into view. Use when you need to see elements that are off-screen. Provide EITHER 'ref' to scroll element into view, OR 'direction' to scroll the page. ${INVALIDATION} Errors: ref_invalid, element_not_visible, timeout, invalid_params.`,
        input_schema: {
            type: 'object',
            properties: {
                ref: { ...REF, description: 'Element to scroll into view. If provided, direction is ignored.' },
                direction: { type: 'string', enum: ['up', 'down', 'top', 'bottom'], description: 'Scroll direction. Required if ref not provided.' },
                amount: { type: 'integer', default: native.DEFAULT_SCROLL_AMOUNT, description: 'Pixels to scroll if using direction' },
                snapshot_id: SNAPSHOT_ID,
            },
        },
    },
    {
        name: 'wait_for_ui_change',
        description: 'Wait until the page changes in place (a node added or removed, text, a control state) and the change has held still, ignoring cosmetic churn (clocks, spinners, focus). Use after an action whose effect arrives later (streamed answers, loading lists). Returns the changes (delta) and the new snapshot_revision, or timeout: true.',
        input_schema: {
            type: 'object',
            properties: {
                expected_change: { type: 'string', enum: ['hierarchy_diff', 'text_change', 'state_change'], description: 'Only this kind of change counts (default: any).' },
                timeout_ms: { type: 'integer', default: 5000, description: 'Give up after this many ms.' },
                stability_window_ms: { type: 'integer', default: 300, description: 'How long the change must hold still.' },
            },
        },
    },
    {
        name: 'request_human_approval',
        description: 'Request human approval before proceeding. The system will pause until the human responds. Note: The server may automatically trigger this at critical points.',
        input_schema: {
            type: 'object',
            properties: {
                action: { type: 'string', description: 'Description of the action requiring approval' },
                reason: { type: 'string', description: 'Why this action needs approval' },
            },
            required: ['action', 'reason'],
        },
    },
    {
        name: 'complete_task',
        description: 'Signal that the task is complete. You MUST call this when the goal is achieved or when you determine it cannot be achieved.',
        input_schema: {
            type: 'object',
            properties: {
                status: { type: 'string', enum: ['success', 'failed'], description: 'Whether the goal was achieved' },
                reason: { type: 'string', description: 'Explanation of the outcome' },
            },
            required: ['status', 'reason'],
        },
    },
].map(t => Object.freeze(t)));

const ACTION_OF = { browser_click: 'click', browser_fill: 'fill', browser_select: 'select', browser_scroll: 'scroll' };

/** Approvers may answer a boolean or `{ approved, message }`. */
function approval(answer) {
    if (typeof answer === 'boolean') return { approved: answer, message: null };
    if (answer && typeof answer === 'object') return { approved: answer.approved === true, message: answer.message == null ? null : String(answer.message) };
    return { approved: false, message: 'the approver gave no answer' };
}

function holds(indicators, snapshot) {
    return (indicators || []).filter(fn => {
        try {
            return Boolean(fn(snapshot));
        } catch {
            return false;
        }
    }).length;
}

/** A CDP call on the page's session, parsed, when the source has one (Playwright page or `{ cdp }`). */
function sendOf(page) {
    const source = adapt(page);
    if (!source.send) return null;
    return async (method, params) => JSON.parse(await source.send({ method, params }));
}

/**
 * Tools bound to one page.
 *   options.snapshotOptions  options for every snapshot (buildWebAiSnapshot); here
 *                            `viewportOnly` defaults to true (seed 001's get_snapshot),
 *                            `maxTokens` to 2000 and `maxElements` to 100
 *   options.timeoutMs        deadline of each action (default 2000)
 *   options.approve          async ({ action, reason, snapshot }) => boolean | { approved, message }
 *   options.checkpoints      [(snapshot) => boolean]: after an action, a true one asks `approve`
 *   options.completionCriteria { successIndicators: [(snapshot) => boolean], failureIndicators: [...] }
 *   options.screenshot       attach a base64 PNG of the viewport to every snapshot (default false)
 *
 * Every snapshot the tools return also carries seed 001's `page` ({ url, title })
 * and `viewport` ({ width, height, scroll_x, scroll_y }).
 */
function createBrowserTools(page, options = {}) {
    const opts = options || {};
    const base = opts.snapshotOptions || {};
    // Seed 001: the viewport by default; get_snapshot's viewport_only changes it for what follows.
    const state = { snapshot: null, viewportOnly: typeof base.viewportOnly === 'boolean' ? base.viewportOnly : true, session: null };
    // Seed 001's elements, pruned to 100 by its ranking, beside a text of at
    // most 2,000 tokens (its 100-element snapshot under 2,000 tokens).
    // Page text inside untrusted-content boundaries (seed 003).
    const snapshotOptions = () => ({ includeElements: true, maxElements: 100, maxTokens: 2000, untrustedContent: 'mark', ...base, viewportOnly: state.viewportOnly });
    // Created on first use, so that an unusable page fails in execute, like a tool call.
    const session = () => {
        state.session ??= createPageSession(page, { timeoutMs: opts.timeoutMs, settleMs: opts.settleMs, cacheTtlMs: opts.cacheTtlMs });
        return state.session;
    };

    const send = sendOf(page);
    const deadline = typeof opts.timeoutMs === 'number' && opts.timeoutMs > 0 ? opts.timeoutMs : native.DEFAULT_ACTION_TIMEOUT_MS;

    /** Seed 001's page, viewport and (on request) screenshot, and seed 004's revision fields, beside ours. */
    async function withSeedFields(snapshot) {
        if (!snapshot) return snapshot;
        snapshot.snapshot_id = snapshot.snapshotId;
        snapshot.page = { url: snapshot.url ?? null, title: snapshot.title ?? null };
        snapshot.snapshot_revision = snapshot.revision;
        snapshot.captured_at_ms = snapshot.capturedAtMs;
        if (snapshot.loadingState) snapshot.loading_state = snapshot.loadingState;
        const ask = (method, params) => (send ? withDeadline(send(method, params).catch(() => null), deadline) : null);
        const [metrics, shot] = await Promise.all([
            ask('Page.getLayoutMetrics', {}),
            opts.screenshot ? ask('Page.captureScreenshot', { format: 'png' }) : null,
        ]);
        const v = metrics && metrics !== TIMED_OUT ? metrics.cssVisualViewport || metrics.visualViewport : null;
        snapshot.viewport = v ? { width: v.clientWidth, height: v.clientHeight, scroll_x: v.pageX, scroll_y: v.pageY } : null;
        if (opts.screenshot) snapshot.screenshot = shot && shot !== TIMED_OUT && typeof shot.data === 'string' ? shot.data : null;
        return snapshot;
    }

    async function freshSnapshot() {
        state.snapshot = await withSeedFields({ ...(await session().snapshot(snapshotOptions())) });
        return state.snapshot;
    }

    async function ask(action, reason) {
        if (typeof opts.approve !== 'function') return { approved: false, message: 'no approver is configured (options.approve)' };
        return approval(await opts.approve({ action, reason, snapshot: state.snapshot }));
    }

    async function execute(name, args = {}) {
        const input = args && typeof args === 'object' ? args : {};
        if (name === 'get_snapshot') {
            if (input.viewport_only !== undefined && typeof input.viewport_only !== 'boolean') {
                return { success: false, snapshot: await freshSnapshot(), error: 'invalid_params', message: 'viewport_only must be a boolean' };
            }
            if (typeof input.viewport_only === 'boolean') state.viewportOnly = input.viewport_only;
            return { success: true, snapshot: await freshSnapshot(), error: null, message: null };
        }
        if (name === 'wait_for_ui_change') {
            const kinds = ['hierarchy_diff', 'text_change', 'state_change'];
            const bad = (input.expected_change !== undefined && !kinds.includes(input.expected_change))
                || [input.timeout_ms, input.stability_window_ms].some(v => v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0));
            if (bad) {
                return { success: false, observed_change: null, snapshot_revision: session().revision, timeout: false, error: 'invalid_params', message: `expected_change must be one of ${kinds.join(', ')}; timeout_ms and stability_window_ms numbers >= 0` };
            }
            if (!state.snapshot) await freshSnapshot();
            const w = await session().waitForUiChange({ expectedChange: input.expected_change ?? null, timeoutMs: input.timeout_ms, stabilityWindowMs: input.stability_window_ms });
            if (w.snapshot) state.snapshot = await withSeedFields({ ...w.snapshot });
            return {
                success: w.success,
                observed_change: w.observedChange,
                snapshot_revision: w.snapshotRevision,
                timeout: w.timeout,
                delta: w.delta,
                error: null,
                message: w.timeout ? `no meaningful change held still within ${input.timeout_ms ?? 5000} ms` : null,
            };
        }
        if (name === 'request_human_approval') {
            if (typeof input.action !== 'string' || typeof input.reason !== 'string') {
                return { approved: false, message: 'action and reason are required strings', error: 'invalid_params' };
            }
            const a = await ask(input.action, input.reason);
            return { ...a, error: a.approved ? null : 'human_rejected' };
        }
        if (name === 'complete_task') {
            if (!['success', 'failed'].includes(input.status) || typeof input.reason !== 'string') {
                return { acknowledged: false, message: 'status must be "success" or "failed" and reason a string', error: 'invalid_params' };
            }
            const snapshot = await freshSnapshot().catch(() => state.snapshot);
            const criteria = opts.completionCriteria || {};
            if (input.status === 'failed') {
                // The agent's judgement is accepted; the indicators are for the log.
                return { acknowledged: true, message: null, failureIndicatorsHeld: holds(criteria.failureIndicators, snapshot), snapshot };
            }
            const success = criteria.successIndicators || [];
            if (success.length === 0 || holds(success, snapshot) > 0) return { acknowledged: true, message: null, snapshot };
            return {
                acknowledged: false,
                message: 'Completion could not be verified: no success indicator holds on the current page. Check the page again, or call complete_task with status "failed".',
                snapshot,
            };
        }
        const action = ACTION_OF[name];
        if (!action) {
            return { success: false, snapshot: await freshSnapshot().catch(() => null), error: 'invalid_params', message: `unknown tool ${JSON.stringify(name)}; tools: ${TOOL_SCHEMAS.map(t => t.name).join(', ')}` };
        }
        if (!state.snapshot) await freshSnapshot();
        const result = await session().act(action, input, { snapshotOptions: { ...snapshotOptions(), delta: true } });
        result.snapshot_revision = result.revision;
        if (result.snapshot) {
            // The model gets the delta when it is shorter; the tools keep the full snapshot.
            const full = result.snapshot.textIsDelta ? { ...result.snapshot, text: result.snapshot.fullText } : { ...result.snapshot };
            delete full.fullText;
            delete full.textIsDelta;
            state.snapshot = await withSeedFields(full);
            const shown = { ...state.snapshot, text: result.snapshot.text, textIsDelta: result.snapshot.textIsDelta === true };
            result.snapshot = shown;
        }
        if (result.success && (opts.checkpoints || []).length && holds(opts.checkpoints, state.snapshot) > 0) {
            const a = await ask(`${name}(${JSON.stringify(input)})`, 'a checkpoint condition holds on the page');
            if (!a.approved) {
                return { ...result, success: false, error: 'human_rejected', message: `User feedback: ${a.message ?? ''}`.trim() };
            }
        }
        return result;
    }

    return {
        schemas: TOOL_SCHEMAS,
        execute,
        /** The latest full snapshot. */
        get snapshot() {
            return state.snapshot;
        },
        /** The page session underneath (created on first use). */
        get session() {
            return session();
        },
    };
}

module.exports = { TOOL_SCHEMAS, createBrowserTools };
