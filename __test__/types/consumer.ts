// How cli-jaw (TypeScript, ESM) consumes the package: root and subpath imports.
import {
    buildWebAiSnapshot,
    buildWebAiSnapshotFromAxTree,
    summarizeSnapshotForDoctor,
    DEFAULT_INTERACTIVE_ROLES,
    type WebAiSnapshot,
    type ElementRef,
    type SnapshotOptions,
} from '@agbrowse/web-ai-snapshot';
import { createRefRegistry, resolveRef, isRegistryStale, invalidateRefsOnDomChange, type RefRegistry } from '@agbrowse/web-ai-snapshot/ref-registry';
import { observeProviderTargets, rankTargetCandidates } from '@agbrowse/web-ai-snapshot/observe-targets';
import { editorContractForVendor, CHATGPT_COMPOSER_SELECTORS, type EditorContract } from '@agbrowse/web-ai-snapshot/vendor-editor-contract';
import { domHashAround, normalizeDomForHash } from '@agbrowse/web-ai-snapshot/dom-hash';
import { WebAiError } from '@agbrowse/web-ai-snapshot/errors';
import type { Page } from 'playwright-core';

export async function snapshotForAgent(page: Page, vendor: 'chatgpt' | 'gemini' | 'grok'): Promise<string> {
    const options: SnapshotOptions = { provider: vendor, maxDepth: 8, timeoutMs: 5000 };
    const snapshot: WebAiSnapshot = await buildWebAiSnapshot(page, options);
    const registry: RefRegistry<ElementRef> = createRefRegistry(snapshot);
    const contract: EditorContract = editorContractForVendor(vendor);
    const targets = await observeProviderTargets(page, { provider: vendor, featureMap: contract, snapshot });
    const composer = targets.composer?.[0];
    if (composer && composer.source === 'snapshot-ref' && composer.ref) {
        const ref: ElementRef = await resolveRef(page, registry, composer.ref);
        void ref.occurrenceIndex;
    }
    const ranked = rankTargetCandidates(targets.composer ?? [], { expectedRole: 'textbox', expectedNames: [/message/i] });
    void ranked;
    const domHash = await domHashAround(page, CHATGPT_COMPOSER_SELECTORS, { maxChars: 4096 });
    if (isRegistryStale(registry, { currentDomHash: domHash })) invalidateRefsOnDomChange(registry, { domHash });
    const summary = summarizeSnapshotForDoctor(snapshot, { maxRefs: 4 });
    void summary.topRefs[0]?.nameHash;
    void normalizeDomForHash('<p>x</p>');
    void DEFAULT_INTERACTIVE_ROLES.has('button');
    return buildWebAiSnapshotFromAxTree({ role: 'WebArea', children: [] }).text + snapshot.text;
}

export function describe(err: unknown): string {
    if (err instanceof WebAiError) return `${err.errorCode}: ${err.message} (${err.retryHint})`;
    return String(err);
}

// An agent loop on the seven tools, and actions and verified refs by hand.
import { createBrowserTools, TOOL_SCHEMAS, type ToolSchema } from '@agbrowse/web-ai-snapshot/tools';
import { runAction, type ActionResult, type ActionErrorCode } from '@agbrowse/web-ai-snapshot/actions';
import { locatorForRef } from '@agbrowse/web-ai-snapshot/ref-registry';

export async function agentStep(page: Page, call: { name: string; input: Record<string, unknown> }): Promise<string> {
    const tools = createBrowserTools(page, {
        approve: async ({ action }) => ({ approved: !action.includes('pay'), message: 'no payments' }),
        completionCriteria: { successIndicators: [s => s.text.includes('Thank you')] },
    });
    const schemas: readonly ToolSchema[] = TOOL_SCHEMAS;
    void schemas.length;
    const done = await tools.execute('complete_task', { status: 'success', reason: 'ok' });
    if (!done.acknowledged) return done.message ?? '';
    const result: ActionResult = await tools.execute(call.name, call.input);
    const code: ActionErrorCode | null = result.error;
    const snap = tools.snapshot;
    const seen = await tools.execute('get_snapshot', { viewport_only: false });
    void [seen.snapshot?.page.title, seen.snapshot?.viewport?.scroll_y, seen.snapshot?.screenshot];
    void createBrowserTools(page, { screenshot: true, snapshotOptions: { viewportOnly: false } });
    if (snap) {
        const first: ElementRef | undefined = Object.values(snap.refs)[0];
        if (first) {
            const verified = await resolveRef(page, createRefRegistry(snap), first.ref, { verify: true });
            void verified.current.name;
            void locatorForRef(page, first);
            void (await runAction(page, snap, 'scroll', { direction: 'down', amount: 200 })).viewport?.scrollY;
        }
    }
    return `${result.success} ${code ?? ''} ${result.snapshot?.text ?? ''}`;
}

// The agent loop as a page session: stable refs, revisions, deltas, waiting.
import { createPageSession, type SessionSnapshot, type UiChangeResult, type UiChangeKind } from '@agbrowse/web-ai-snapshot/session';

export async function loop(page: Page): Promise<number> {
    const session = createPageSession(page, { cacheTtlMs: 2000, settleMs: 1000, snapshotOptions: { viewportOnly: true } });
    const first: SessionSnapshot = await session.snapshot();
    const button = Object.values(first.refs).find(r => r.role === 'button');
    if (button) {
        const acted = await session.act('click', { ref: button.ref });
        void [acted.settle?.waitedMs, acted.settle?.pending?.requests.length, acted.revision, acted.snapshot?.delta?.changed[0]?.was];
    }
    const kind: UiChangeKind = 'text_change';
    const waited: UiChangeResult = await session.waitForUiChange({ expectedChange: kind, timeoutMs: 3000, stabilityWindowMs: 300 });
    const again = await session.snapshot({ delta: true });
    void [waited.observedChange, waited.delta?.text, again.textIsDelta, again.fromCache, again.loadingState?.signal, first.capturedAtMs];
    session.invalidate();
    const tools = createBrowserTools(page);
    const w = await tools.execute('wait_for_ui_change', { expected_change: 'state_change' });
    void [w.snapshot_revision, w.observed_change, tools.session.revision];
    await session.close();
    return session.revision;
}
