//! A key press as the agent names it (`Enter`, `Control+a`, `Shift+Tab`)
//! turned into the `Input.dispatchKeyEvent` calls Chrome needs: modifiers
//! pressed in order, the key down and up, modifiers released in reverse.
//!
//! Names follow the DOM's `KeyboardEvent.key` values, as Playwright's
//! `keyboard.press` and the MCP peers' `press_key` take them, so an agent
//! that learnt one of them needs nothing new here.

use serde_json::{json, Value};

use crate::error::{ErrorCode, Result, WebAiError};

/// One named key: its `key`, `code`, legacy key code and the text it types.
struct Named {
    key: &'static str,
    code: &'static str,
    key_code: u32,
    text: &'static str,
}

const NAMED: &[Named] = &[
    Named { key: "Enter", code: "Enter", key_code: 13, text: "\r" },
    Named { key: "Tab", code: "Tab", key_code: 9, text: "" },
    Named { key: "Escape", code: "Escape", key_code: 27, text: "" },
    Named { key: "Backspace", code: "Backspace", key_code: 8, text: "" },
    Named { key: "Delete", code: "Delete", key_code: 46, text: "" },
    Named { key: "Insert", code: "Insert", key_code: 45, text: "" },
    Named { key: " ", code: "Space", key_code: 32, text: " " },
    Named { key: "ArrowLeft", code: "ArrowLeft", key_code: 37, text: "" },
    Named { key: "ArrowUp", code: "ArrowUp", key_code: 38, text: "" },
    Named { key: "ArrowRight", code: "ArrowRight", key_code: 39, text: "" },
    Named { key: "ArrowDown", code: "ArrowDown", key_code: 40, text: "" },
    Named { key: "Home", code: "Home", key_code: 36, text: "" },
    Named { key: "End", code: "End", key_code: 35, text: "" },
    Named { key: "PageUp", code: "PageUp", key_code: 33, text: "" },
    Named { key: "PageDown", code: "PageDown", key_code: 34, text: "" },
    Named { key: "Shift", code: "ShiftLeft", key_code: 16, text: "" },
    Named { key: "Control", code: "ControlLeft", key_code: 17, text: "" },
    Named { key: "Alt", code: "AltLeft", key_code: 18, text: "" },
    Named { key: "Meta", code: "MetaLeft", key_code: 91, text: "" },
];

