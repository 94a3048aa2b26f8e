//! The napi surface: converts strings and numbers at the edge and nothing else.
//!
//! Large values (trees, snapshots) cross as JSON text; a deliberate failure
//! crosses as an `Error` whose message is `WEBAI_ERROR:` + the error's JSON,
//! which the JS layer turns into a `WebAiError`.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

use crate::capture::{self, CdpReply, Step};
use crate::error::{ErrorCode, WebAiError};
use crate::options::SnapshotOptions;
use crate::text::snapshot::{build_snapshot, PageFacts};
use crate::agent::targets::{self, JsTester, Pattern, PatternSpec, RefView, Target};
use crate::agent::{contracts, registry};
use crate::compat::{dom_hash, hash};
use crate::tree::{cdp_reader as cdp_input, legacy_reader as legacy_input};

const ERROR_MARKER: &str = "WEBAI_ERROR:";

fn to_napi(e: WebAiError) -> Error {
    Error::new(Status::GenericFailure, format!("{ERROR_MARKER}{}", e.to_json()))
}

fn parse_json(text: &str, what: &str) -> std::result::Result<Value, WebAiError> {
    crate::compat::json_text::from_str_lossy(text).map_err(|e| WebAiError::invalid_input(what, format!("{what} is not valid JSON: {e}")))
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

fn facts_from(facts_json: Option<String>) -> std::result::Result<PageFacts, WebAiError> {
    let Some(text) = facts_json else { return Ok(PageFacts::default()) };
    let v = parse_json(&text, "page facts")?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(PageFacts {
        url: s("url"),
        title: s("title"),
        dom_hash: s("domHash"),
        viewport: None,
        notes: v
            .get("notes")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
    })
}

fn tree_from(kind: &str, input_json: &str) -> std::result::Result<crate::tree::AxTree, WebAiError> {
    match kind {
        "cdp" => cdp_input::parse_full_ax_tree(input_json),
        "legacy" => legacy_input::from_value(parse_json(input_json, "legacy accessibility tree")?),
        other => Err(WebAiError::invalid_input("kind", format!("unknown tree kind {other:?}"))),
    }
}

/// Serialize a recorded tree. `kind` is `cdp` (a `getFullAXTree` result) or
/// `legacy` (`{ legacyNodes }` flattened by the JS layer).
#[napi]
pub fn snapshot_from_tree(kind: String, input_json: String, options_json: String, facts_json: Option<String>) -> Result<String> {
    let started = std::time::Instant::now();
    let run = || -> std::result::Result<String, WebAiError> {
        let opts = SnapshotOptions::from_json(&options_json)?;
        if opts.root_selector.is_some() {
            return Err(WebAiError::new(
                ErrorCode::InvalidInput,
                "rootSelector needs a live page; a recorded tree has no DOM to query",
            )
            .with_evidence(json!({ "what": "options.rootSelector" })));
        }
        let tree = tree_from(&kind, &input_json)?;
        let facts = facts_from(facts_json.clone())?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(build_snapshot(&tree, None, facts, &opts, ms, &[]).to_json())
    };
    run().map_err(to_napi)
}

/// Validate options (throws `snapshot.invalid-input`) and return them normalised.
#[napi]
pub fn validate_options(options_json: String) -> Result<()> {
    SnapshotOptions::from_json(&options_json).map(|_| ()).map_err(to_napi)
}

#[napi(js_name = "CaptureSession")]
pub struct JsCaptureSession {
    inner: capture::CaptureSession,
}

#[napi]
impl JsCaptureSession {
    #[napi(constructor)]
    pub fn new(options_json: String) -> Result<Self> {
        let opts = SnapshotOptions::from_json(&options_json).map_err(to_napi)?;
        Ok(JsCaptureSession { inner: capture::CaptureSession::new(opts) })
    }

    /// The first batch of commands, as JSON `[{ id, method, params }]`.
    #[napi]
    pub fn start(&mut self) -> String {
        Value::Array(self.inner.start().iter().map(|c| c.to_json()).collect()).to_string()
    }

    /// One reply: the CDP `result` as JSON text, or an error message.
    #[napi]
    pub fn receive(&mut self, id: u32, result_json: Option<String>, error: Option<String>) {
        let reply = match (result_json, error) {
            (Some(r), None) => CdpReply::Ok(r),
            (_, Some(e)) => CdpReply::Err(e),
            (None, None) => CdpReply::Err("empty reply".into()),
        };
        self.inner.receive(id, reply);
    }

    /// `{"commands":[…]}` for the next batch or `{"snapshot":{…}}` when done.
    #[napi]
    pub fn advance(&mut self) -> Result<String> {
        match self.inner.advance().map_err(to_napi)? {
            Step::Send(cmds) => Ok(json!({ "commands": cmds.iter().map(|c| c.to_json()).collect::<Vec<_>>() }).to_string()),
            Step::Done(snapshot) => {
                let cleanup: Vec<_> = self.inner.cleanup().iter().map(|c| c.to_json()).collect();
                Ok(format!("{{\"snapshot\":{},\"cleanup\":{}}}", snapshot.to_json(), serde_json::Value::Array(cleanup)))
            }
        }
    }

    #[napi]
    pub fn remaining_ms(&self) -> f64 {
        self.inner.remaining_ms() as f64
    }

    /// The `snapshot.timeout` error for a call that ran out of time.
    #[napi]
    pub fn timeout_error(&self, method: String) -> String {
        self.inner.timeout_error(&method).to_json().to_string()
    }
}

/// The `WebAiError` JSON for an error code (used by the JS layer for errors
/// it detects itself, so every field comes from the one table).
#[napi]
pub fn error_payload(code: String, message: String, evidence_json: Option<String>) -> Result<String> {
    let Some(c) = ErrorCode::from_code(&code) else {
        return Err(Error::new(Status::InvalidArg, format!("unknown errorCode {code}")));
    };
    let evidence = evidence_json.and_then(|e| serde_json::from_str(&e).ok()).unwrap_or(Value::Null);
    Ok(WebAiError::new(c, message).with_evidence(evidence).to_json().to_string())
}

#[napi]
pub fn contract_data() -> String {
    contracts::all_contract_data().to_string()
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

fn view(r: &RegistryFields) -> registry::RegistryView {
    registry::RegistryView {
        stale: r.stale,
        snapshot_id: r.snapshot_id.clone(),
        dom_hash: r.dom_hash.clone(),
        ax_hash: r.ax_hash.clone(),
    }
}

#[napi]
pub fn registry_is_stale(registry: Option<RegistryFields>, ctx: FreshnessFields) -> bool {
    let v = registry.as_ref().map(view);
    registry::is_stale(
        v.as_ref(),
        &registry::Freshness {
            expected_snapshot_id: ctx.expected_snapshot_id,
            current_dom_hash: ctx.current_dom_hash,
            current_ax_hash: ctx.current_ax_hash,
        },
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

struct CallbackTester<'a> {
    f: &'a Function<'a, FnArgs<(u32, String)>, bool>,
    error: Option<Error>,
}

impl JsTester for CallbackTester<'_> {
    fn test(&mut self, pattern_id: u32, subject: &str) -> bool {
        if self.error.is_some() {
            return false;
        }
        match self.f.call((pattern_id, subject.to_string()).into()) {
            Ok(b) => b,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }
}

fn pattern_spec(v: &Value) -> PatternSpec {
    if let Some(id) = v.get("re").and_then(Value::as_u64) {
        PatternSpec::RegExp {
            id: id as u32,
            source: v.get("source").and_then(Value::as_str).unwrap_or_default().to_string(),
            flags: v.get("flags").and_then(Value::as_str).unwrap_or_default().to_string(),
        }
    } else if let Some(s) = v.get("str").and_then(Value::as_str) {
        PatternSpec::Substring(s.to_string())
    } else {
        PatternSpec::Never
    }
}

fn patterns(v: Option<&Value>) -> Vec<Pattern> {
    v.and_then(Value::as_array).map(|a| a.iter().map(|p| Pattern::compile(&pattern_spec(p))).collect()).unwrap_or_default()
}

/// Match snapshot refs against targets. Input: `targets` as `[[feature,
/// {roles, names, excludeNames, required}]]`, `refs` as `[{role, name}]`.
/// Output: `[[feature, [[refIndex, confidence]]]]`.
#[napi]
pub fn match_targets(targets_json: String, refs_json: String, js_test: Function<FnArgs<(u32, String)>, bool>) -> Result<String> {
    let targets_v = parse_json(&targets_json, "targets").map_err(to_napi)?;
    let refs_v = parse_json(&refs_json, "refs").map_err(to_napi)?;
    let refs: Vec<(String, String)> = refs_v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                    (s("role"), s("name"))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut tester = CallbackTester { f: &js_test, error: None };
    let mut out = Vec::new();
    for pair in targets_v.as_array().into_iter().flatten() {
        let feature = pair.get(0).cloned().unwrap_or(Value::Null);
        let t = pair.get(1).cloned().unwrap_or(Value::Null);
        let target = Target {
            roles: t
                .get("roles")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|r| r.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
            names: patterns(t.get("names")),
            exclude_names: patterns(t.get("excludeNames")),
            required: t.get("required").and_then(Value::as_bool).unwrap_or(false),
        };
        let mut hits = Vec::new();
        for (i, (role, name)) in refs.iter().enumerate() {
            if let Some(score) = targets::score_ref(&target, &RefView { role, name }, &mut tester) {
                hits.push(json!([i, score]));
            }
        }
        out.push(json!([feature, hits]));
    }
    if let Some(e) = tester.error {
        return Err(e);
    }
    Ok(Value::Array(out).to_string())
}

/// Ranked order of candidates `[{confidence, role, name, snapshotRef}]`.
#[napi]
pub fn rank_candidates(
    candidates_json: String,
    expected_role: Option<String>,
    expected_names_json: String,
    js_test: Function<FnArgs<(u32, String)>, bool>,
) -> Result<Vec<u32>> {
    let cands_v = parse_json(&candidates_json, "candidates").map_err(to_napi)?;
    let names_v = parse_json(&expected_names_json, "expectedNames").map_err(to_napi)?;
    let inputs: Vec<targets::RankInput> = cands_v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| targets::RankInput {
                    confidence: c.get("confidence").and_then(Value::as_f64).unwrap_or(f64::NAN),
                    role: c.get("role").and_then(Value::as_str).map(str::to_string),
                    name: c.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                    is_snapshot_ref: c.get("snapshotRef").and_then(Value::as_bool).unwrap_or(false),
                })
                .collect()
        })
        .unwrap_or_default();
    let expected = patterns(Some(&names_v));
    let mut tester = CallbackTester { f: &js_test, error: None };
    let order = targets::rank(&inputs, expected_role.as_deref().filter(|r| !r.is_empty()), &expected, &mut tester);
    if let Some(e) = tester.error {
        return Err(e);
    }
    Ok(order)
}

