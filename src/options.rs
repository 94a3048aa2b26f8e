//! Snapshot options (SPEC §4): defaults, and validation that names the bad field.

use serde_json::{json, Map, Value};

use crate::error::{ErrorCode, Result, WebAiError};

pub const DEFAULT_SNAPSHOT_MAX_DEPTH: u32 = 6;
pub const DEFAULT_MAX_NAME_CHARS: u32 = 900;
/// Text lines are not cut at `maxNameChars` (names and values are): a
/// paragraph is whole up to this many characters, which bounds what one
/// hostile text node can put in a snapshot; a cut says how much is left.
pub const DEFAULT_MAX_TEXT_CHARS: u32 = 2000;
pub const DEFAULT_DOM_HASH_MAX_CHARS: u32 = 32768;
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;
/// `maxDepth` values above this are treated as this.
pub const MAX_DEPTH_LIMIT: u32 = 100;
/// The smallest `maxTokens`: room for the document line and a `more` line.
pub const MIN_MAX_TOKENS: u32 = 50;
/// Above this many ref'd elements only tier 1 gets refs unless `allRefs`.
pub const REF_BUDGET: usize = 100;

/// Where the tree comes from (`engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Chrome's accessibility tree (`Accessibility.getFullAXTree`).
    Ax,
    /// Computed in Rust from the DOM snapshot (`src/engine`): the default
    /// since it agrees with Chrome on at least 99.5% of ref'd elements of
    /// every benchmark page (README, "The DOM engine").
    #[default]
    Dom,
}

/// How the DOM engine reads the page (`domRead`); every way gives the same snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DomRead {
    /// The walk where the page's last capture found it costs less (much inline
    /// script and style text for its size), else one DOM snapshot.
    #[default]
    Auto,
    /// One `DOMSnapshot.captureSnapshot`: it carries every text node whole,
    /// megabytes of inline script and JSON state included.
    Snapshot,
    /// `DOM.getDocument` (texts cut at 10,000 characters) and a walk in our
    /// world for what only style and layout know (`page/capture/subtree_facts.js`).
    Walk,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotOptions {
    pub engine: Engine,
    pub dom_read: DomRead,
    /// `engine` was given. Not given, a browser that cannot take a DOM
    /// snapshot (an error reply, not a timeout) gets Chrome's tree instead.
    pub engine_given: bool,
    pub provider: Option<String>,
    pub compact: bool,
    pub interactive_only: bool,
    pub max_depth: u32,
    pub root_selector: Option<String>,
    pub ref_prefix: String,
    pub redact_text: bool,
    pub include_dom_hash: bool,
    pub dom_hash_max_chars: u32,
    pub max_name_chars: u32,
    /// A text line longer than this is cut, saying how much it left out.
    pub max_text_chars: u32,
    pub all_refs: bool,
    pub timeout_ms: u32,
    pub refs_only: bool,
    /// Read the DOM beside the tree: selectors, frames, hosts and clickable marks.
    pub dom_pass: bool,
    /// Show only what is in the viewport (and refs only for that).
    pub viewport_only: bool,
    /// Seed 001's structured `elements`, `focused` and `timestamp` beside the text.
    pub include_elements: bool,
    /// At most this many `elements`, by seed 001's ranking (None: all).
    pub max_elements: Option<u32>,
    /// `untrustedContent: 'mark'`: page text inside boundaries (nonce, origin), imitations defused.
    pub mark_untrusted: bool,
    /// With a modal dialog open, show it and one line for what is behind it.
    pub active_layer_only: bool,
    /// Print each link's target (`url="/path"`, relative to the page's origin when it shares it).
    pub urls: bool,
    /// At most about this many o200k tokens of text: the rest becomes `more` lines.
    pub max_tokens: Option<u32>,
}

impl SnapshotOptions {
    /// Whether the DOM pass must read layout boxes.
    pub fn wants_boxes(&self) -> bool {
        self.viewport_only || self.include_elements || self.max_tokens.is_some()
    }
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            engine: Engine::Dom,
            dom_read: DomRead::Auto,
            engine_given: false,
            provider: None,
            compact: true,
            interactive_only: true,
            max_depth: DEFAULT_SNAPSHOT_MAX_DEPTH,
            root_selector: None,
            ref_prefix: "@e".into(),
            redact_text: false,
            include_dom_hash: true,
            dom_hash_max_chars: DEFAULT_DOM_HASH_MAX_CHARS,
            max_name_chars: DEFAULT_MAX_NAME_CHARS,
            max_text_chars: DEFAULT_MAX_TEXT_CHARS,
            all_refs: false,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            refs_only: false,
            dom_pass: true,
            viewport_only: false,
            include_elements: false,
            max_elements: None,
            mark_untrusted: false,
            active_layer_only: false,
            urls: false,
            max_tokens: None,
        }
    }
}

fn bad(field: &str, expected: &str, got: &Value) -> WebAiError {
    let shown = match got {
        Value::String(s) if s.len() > 80 => format!("{:?}…", &s[..s.char_indices().nth(80).map_or(s.len(), |(i, _)| i)]),
        other => other.to_string(),
    };
    WebAiError::new(ErrorCode::InvalidInput, format!("option `{field}` must be {expected}, got {shown}"))
        .with_evidence(json!({ "what": format!("options.{field}") }))
}

fn get_bool(m: &Map<String, Value>, field: &str, default: bool) -> Result<bool> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(bad(field, "a boolean", other)),
    }
}

