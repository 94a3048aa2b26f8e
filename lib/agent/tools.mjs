// The agent surface's tools: seed 001's seven, seed 004's wait, and the
// browser tools agents expect from the peers. Descriptions are short on
// purpose: a client resends the whole list with every request.
const REF = { type: 'string', description: 'ref from the snapshot, e.g. @e4' };

const tool = (name, description, properties = {}, required = []) => ({
    name,
    description,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
});

export const AGENT_TOOLS = [
    tool('browser_navigate', 'Open a URL in the current tab, or go back, forward or reload.', {
        url: { type: 'string', description: 'URL to open, or "back", "forward", "reload"' },
    }, ['url']),
    tool('get_snapshot', 'The page as text: roles, names, states, a ref on every control. Call before acting.', {
        viewport_only: { type: 'boolean', description: 'only what is in the viewport (default true; kept for later results)' },
    }),
    tool('browser_click', 'Click an element.', { ref: REF }, ['ref']),
    tool('browser_fill', 'Replace a field\'s text.', { ref: REF, value: { type: 'string' }, submit: { type: 'boolean', description: 'press Enter after' } }, ['ref', 'value']),
    tool('browser_type', 'Type text into a field after what it holds.', { ref: REF, text: { type: 'string' }, submit: { type: 'boolean', description: 'press Enter after' } }, ['ref', 'text']),
    tool('browser_select', 'Choose an option of a select or combobox by value or text.', { ref: REF, value: { type: 'string' } }, ['ref', 'value']),
    tool('browser_press_key', 'Press a key or chord on the focused element: Enter, Tab, Escape, ArrowDown, Control+a.', { key: { type: 'string' } }, ['key']),
    tool('browser_hover', 'Move the mouse over an element.', { ref: REF }, ['ref']),
    tool('browser_scroll', 'Scroll the page (direction) or an element into view (ref).', {
        ref: REF,
        direction: { type: 'string', enum: ['up', 'down', 'top', 'bottom'] },
        amount: { type: 'integer', description: 'pixels (default 300)' },
    }),
    tool('wait_for_ui_change', 'Wait until the page changes and holds still (streamed text, loading lists); returns the changes.', {
        expected_change: { type: 'string', enum: ['hierarchy_diff', 'text_change', 'state_change'] },
        timeout_ms: { type: 'integer', description: 'default 5000' },
        stability_window_ms: { type: 'integer', description: 'how long the change must hold still; default 300' },
    }),
    tool('browser_tabs', 'List, open, select or close tabs.', {
        action: { type: 'string', enum: ['list', 'new', 'select', 'close'] },
        index: { type: 'integer', description: 'tab number from the list (select; close: default current)' },
        url: { type: 'string', description: 'new: URL to open' },
    }, ['action']),
    tool('browser_screenshot', 'A PNG of the viewport.', { full_page: { type: 'boolean' } }),
    tool('browser_handle_dialog', 'Accept or dismiss the open alert, confirm, prompt or beforeunload dialog.', {
        accept: { type: 'boolean' },
        prompt_text: { type: 'string' },
    }, ['accept']),
    tool('request_human_approval', 'Ask the human before a sensitive action; waits for the answer.', {
        action: { type: 'string' },
        reason: { type: 'string' },
    }, ['action', 'reason']),
    tool('complete_task', 'Say the task is done (success) or cannot be done (failed).', {
        status: { type: 'string', enum: ['success', 'failed'] },
        reason: { type: 'string' },
    }, ['status', 'reason']),
];

export const EVALUATE_TOOL = tool('browser_evaluate', 'Run a JavaScript expression in the page; returns its JSON value.', {
    expression: { type: 'string' },
}, ['expression']);

/** The tools a server offers: evaluate only when allowed. */
export function toolList({ allowEvaluate = false } = {}) {
    return allowEvaluate ? [...AGENT_TOOLS, EVALUATE_TOOL] : AGENT_TOOLS;
}
