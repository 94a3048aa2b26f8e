//! The agent loop's rules as JS functions: the old modules' hashes, registries
//! and stale verdicts, target matching, vendor contracts, the doctor.

use super::*;

#[napi]
pub fn default_interactive_roles() -> Vec<&'static str> {
    crate::tree::roles::DEFAULT_INTERACTIVE_ROLES.to_vec()
}

#[napi]
pub fn hash_accessibility_snapshot(text: String) -> String {
    hash::hash_accessibility_snapshot(&text)
}

#[napi]
pub fn hash_doctor_field(value: String) -> String {
    hash::hash_doctor_field(&value)
}

#[napi]
pub fn estimate_snapshot_tokens(text: String) -> f64 {
    hash::estimate_tokens(&text) as f64
}

#[napi]
pub fn normalize_dom_for_hash(html: String) -> String {
    dom_hash::normalize_dom_for_hash(&html)
}

/// The `domHashAround` hash of an element's outerHTML.
#[napi]
pub fn dom_hash_of_html(html: String, max_chars: f64) -> String {
    let max = if max_chars.is_finite() && max_chars >= 0.0 { max_chars.min(u32::MAX as f64) as usize } else { usize::MAX };
    dom_hash::dom_hash_of_html(&html, max)
}

#[napi]
pub fn contract_data() -> Value {
    contracts::all_contract_data()
}

#[napi(object)]
pub struct RegistryFields {
    pub stale: bool,
    pub snapshot_id: Option<String>,
    pub dom_hash: Option<String>,
    pub ax_hash: Option<String>,
}

#[napi(object)]
pub struct FreshnessFields {
    pub expected_snapshot_id: Option<String>,
    pub current_dom_hash: Option<String>,
    pub current_ax_hash: Option<String>,
}

pub(super) fn view(r: &RegistryFields) -> registry::RegistryView {
    registry::RegistryView { stale: r.stale, snapshot_id: r.snapshot_id.clone(), dom_hash: r.dom_hash.clone(), ax_hash: r.ax_hash.clone() }
}

#[napi]
pub fn registry_is_stale(registry: Option<RegistryFields>, ctx: FreshnessFields) -> bool {
    let v = registry.as_ref().map(view);
    registry::is_stale(
        v.as_ref(),
        &registry::Freshness { expected_snapshot_id: ctx.expected_snapshot_id, current_dom_hash: ctx.current_dom_hash, current_ax_hash: ctx.current_ax_hash },
    )
}

/// `[domHash, axHash]` to store after an invalidation, or null when nothing changed.
#[napi]
pub fn registry_invalidation(registry: RegistryFields, dom_hash: Option<String>, ax_hash: Option<String>) -> Option<Vec<Option<String>>> {
    registry::invalidation(&view(&registry), &dom_hash, &ax_hash).map(|(d, a)| vec![d, a])
}

#[napi]
pub fn normalize_ref(input: String) -> String {
    registry::normalize_ref(&input)
}

#[napi(string_enum = "lowercase")]
pub enum VerdictKind {
    Same,
    Minor,
    Changed,
    Gone,
}

#[napi(object)]
pub struct Identity {
    pub role: String,
    pub name: String,
}

#[napi(object)]
pub struct Verdict {
    pub verdict: VerdictKind,
    pub message: Option<String>,
    /// The element's role and name now (absent when it is gone).
    pub now: Option<Identity>,
}

pub(super) fn verdict_kind(v: &str) -> VerdictKind {
    match v {
        "same" => VerdictKind::Same,
        "minor" => VerdictKind::Minor,
        "changed" => VerdictKind::Changed,
        _ => VerdictKind::Gone,
    }
}

/// A ref's element as the snapshot saw it (`was*`) against what the page reports now.
#[napi]
pub fn verify_identity(was_role: String, was_name: String, now_role: String, now_name: String) -> Verdict {
    let (verdict, message) = match staleness::compare(&was_role, &was_name, &now_role, &now_name) {
        staleness::Verdict::Same => (VerdictKind::Same, None),
        staleness::Verdict::Minor { note } => (VerdictKind::Minor, Some(note)),
        staleness::Verdict::Changed { message } => (VerdictKind::Changed, Some(message)),
    };
    Verdict { verdict, message, now: Some(Identity { role: now_role, name: now_name }) }
}

