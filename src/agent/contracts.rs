//! Vendor editor contracts (SPEC §8): the semantic targets and CSS selector
//! arrays for ChatGPT, Gemini and Grok. The data lives here; the JS layer
//! turns it into frozen objects with `RegExp` names.

use serde_json::{json, Map, Value};

pub const VENDORS: [&str; 3] = ["chatgpt", "gemini", "grok"];

/// Every exported selector array, by its export name.
pub fn selector_arrays() -> Vec<(&'static str, Value)> {
    vec![
        (
            "CHATGPT_COMPOSER_SELECTORS",
            json!([
                "textarea[data-id=\"prompt-textarea\"]",
                "textarea[placeholder*=\"Send a message\"]",
                "textarea[aria-label=\"Message ChatGPT\"]",
                "textarea:not([disabled])",
                "textarea[name=\"prompt-textarea\"]",
                "#prompt-textarea",
                ".ProseMirror",
                "[contenteditable=\"true\"][data-virtualkeyboard=\"true\"]",
                "[contenteditable=\"true\"]"
            ]),
        ),
        (
            "CHATGPT_SEND_SELECTORS",
            json!([
                "button[data-testid=\"send-button\"]",
                "button[data-testid*=\"composer-send\"]",
                "form button[type=\"submit\"]",
                "button[type=\"submit\"][data-testid*=\"send\"]",
                "button[aria-label*=\"Send\" i]"
            ]),
        ),
        (
            "CHATGPT_MODEL_SELECTOR_BUTTONS",
            json!([
                "button[data-testid=\"model-switcher-dropdown-button\"]",
                "button[aria-label=\"Model selector\"]",
                "button[aria-label*=\"model selector\" i]"
            ]),
        ),
        (
            "CHATGPT_UPLOAD_SELECTORS",
            json!([
                "[data-testid=\"composer-plus-btn\"]",
                "button[aria-label=\"Add files and more\"]",
                "button[aria-label=\"파일 추가 및 기타\"]",
                "button[aria-label*=\"Upload\" i]",
                "button[aria-label*=\"Attach\" i]",
                "button[aria-label*=\"Add\" i]",
                "button[data-testid*=\"plus\" i]",
                "button:has-text(\"Upload\")"
            ]),
        ),
        (
            "CHATGPT_RESPONSE_SELECTORS",
            json!(["[data-message-author-role=\"assistant\"]", "[data-turn=\"assistant\"]", "article[data-testid^=\"conversation-turn\"]"]),
        ),
        ("CHATGPT_STREAMING_SELECTORS", json!(["button[data-testid=\"stop-button\"]", "button[aria-label*=\"Stop\" i]"])),
        (
            "CHATGPT_COPY_SELECTORS",
            json!({
                "turnSelectors": [
                    "[data-message-author-role=\"assistant\"]",
                    "[data-turn=\"assistant\"]",
                    "article[data-testid^=\"conversation-turn\"]:has([data-message-author-role=\"assistant\"])"
                ],
                "copyButtonSelectors": [
                    "button[data-testid=\"copy-turn-action-button\"]",
                    "button[aria-label*=\"Copy\" i]"
                ]
            }),
        ),
        ("GEMINI_COMPOSER_SELECTORS", json!(["rich-textarea .ql-editor", "[role=\"textbox\"][aria-label*=\"prompt\" i]", "div[contenteditable=\"true\"]"])),
        ("GEMINI_MODEL_SELECTOR_BUTTONS", json!(["button[data-test-id=\"bard-mode-menu-button\"]", "button[aria-label=\"Open mode picker\"]"])),
        ("GEMINI_UPLOAD_SELECTORS", json!(["button[aria-label=\"Open upload file menu\"]", "button[aria-label*=\"upload file menu\" i]"])),
        ("GEMINI_RESPONSE_SELECTORS", json!(["model-response", "[data-response-index]"])),
        ("GEMINI_STREAMING_SELECTORS", json!([".response-footer.complete", "message-actions", "[aria-label*=\"Good response\" i]"])),
        (
            "GEMINI_COPY_SELECTORS",
            json!({
                "turnSelectors": ["model-response", "[data-response-index]"],
                "copyButtonSelectors": [
                    "button[data-test-id=\"copy-button\"]",
                    "button[aria-label=\"Copy\"]",
                    "button[aria-label*=\"Copy\" i]"
                ]
            }),
        ),
        ("GROK_COMPOSER_SELECTORS", json!([".ProseMirror[contenteditable=\"true\"]", "[contenteditable=\"true\"].ProseMirror"])),
        ("GROK_MODEL_SELECTOR_BUTTONS", json!(["button[aria-label=\"Model select\"]", "button[aria-label*=\"Model select\" i]"])),
        ("GROK_UPLOAD_SELECTORS", json!(["button[aria-label*=\"Upload\" i]", "button[aria-label*=\"Attach\" i]", "button[data-testid*=\"plus\" i]"])),
        ("GROK_RESPONSE_SELECTORS", json!(["[data-testid=\"assistant-message\"]", "[id^=\"response-\"]:has([data-testid=\"assistant-message\"])"])),
        ("GROK_STREAMING_SELECTORS", json!(["button[aria-label*=\"Stop\" i]"])),
        (
            "GROK_COPY_SELECTORS",
            json!({
                "turnSelectors": [
                    "[data-testid=\"assistant-message\"]",
                    "[id^=\"response-\"]:has([data-testid=\"assistant-message\"])"
                ],
                "copyButtonSelectors": ["button[aria-label=\"Copy\"]", "button[aria-label*=\"Copy\" i]"]
            }),
        ),
    ]
}

