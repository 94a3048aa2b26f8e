// Every name agbrowse's web-ai/*.mjs and cli-jaw's src/browser/web-ai/*.ts
// export, imported from the subpath that replaces it and used the way those
// consumers use it, compiled under strict, exactOptionalPropertyTypes and
// noUncheckedIndexedAccess (tsconfig.strict.json).
import {
    DEFAULT_SNAPSHOT_MAX_DEPTH, DEFAULT_MAX_NAME_CHARS, DEFAULT_INTERACTIVE_ROLES, buildWebAiSnapshot, estimateSnapshotTokens,
    hashAccessibilitySnapshot, extractInteractiveRefs, summarizeSnapshotForDoctor, hashDoctorField,
    type AxSnapshotOptions, type AxNode, type ElementRef, type SerializedSnapshot, type WebAiSnapshot, type SnapshotStats,
    type SummarizeOptions, type SummarizeResult, type AxSnapshotPageLike,
} from '@agbrowse/web-ai-snapshot/ax-snapshot';
import {
    createRefRegistry, resolveRef, invalidateRefsOnDomChange, isRegistryStale,
    type RefRegistry, type RefEntry, type RefRegistryInput, type ResolveRefOptions, type InvalidateOptions,
    type StaleCheckOptions, type RefRegistryPageLike,
} from '@agbrowse/web-ai-snapshot/ref-registry';
import {
    observeProviderTargets, rankTargetCandidates,
    type SemanticTarget, type FeatureMap, type SnapshotLike, type RefLike, type ObserveTargetsPageLike, type TargetCandidate,
    type ObserveOptions, type RankOptions,
} from '@agbrowse/web-ai-snapshot/observe-targets';
import {
    createChatGptEditorAdapter, GEMINI_DEEP_THINK_CONSTRAINTS, CHATGPT_COMPOSER_SELECTORS, CHATGPT_SEND_SELECTORS, CHATGPT_UPLOAD_SELECTORS,
    CHATGPT_RESPONSE_SELECTORS, CHATGPT_STREAMING_SELECTORS, GEMINI_COMPOSER_SELECTORS, GEMINI_MODEL_SELECTOR_BUTTONS,
    GEMINI_UPLOAD_SELECTORS, GEMINI_RESPONSE_SELECTORS, GEMINI_STREAMING_SELECTORS, GROK_COMPOSER_SELECTORS,
    GROK_MODEL_SELECTOR_BUTTONS, GROK_UPLOAD_SELECTORS, GROK_RESPONSE_SELECTORS, GROK_STREAMING_SELECTORS,
    CHATGPT_EDITOR_CONTRACT, GEMINI_EDITOR_CONTRACT, GROK_EDITOR_CONTRACT, EDITOR_CONTRACT_BY_VENDOR,
    editorContractForVendor, semanticTargetsForVendor,
    type PromptInsertStage, type PromptCommitBaseline, type PromptCommitResult, type PromptSubmitResult,
    type VendorEditorAdapterOptions, type VendorEditorAdapter, type EditorContract,
    type Page, type ComposerOptions, type SubmitResult, type EditorAdapterBaseline, type EditorAdapter, type VendorName,
} from '@agbrowse/web-ai-snapshot/vendor-editor-contract';
import {
    domHashAround, normalizeDomForHash, selectorMatchSummary,
    type PageLike, type DomHashOptions, type SelectorMatch, type LocatorLike, type PageWithLocator,
} from '@agbrowse/web-ai-snapshot/dom-hash';
import {
    WebAiError, wrapError, providerError, contextError, toErrorJson, fromCliJawStructuredError,
    type WebAiErrorInit, type WebAiErrorJson,
} from '@agbrowse/web-ai-snapshot/errors';

// Hand-built inputs, as the consumers' tests build them: only the old fields.
const entry: RefEntry = { ref: '@e1', role: 'button', name: 'Send', selector: null, framePath: [], shadowPath: [], signatureHash: 'sha256:0' };
const input: RefRegistryInput = { snapshotId: 's1', refs: { '@e1': entry } };
const registry: RefRegistry = createRefRegistry(input);
const resolveOpts: ResolveRefOptions = { expectedSnapshotId: 's1', allowStale: false };
const invalidate: InvalidateOptions = { domHash: 'sha256:1' };
const stale: StaleCheckOptions = { currentAxHash: null };
const pageLike: RefRegistryPageLike = { anything: true };
export async function refs(): Promise<string> {
    const r: RefEntry = await resolveRef(pageLike, registry, 'e1', resolveOpts);
    void invalidateRefsOnDomChange(registry, invalidate);
    void isRegistryStale(registry, stale);
    return r.selector ?? r.name;
}

