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
    const registry: RefRegistry = createRefRegistry(snapshot);
    const contract: EditorContract = editorContractForVendor(vendor);
    const targets = await observeProviderTargets(page, { provider: vendor, featureMap: contract, snapshot });
    const composer = targets.composer?.[0];
    if (composer && composer.source === 'snapshot-ref') {
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
