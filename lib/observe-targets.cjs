'use strict';
const native = require('./native.cjs');
const { callNative } = require('./errors.cjs');

/**
 * Describe name patterns for the addon. RegExps travel as source/flags and
 * keep an id so the addon can ask JS to run the real RegExp whenever Rust
 * cannot reproduce its semantics exactly (lookaround, backreferences, g/y…).
 */
function patternTable() {
    const regexps = [];
    const describe = list => Array.from(Array.isArray(list) ? list : [], p => {
        if (p instanceof RegExp) {
            regexps.push(p);
            return { re: regexps.length - 1, source: p.source, flags: p.flags };
        }
        if (typeof p === 'string') return { str: p };
        return { never: true };
    });
    const test = (id, subject) => {
        const re = regexps[id];
        return Boolean(re && re.test(subject));
    };
    return { describe, test, regexps };
}

function targetsOf(featureMap) {
    const fm = featureMap || {};
    const targets = fm.semanticTargets || fm;
    return targets && typeof targets === 'object' ? Object.entries(targets) : [];
}

async function countOnPage(page, selector) {
    if (!page) return { count: 0 };
    if (typeof page.locator === 'function') {
        try {
            return { count: await page.locator(selector).count() };
        } catch {
            return { count: 0 };
        }
    }
    if (page.cdp && typeof page.cdp.send === 'function') {
        // Raw CDP counts with querySelectorAll; Playwright-only syntax counts 0 and says so.
        const res = await page.cdp.send('Runtime.evaluate', {
            expression: `(() => { try { return document.querySelectorAll(${JSON.stringify(selector)}).length; } catch (e) { return -1; } })()`,
            returnByValue: true,
        }).catch(() => null);
        const n = res && res.result ? res.result.value : -1;
        if (typeof n === 'number' && n >= 0) return { count: n };
        return { count: 0, unsupported: 'not standard CSS (Playwright-only syntax): raw CDP counts it as 0' };
    }
    return { count: 0 };
}

async function observeProviderTargets(page, { provider = null, featureMap = {}, snapshot = null } = {}) {
    void provider;
    const entries = targetsOf(featureMap);
    const table = patternTable();
    const refs = snapshot && snapshot.refs && typeof snapshot.refs === 'object' ? Object.values(snapshot.refs) : [];
    const described = entries.map(([feature, t]) => [feature, {
        roles: Array.isArray(t && t.roles) ? t.roles.map(String) : [],
        names: table.describe(t && t.names),
        excludeNames: table.describe(t && t.excludeNames),
        required: Boolean(t && t.required),
    }]);
    const refView = refs.map(r => ({ role: String((r && r.role) || ''), name: String((r && r.name) || '') }));
    const matched = JSON.parse(callNative(native.matchTargets, JSON.stringify(described), JSON.stringify(refView), table.test));
    const results = {};
    for (let i = 0; i < entries.length; i += 1) {
        const [feature, target] = entries[i];
        const candidates = matched[i][1].map(([refIndex, confidence]) => {
            const r = refs[refIndex];
            return { source: 'snapshot-ref', ref: r.ref, role: r.role, name: r.name || '', confidence };
        });
        const fallbacks = Array.isArray(target && target.cssFallbacks) ? target.cssFallbacks : [];
        const counted = await Promise.all(fallbacks.map(sel => countOnPage(page, sel).then(c => [sel, c])));
        for (const [selector, { count, unsupported }] of counted) {
            if (count > 0) candidates.push({ source: 'css', selector, count, confidence: count === 1 ? 2 : 1 });
            // Say so rather than pretend the selector is absent from the page.
            else if (unsupported) candidates.push({ source: 'css', selector, count: 0, confidence: 0, unsupported });
        }
        results[feature] = rankTargetCandidates(candidates, {
            expectedRole: (target && target.roles && target.roles[0]) || null,
            expectedNames: (target && target.names) || [],
        });
    }
    return results;
}

function rankTargetCandidates(candidates, { expectedRole = null, expectedNames = [] } = {}) {
    const list = Array.from(candidates || []);
    const table = patternTable();
    const view = list.map(c => ({
        confidence: Number((c && c.confidence) || 0),
        role: c && typeof c.role === 'string' ? c.role : null,
        name: String((c && c.name) || ''),
        snapshotRef: Boolean(c && c.source === 'snapshot-ref'),
    }));
    const order = callNative(native.rankCandidates, JSON.stringify(view), expectedRole ? String(expectedRole) : null,
        JSON.stringify(table.describe(expectedNames)), table.test);
    return order.map(i => list[i]);
}

module.exports = { observeProviderTargets, rankTargetCandidates };
