'use strict';
const native = require('./native.cjs');
const { callNative } = require('./raise.cjs');
const { listOf } = require('./input.cjs');

/**
 * Name patterns for the addon: a RegExp travels as its source and flags and
 * runs in Rust with ECMAScript semantics (regress); a string is a
 * case-insensitive substring; anything else never matches.
 */
function patterns(list) {
    return Array.from(Array.isArray(list) ? list : [], p => {
        if (p instanceof RegExp || Object.prototype.toString.call(p) === '[object RegExp]') return { source: p.source, flags: p.flags };
        if (typeof p === 'string') return { substring: p };
        return {};
    });
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
    const refs = snapshot && snapshot.refs && typeof snapshot.refs === 'object' ? Object.values(snapshot.refs) : [];
    const described = entries.map(([feature, t]) => ({
        feature,
        roles: Array.isArray(t && t.roles) ? t.roles.map(String) : [],
        names: patterns(t && t.names),
        excludeNames: patterns(t && t.excludeNames),
        required: Boolean(t && t.required),
    }));
    const refView = refs.map(r => ({ role: String((r && r.role) || ''), name: String((r && r.name) || '') }));
    const matched = callNative(native.matchTargets, described, refView);
    const results = {};
    for (let i = 0; i < entries.length; i += 1) {
        const [feature, target] = entries[i];
        const candidates = matched[i].hits.map(({ index, confidence }) => {
            const r = refs[index];
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
    const list = listOf(candidates, 'candidates');
    const view = list.map(c => ({
        confidence: Number((c && c.confidence) || 0),
        role: c && typeof c.role === 'string' ? c.role : undefined,
        name: String((c && c.name) || ''),
        snapshotRef: Boolean(c && c.source === 'snapshot-ref'),
    }));
    const order = callNative(native.rankCandidates, view, expectedRole ? String(expectedRole) : undefined, patterns(expectedNames));
    return order.map(i => list[i]);
}

module.exports = { observeProviderTargets, rankTargetCandidates };