fn selectors(name: &str) -> Value {
    let (base, field) = match name.split_once('.') {
        Some((b, f)) => (b, Some(f)),
        None => (name, None),
    };
    let value = selector_arrays().into_iter().find(|(n, _)| *n == base).map(|(_, v)| v).unwrap_or(Value::Null);
    match field {
        Some(f) => value.get(f).cloned().unwrap_or(Value::Null),
        None => value,
    }
}

/// Names are case-insensitive RegExp sources.
fn target(roles: &[&str], names: &[&str], exclude: &[&str], css: &str, required: bool) -> Value {
    let pats = |ps: &[&str]| -> Value { ps.iter().map(|p| json!({ "source": p, "flags": "i" })).collect() };
    let mut m = Map::new();
    m.insert("roles".into(), json!(roles));
    m.insert("names".into(), pats(names));
    if !exclude.is_empty() {
        m.insert("excludeNames".into(), pats(exclude));
    }
    m.insert("cssFallbacks".into(), selectors(css));
    if required {
        m.insert("required".into(), Value::Bool(true));
    }
    Value::Object(m)
}

/// The contract for one vendor: `{ vendor, semanticTargets }`, targets in table order.
pub fn contract(vendor: &str) -> Value {
    let targets: Vec<(&str, Value)> = match vendor {
        "gemini" => vec![
            ("composer", target(&["textbox"], &["prompt", "message", "ask"], &["search"], "GEMINI_COMPOSER_SELECTORS", true)),
            ("modelPicker", target(&["button", "combobox"], &["model", "mode", "picker"], &[], "GEMINI_MODEL_SELECTOR_BUTTONS", false)),
            ("uploadSurface", target(&["button"], &["upload", "file", "attach"], &[], "GEMINI_UPLOAD_SELECTORS", false)),
            ("responseFeed", target(&["article", "region", "group"], &["response", "gemini"], &[], "GEMINI_RESPONSE_SELECTORS", false)),
            ("copyButton", target(&["button"], &["copy"], &[], "GEMINI_COPY_SELECTORS.copyButtonSelectors", false)),
            ("streamingIndicator", target(&["button", "status"], &["stop", "response"], &[], "GEMINI_STREAMING_SELECTORS", false)),
        ],
        "grok" => vec![
            ("composer", target(&["textbox"], &["message", "prompt", "ask", "grok"], &["search"], "GROK_COMPOSER_SELECTORS", true)),
            ("modelPicker", target(&["button", "combobox"], &["model"], &[], "GROK_MODEL_SELECTOR_BUTTONS", false)),
            ("uploadSurface", target(&["button"], &["upload", "attach", "file"], &[], "GROK_UPLOAD_SELECTORS", false)),
            ("responseFeed", target(&["article", "region", "group"], &["assistant", "response"], &[], "GROK_RESPONSE_SELECTORS", false)),
            ("copyButton", target(&["button"], &["copy"], &[], "GROK_COPY_SELECTORS.copyButtonSelectors", false)),
            ("streamingIndicator", target(&["button"], &["stop"], &[], "GROK_STREAMING_SELECTORS", false)),
        ],
        _ => vec![
            ("composer", target(&["textbox"], &["message", "prompt", "chatgpt"], &["search"], "CHATGPT_COMPOSER_SELECTORS", true)),
            ("sendButton", target(&["button"], &["send", "submit"], &[], "CHATGPT_SEND_SELECTORS", false)),
            (
                "modelPicker",
                target(
                    &["button", "combobox"],
                    &["^(Instant|Medium|High|Extra High|Pro)$", r"^(GPT-5\.6 Sol|GPT-5\.5|GPT-5\.4|GPT-5\.3|o3)$", "intelligence", "model", "gpt"],
                    &["search", "attach", "upload"],
                    "CHATGPT_MODEL_SELECTOR_BUTTONS",
                    false,
                ),
            ),
            ("uploadSurface", target(&["button"], &["attach", "upload", "file", "add"], &[], "CHATGPT_UPLOAD_SELECTORS", false)),
            ("responseFeed", target(&["article", "region", "group"], &["assistant", "response"], &[], "CHATGPT_RESPONSE_SELECTORS", false)),
            ("copyButton", target(&["button"], &["copy"], &[], "CHATGPT_COPY_SELECTORS.copyButtonSelectors", false)),
            ("streamingIndicator", target(&["button"], &["stop"], &[], "CHATGPT_STREAMING_SELECTORS", false)),
        ],
    };
    let vendor_name = if VENDORS.contains(&vendor) { vendor } else { "chatgpt" };
    let mut st = Map::new();
    for (k, v) in targets {
        st.insert(k.to_string(), v);
    }
    json!({ "vendor": vendor_name, "semanticTargets": Value::Object(st) })
}