const node: AxNode = { role: 'checkbox', name: 'Agree', checked: 'mixed', pressed: true, children: [{ role: 'button', name: 'Go' }] };
const axOptions: AxSnapshotOptions = { provider: 'chatgpt', maxDepth: DEFAULT_SNAPSHOT_MAX_DEPTH, maxNameChars: DEFAULT_MAX_NAME_CHARS };
export async function snapshots(page: AxSnapshotPageLike): Promise<number> {
    const snap: WebAiSnapshot = await buildWebAiSnapshot(page, axOptions);
    const stats: SnapshotStats = snap.stats;
    const serialized: SerializedSnapshot = { text: snap.text, refs: snap.refs, nodeCount: stats.nodeCount };
    const first: ElementRef | undefined = Object.values(serialized.refs)[0];
    const summaryOpts: SummarizeOptions = { maxRefs: 3 };
    const summary: SummarizeResult = summarizeSnapshotForDoctor(snap, summaryOpts);
    const enabled: boolean = summary.enabled;
    void [first?.signatureHash, enabled, extractInteractiveRefs(node), hashDoctorField('x'), hashAccessibilitySnapshot(snap.text), DEFAULT_INTERACTIVE_ROLES.size];
    return estimateSnapshotTokens(snap.text);
}

const target: SemanticTarget = { roles: ['textbox'], names: [/message/i], excludeNames: [/search/i], required: true };
const featureMap: FeatureMap = { semanticTargets: { composer: target } };
const refLike: RefLike = { ref: '@e1', role: 'textbox', name: 'Message' };
const snapshotLike: SnapshotLike = { refs: { '@e1': refLike } };
const rankOpts: RankOptions = { expectedRole: 'textbox', expectedNames: [/message/i] };
export async function targets(page: ObserveTargetsPageLike): Promise<string | undefined> {
    const observeOpts: ObserveOptions = { provider: 'chatgpt', featureMap, snapshot: snapshotLike };
    const found = await observeProviderTargets(page, observeOpts);
    const composer: TargetCandidate[] = rankTargetCandidates(found['composer'] ?? [], rankOpts);
    return composer[0]?.ref ?? composer[0]?.selector;
}

export async function editor(page: Page, opts: VendorEditorAdapterOptions): Promise<PromptCommitResult> {
    const adapter: VendorEditorAdapter = createChatGptEditorAdapter(page, opts);
    await adapter.waitForReady();
    const baseline: PromptCommitBaseline = await adapter.getCommitBaseline();
    await adapter.insertPrompt('hi');
    const sent: PromptSubmitResult = await adapter.submitPrompt();
    const stage: PromptInsertStage = sent.method === 'button' ? 'composer-submit' : 'prompt-commit';
    const old: EditorAdapter = adapter;
    const composerOpts: ComposerOptions = opts;
    const submit: SubmitResult = sent;
    const base: EditorAdapterBaseline = baseline;
    const vendor: VendorName = 'gemini';
    const contract: EditorContract = editorContractForVendor(vendor);
    void [stage, old, composerOpts, submit, base, contract, semanticTargetsForVendor('grok'), EDITOR_CONTRACT_BY_VENDOR.chatgpt, CHATGPT_EDITOR_CONTRACT,
        GEMINI_EDITOR_CONTRACT, GROK_EDITOR_CONTRACT, GEMINI_DEEP_THINK_CONSTRAINTS.modeSelectors, CHATGPT_COMPOSER_SELECTORS, CHATGPT_SEND_SELECTORS,
        CHATGPT_UPLOAD_SELECTORS, CHATGPT_RESPONSE_SELECTORS, CHATGPT_STREAMING_SELECTORS, GEMINI_COMPOSER_SELECTORS, GEMINI_MODEL_SELECTOR_BUTTONS,
        GEMINI_UPLOAD_SELECTORS, GEMINI_RESPONSE_SELECTORS, GEMINI_STREAMING_SELECTORS, GROK_COMPOSER_SELECTORS, GROK_MODEL_SELECTOR_BUTTONS,
        GROK_UPLOAD_SELECTORS, GROK_RESPONSE_SELECTORS, GROK_STREAMING_SELECTORS];
    // agbrowse's call: resolved targets, a CDP insert, submit and verify options.
    const resolved = createChatGptEditorAdapter(page, {
        ...opts,
        composerTarget: { selector: '#prompt-textarea', resolution: { source: 'snapshot-ref' } },
        getCdpSession: async () => ({ send: async () => undefined, detach: async () => undefined }),
    });
    const viaTarget: PromptSubmitResult = await resolved.submitPrompt({ sendTarget: { selector: 'button[data-testid="send-button"]' }, sendButtonTimeoutMs: 2000 });
    void viaTarget.selector;
    await resolved.verifyPromptCommitted('hi', baseline, { timeoutMs: 2000 });
    return adapter.verifyPromptCommitted('hi', baseline);
}

export async function hashes(page: PageWithLocator, other: PageLike): Promise<SelectorMatch[]> {
    const opts: DomHashOptions = { maxChars: 100 };
    void (await domHashAround(other, ['body'], opts));
    const loc: LocatorLike = page.locator('body');
    void loc.nth(0);
    void normalizeDomForHash('<p a="1">x</p>');
    return selectorMatchSummary(page, ['body']);
}

export function errors(err: unknown): WebAiErrorJson | null {
    const init: WebAiErrorInit = { errorCode: 'provider.poll-timeout', stage: 'poll', cause: 0 };
    const e = wrapError(err, init);
    void [providerError('grok', init), contextError(init), new WebAiError(init).toJSON().errorCode];
    return fromCliJawStructuredError(err) ? toErrorJson(e) : null;
}