fn get_uint(m: &Map<String, Value>, field: &str, default: u32, min: u32, max: u32) -> Result<u32> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(v @ Value::Number(n)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= min as f64 => Ok(f.min(max as f64) as u32),
            _ => Err(bad(field, &format!("an integer >= {min}"), v)),
        },
        Some(other) => Err(bad(field, &format!("an integer >= {min}"), other)),
    }
}

fn get_string(m: &Map<String, Value>, field: &str) -> Result<Option<String>> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(field, "a string", other)),
    }
}

impl SnapshotOptions {
    /// Read options from the JSON the JS layer sends (`JSON.stringify(options)`).
    pub fn from_json(text: &str) -> Result<SnapshotOptions> {
        let value: Value = serde_json::from_str(text).map_err(|e| WebAiError::invalid_input("options", format!("options are not valid JSON: {e}")))?;
        SnapshotOptions::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<SnapshotOptions> {
        let m = match value {
            Value::Null => return Ok(SnapshotOptions::default()),
            Value::Object(m) => m,
            other => return Err(bad("options", "an object", other)),
        };
        let d = SnapshotOptions::default();
        let ref_prefix = get_string(m, "refPrefix")?.unwrap_or(d.ref_prefix);
        if ref_prefix.is_empty() || ref_prefix.chars().any(|c| c.is_whitespace() || c == ']' || c == '[') {
            return Err(bad("refPrefix", "a non-empty string without spaces or brackets", &json!(ref_prefix)));
        }
        let root_selector = get_string(m, "rootSelector")?;
        if root_selector.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(bad("rootSelector", "a non-empty CSS selector", &json!(root_selector)));
        }
        Ok(SnapshotOptions {
            engine_given: get_string(m, "engine")?.is_some(),
            engine: match get_string(m, "engine")?.as_deref() {
                Some("ax") => Engine::Ax,
                None | Some("dom") => Engine::Dom,
                Some(_) => return Err(bad("engine", "'ax' or 'dom'", &m["engine"])),
            },
            dom_read: match get_string(m, "domRead")?.as_deref() {
                None | Some("auto") => DomRead::Auto,
                Some("snapshot") => DomRead::Snapshot,
                Some("walk") => DomRead::Walk,
                Some(_) => return Err(bad("domRead", "'auto', 'snapshot' or 'walk'", &m["domRead"])),
            },
            provider: get_string(m, "provider")?,
            compact: get_bool(m, "compact", d.compact)?,
            interactive_only: get_bool(m, "interactiveOnly", d.interactive_only)?,
            // Text indentation grows with depth, so output size grows with its
            // square; deeper levels are cut (their refs still listed).
            max_depth: get_uint(m, "maxDepth", d.max_depth, 0, MAX_DEPTH_LIMIT)?,
            root_selector,
            ref_prefix,
            redact_text: get_bool(m, "redactText", d.redact_text)?,
            include_dom_hash: get_bool(m, "includeDomHash", d.include_dom_hash)?,
            dom_hash_max_chars: get_uint(m, "domHashMaxChars", d.dom_hash_max_chars, 1, u32::MAX)?,
            max_name_chars: get_uint(m, "maxNameChars", d.max_name_chars, 1, u32::MAX)?,
            max_text_chars: get_uint(m, "maxTextChars", d.max_text_chars, 1, u32::MAX)?,
            all_refs: get_bool(m, "allRefs", d.all_refs)?,
            timeout_ms: get_uint(m, "timeoutMs", d.timeout_ms, 1, 3_600_000)?,
            refs_only: get_bool(m, "refsOnly", d.refs_only)?,
            dom_pass: get_bool(m, "domPass", d.dom_pass)?,
            viewport_only: get_bool(m, "viewportOnly", d.viewport_only)?,
            include_elements: get_bool(m, "includeElements", d.include_elements)?,
            max_elements: match m.get("maxElements") {
                None | Some(Value::Null) => None,
                Some(_) => Some(get_uint(m, "maxElements", 0, 1, u32::MAX)?),
            },
            mark_untrusted: match get_string(m, "untrustedContent")?.as_deref() {
                None | Some("off") => false,
                Some("mark") => true,
                Some(_) => return Err(bad("untrustedContent", "'mark' or 'off'", &m["untrustedContent"])),
            },
            active_layer_only: get_bool(m, "activeLayerOnly", d.active_layer_only)?,
            urls: get_bool(m, "urls", d.urls)?,
            max_tokens: match m.get("maxTokens") {
                None | Some(Value::Null) => None,
                Some(_) => Some(get_uint(m, "maxTokens", 0, MIN_MAX_TOKENS, u32::MAX)?),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        assert_eq!(SnapshotOptions::from_json("{}").unwrap(), SnapshotOptions::default());
        let o = SnapshotOptions::from_json(r#"{"maxDepth":2,"allRefs":true,"provider":"gemini"}"#).unwrap();
        assert_eq!((o.max_depth, o.all_refs, o.provider.as_deref()), (2, true, Some("gemini")));
    }

    #[test]
    fn malformed_options_name_the_field() {
        for (text, field) in [
            (r#"{"maxDepth":-1}"#, "options.maxDepth"),
            (r#"{"maxDepth":"3"}"#, "options.maxDepth"),
            (r#"{"compact":"yes"}"#, "options.compact"),
            (r#"{"refPrefix":""}"#, "options.refPrefix"),
            (r#"{"timeoutMs":0}"#, "options.timeoutMs"),
            (r#"{"rootSelector":"  "}"#, "options.rootSelector"),
            (r#"{"engine":"chrome"}"#, "options.engine"),
            (r#"{"domRead":"fast"}"#, "options.domRead"),
        ] {
            let e = SnapshotOptions::from_json(text).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert_eq!(e.evidence["what"], field, "{text}");
        }
    }
}