pub fn gemini_deep_think_constraints() -> Value {
    json!({
        "inputSelectors": selectors("GEMINI_COMPOSER_SELECTORS"),
        "responseSelectors": ["model-response", "message-content", ".model-response-text message-content"],
        "completionSignals": [".response-footer.complete", "[role=\"progressbar\"]"],
        "modeSelectors": [
            "button[aria-label=\"New chat\"]:not([aria-disabled=\"true\"]):not(.disabled)",
            "button.toolbox-drawer-button",
            "[role=\"menuitemcheckbox\"]:has-text(\"Deep think\")",
            "button[aria-label*=\"Deselect Deep think\"]"
        ]
    })
}

/// Everything the JS layer needs, as one JSON document (target order preserved
/// as `[name, target]` pairs since JSON objects here are unordered).
pub fn all_contract_data() -> Value {
    let contracts: Vec<Value> = VENDORS
        .iter()
        .map(|v| {
            let c = contract(v);
            let order: Vec<&str> = target_order(v);
            let pairs: Vec<Value> = order.iter().map(|k| json!([k, c["semanticTargets"][k].clone()])).collect();
            json!({ "vendor": v, "targets": pairs })
        })
        .collect();
    let arrays: Vec<Value> = selector_arrays().into_iter().map(|(k, v)| json!([k, v])).collect();
    json!({ "contracts": contracts, "selectors": arrays, "geminiDeepThink": gemini_deep_think_constraints() })
}

fn target_order(vendor: &str) -> Vec<&'static str> {
    match vendor {
        "chatgpt" => vec!["composer", "sendButton", "modelPicker", "uploadSurface", "responseFeed", "copyButton", "streamingIndicator"],
        _ => vec!["composer", "modelPicker", "uploadSurface", "responseFeed", "copyButton", "streamingIndicator"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_vendor_is_chatgpt_and_every_fallback_resolves() {
        assert_eq!(contract("nope")["vendor"], "chatgpt");
        for v in VENDORS {
            let c = contract(v);
            for (name, t) in c["semanticTargets"].as_object().unwrap() {
                let css = t["cssFallbacks"].as_array().unwrap_or_else(|| panic!("{v}.{name} has no selectors"));
                assert!(!css.is_empty());
            }
            assert_eq!(c["semanticTargets"]["composer"]["required"], true);
        }
    }
}