#[napi]
pub fn gone_message(role: String, name: String, ref_id: String) -> String {
    staleness::gone_message(&role, &name, &ref_id)
}

/// A name pattern: a RegExp's `source` and `flags`, or a `substring`.
#[napi(object)]
pub struct PatternInput {
    pub source: Option<String>,
    pub flags: Option<String>,
    pub substring: Option<String>,
}

#[napi(object)]
pub struct TargetInput {
    pub feature: String,
    pub roles: Vec<String>,
    pub names: Vec<PatternInput>,
    pub exclude_names: Vec<PatternInput>,
    pub required: bool,
}

#[napi(object)]
pub struct RefIdentity {
    pub role: String,
    pub name: String,
}

#[napi(object)]
pub struct TargetHit {
    /// Index into the refs given.
    pub index: u32,
    pub confidence: f64,
}

#[napi(object)]
pub struct FeatureHits {
    pub feature: String,
    pub hits: Vec<TargetHit>,
}

pub(super) fn compile(patterns: Vec<PatternInput>) -> std::result::Result<Vec<Pattern>, WebAiError> {
    patterns
        .into_iter()
        .map(|p| {
            let spec = match (p.source, p.substring) {
                (Some(source), _) => PatternSpec::RegExp { source, flags: p.flags.unwrap_or_default() },
                (None, Some(s)) => PatternSpec::Substring(s),
                (None, None) => PatternSpec::Never,
            };
            Pattern::compile(&spec)
        })
        .collect()
}

/// Snapshot refs that qualify for each target, with their confidence.
#[napi]
pub fn match_targets(env: Env, targets_in: Vec<TargetInput>, refs: Vec<RefIdentity>) -> Result<Vec<FeatureHits>> {
    let run = || -> std::result::Result<Vec<FeatureHits>, WebAiError> {
        let mut out = Vec::with_capacity(targets_in.len());
        for t in targets_in {
            let target = Target { roles: t.roles, names: compile(t.names)?, exclude_names: compile(t.exclude_names)?, required: t.required };
            let hits = refs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    targets::score_ref(&target, &RefView { role: &r.role, name: &r.name }).map(|confidence| TargetHit { index: i as u32, confidence })
                })
                .collect();
            out.push(FeatureHits { feature: t.feature, hits });
        }
        Ok(out)
    };
    run().map_err(|e| thrown(&env, e))
}

#[napi(object)]
pub struct RankCandidate {
    pub confidence: f64,
    pub role: Option<String>,
    pub name: String,
    pub snapshot_ref: bool,
}

/// Ranked order of candidates (indices, stable, highest first).
#[napi]
pub fn rank_candidates(env: Env, candidates: Vec<RankCandidate>, expected_role: Option<String>, expected_names: Vec<PatternInput>) -> Result<Vec<u32>> {
    let expected = compile(expected_names).map_err(|e| thrown(&env, e))?;
    let inputs: Vec<targets::RankInput> =
        candidates.into_iter().map(|c| targets::RankInput { confidence: c.confidence, role: c.role, name: c.name, is_snapshot_ref: c.snapshot_ref }).collect();
    Ok(targets::rank(&inputs, expected_role.as_deref().filter(|r| !r.is_empty()), &expected))
}

/// `summarizeSnapshotForDoctor`; `snapshot.refs` is an ordered array.
#[napi]
pub fn summarize_for_doctor(snapshot: Value, max_refs: f64) -> Value {
    let max = if max_refs.is_finite() && max_refs > 0.0 { max_refs as usize } else { 0 };
    crate::agent::doctor::summarize(&snapshot, max)
}

/// The `Input.dispatchKeyEvent` parameters that press `key` (`Enter`, `Control+a`); throws `snapshot.invalid-input` for a name that is no key.
#[napi]
pub fn key_events(env: Env, key: String) -> Result<Vec<Value>> {
    crate::agent::keys::key_events(&key).map_err(|e| thrown(&env, e))
}

/// Load the o200k table `maxTokens` counts with (about 0.3 s, once a
/// process) on a worker thread, so a server's first budgeted look does not
/// pay it. Resolves to whether the table loaded.
#[napi]
pub async fn warm_token_counter() -> bool {
    tokio::task::spawn_blocking(crate::text::tokens::warm).await.unwrap_or(false)
}