/// `summarizeSnapshotForDoctor`; `snapshot_json` has `refs` as an ordered array.
#[napi]
pub fn summarize_for_doctor(snapshot_json: String, max_refs: f64) -> Result<String> {
    let v = parse_json(&snapshot_json, "snapshot").map_err(to_napi)?;
    let max = if max_refs.is_finite() && max_refs > 0.0 { max_refs as usize } else { 0 };
    Ok(crate::agent::doctor::summarize(&v, max).to_string())
}

pub struct NativeCapture {
    endpoint: crate::native::Endpoint,
    options_json: String,
}

impl Task for NativeCapture {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        let opts = SnapshotOptions::from_json(&self.options_json).map_err(to_napi)?;
        crate::native::capture_endpoint(&self.endpoint, opts).map(|s| s.to_json()).map_err(to_napi)
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// Connect to a DevTools endpoint (`http://host:port` or `ws://…`) from Rust,
/// snapshot the chosen tab off the JS thread, and detach.
#[napi(ts_return_type = "Promise<string>")]
pub fn capture_native(endpoint: String, target_id: Option<String>, url_includes: Option<String>, options_json: String) -> AsyncTask<NativeCapture> {
    AsyncTask::new(NativeCapture {
        endpoint: crate::native::Endpoint { url: endpoint, target_id, url_includes },
        options_json,
    })
}

pub struct NativeFloor {
    endpoint: crate::native::Endpoint,
    timeout_ms: u32,
}

impl Task for NativeFloor {
    type Output = Vec<f64>;
    type JsValue = Vec<f64>;