/// Other spellings agents use for the same keys.
const ALIASES: &[(&str, &str)] = &[
    ("return", "Enter"),
    ("esc", "Escape"),
    ("space", " "),
    ("spacebar", " "),
    ("del", "Delete"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
    ("ctrl", "Control"),
    ("control", "Control"),
    ("controlormeta", "Control"),
    ("cmd", "Meta"),
    ("command", "Meta"),
    ("meta", "Meta"),
    ("option", "Alt"),
    ("alt", "Alt"),
    ("shift", "Shift"),
];

/// `Input.dispatchKeyEvent`'s modifier bits.
fn modifier_bit(key: &str) -> Option<u32> {
    match key {
        "Alt" => Some(1),
        "Control" => Some(2),
        "Meta" => Some(4),
        "Shift" => Some(8),
        _ => None,
    }
}

fn bad_key(spec: &str, why: &str) -> WebAiError {
    WebAiError::new(ErrorCode::InvalidInput, format!("key {spec:?} {why}: name a key such as Enter, Tab, Escape, ArrowDown, a, or a chord such as Control+a"))
        .with_evidence(json!({ "what": "key", "key": spec }))
}

/// A part of a chord as a key event's fields: `(key, code, keyCode, text)`.
fn resolve(part: &str) -> Option<(String, String, u32, String)> {
    let lower = part.to_ascii_lowercase();
    let canonical = ALIASES.iter().find(|(a, _)| *a == lower).map(|(_, k)| *k);
    let name = canonical.unwrap_or(part);
    if let Some(n) = NAMED.iter().find(|n| n.key.eq_ignore_ascii_case(name) && (n.key.len() > 1 || n.key == name)) {
        return Some((n.key.to_string(), n.code.to_string(), n.key_code, n.text.to_string()));
    }
    if let Some(f) = name.strip_prefix('F').or_else(|| name.strip_prefix('f')).and_then(|n| n.parse::<u32>().ok()).filter(|n| (1..=12).contains(n)) {
        return Some((format!("F{f}"), format!("F{f}"), 111 + f, String::new()));
    }
    let mut chars = part.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let (code, key_code) = match c {
        'a'..='z' | 'A'..='Z' => (format!("Key{}", c.to_ascii_uppercase()), c.to_ascii_uppercase() as u32),
        '0'..='9' => (format!("Digit{c}"), c as u32),
        _ => (String::new(), 0),
    };
    Some((c.to_string(), code, key_code, c.to_string()))
}

/// The `Input.dispatchKeyEvent` parameters, in order, that press `spec`.
pub fn key_events(spec: &str) -> Result<Vec<Value>> {
    if spec.is_empty() || spec.chars().count() > 64 {
        return Err(bad_key(spec, "is empty or too long"));
    }
    // "+" alone, or a chord ending in "+" ("Control++"), presses the plus key.
    let parts: Vec<&str> = if spec == "+" {
        vec!["+"]
    } else if let Some(head) = spec.strip_suffix("++") {
        head.split('+').chain(std::iter::once("+")).collect()
    } else {
        spec.split('+').collect()
    };
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad_key(spec, "has an empty part"));
    }
    let mut keys = Vec::with_capacity(parts.len());
    for p in &parts {
        keys.push(resolve(p).ok_or_else(|| bad_key(spec, &format!("names no key ({p:?})")))?);
    }
    let Some((last, modifiers)) = keys.split_last() else { return Err(bad_key(spec, "is empty")) };
    if let Some(m) = modifiers.iter().find(|m| modifier_bit(&m.0).is_none()) {
        return Err(bad_key(spec, &format!("chords {:?}, which is not a modifier (Control, Shift, Alt, Meta)", m.0)));
    }
    let mut events = Vec::new();
    let mut bits = 0;
    for (key, code, key_code, _) in modifiers {
        bits |= modifier_bit(key).unwrap_or(0);
        events.push(json!({ "type": "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits }));
    }
    let (key, code, key_code, text) = last;
    // A chord with Control, Alt or Meta is a shortcut, not typing.
    let types = !text.is_empty() && bits & 0b111 == 0;
    let mut down =
        json!({ "type": if types { "keyDown" } else { "rawKeyDown" }, "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits });
    if types {
        down["text"] = json!(text);
        down["unmodifiedText"] = json!(text);
    }
    events.push(down);
    events.push(json!({ "type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits }));
    for (key, code, key_code, _) in modifiers.iter().rev() {
        bits &= !modifier_bit(key).unwrap_or(0);
        events.push(json!({ "type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits }));
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(spec: &str) -> Vec<String> {
        key_events(spec)
            .unwrap_or_default()
            .iter()
            .map(|e| format!("{}:{}:{}", e["type"].as_str().unwrap_or(""), e["key"].as_str().unwrap_or(""), e["modifiers"]))
            .collect()
    }

    #[test]
    fn enter_types_a_carriage_return_and_a_letter_its_own_text() {
        let e = key_events("Enter").unwrap_or_default();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0]["text"], "\r");
        assert_eq!(e[0]["windowsVirtualKeyCode"], 13);
        let a = key_events("a").unwrap_or_default();
        assert_eq!((a[0]["code"].as_str(), a[0]["text"].as_str()), (Some("KeyA"), Some("a")));
    }

    #[test]
    fn a_chord_presses_modifiers_in_order_and_releases_them_in_reverse() {
        assert_eq!(
            kinds("Control+Shift+a"),
            vec!["rawKeyDown:Control:2", "rawKeyDown:Shift:10", "rawKeyDown:a:10", "keyUp:a:10", "keyUp:Shift:2", "keyUp:Control:0"]
        );
        // Shift alone still types.
        assert_eq!(key_events("Shift+A").unwrap_or_default()[1]["text"], "A");
        assert_eq!(kinds("ctrl++")[1], "rawKeyDown:+:2");
    }

    #[test]
    fn aliases_and_function_keys_resolve_and_unknown_names_are_invalid_input() {
        assert_eq!(kinds("esc")[0], "rawKeyDown:Escape:0");
        assert_eq!(kinds("ArrowDown")[0], "rawKeyDown:ArrowDown:0");
        assert_eq!(key_events("F5").unwrap_or_default()[0]["windowsVirtualKeyCode"], 116);
        for bad in ["", "Enterr", "a+b", "Control+", "x".repeat(70).as_str()] {
            assert_eq!(key_events(bad).err().map(|e| e.code), Some(ErrorCode::InvalidInput), "{bad:?}");
        }
    }
}