    fn compute(&mut self) -> Result<Vec<f64>> {
        let started = std::time::Instant::now();
        let deadline = started + std::time::Duration::from_millis(self.timeout_ms as u64);
        let mut conn = crate::native::NativeConnection::open(&self.endpoint, deadline).map_err(to_napi)?;
        let connected = started.elapsed().as_secs_f64() * 1000.0;
        let bytes = conn.raw_tree(deadline).map_err(to_napi)?;
        let total = started.elapsed().as_secs_f64() * 1000.0;
        conn.close();
        Ok(vec![total, connected, bytes as f64])
    }

    fn resolve(&mut self, _env: Env, output: Vec<f64>) -> Result<Vec<f64>> {
        Ok(output)
    }
}

/// The benchmark's native floor: connect and attach like `captureNative`, then
/// one bare `Accessibility.getFullAXTree` whose answer is not parsed.
/// Resolves `[totalMs, connectMs, bytes]`.
#[napi(ts_return_type = "Promise<number[]>")]
pub fn native_bare_tree(endpoint: String, target_id: Option<String>, url_includes: Option<String>, timeout_ms: u32) -> AsyncTask<NativeFloor> {
    AsyncTask::new(NativeFloor { endpoint: crate::native::Endpoint { url: endpoint, target_id, url_includes }, timeout_ms })
}

/// `{ verdict: 'same' | 'minor' | 'changed', message }` for a ref's element
/// as the snapshot saw it (`was*`) and as the page reports it now.
#[napi]
pub fn verify_identity(was_role: String, was_name: String, now_role: String, now_name: String) -> String {
    match crate::agent::staleness::compare(&was_role, &was_name, &now_role, &now_name) {
        crate::agent::staleness::Verdict::Same => json!({ "verdict": "same", "message": null }),
        crate::agent::staleness::Verdict::Minor { note } => json!({ "verdict": "minor", "message": note }),
        crate::agent::staleness::Verdict::Changed { message } => json!({ "verdict": "changed", "message": message }),
    }
    .to_string()
}

#[napi]
pub fn gone_message(role: String, name: String, ref_id: String) -> String {
    crate::agent::staleness::gone_message(&role, &name, &ref_id)
}
