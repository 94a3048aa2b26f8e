//! Is the element a ref points at still the one the snapshot showed? The
//! verdict and the messages an agent gets (seed 000, stale references).

use crate::compat::js_string::{json_quote, normalize_name};
use crate::tree::roles;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// Same role, a small text change (a counter, case, a few words): usable.
    Minor {
        note: String,
    },
    Changed {
        message: String,
    },
}

const NOTE: &str = "Note: Element may have changed. Using current state.";

fn label(role: &str, name: &str) -> String {
    if name.is_empty() {
        role.to_string()
    } else {
        format!("{role} {}", json_quote(name))
    }
}

/// Letters and digits only, lower case: what survives a cosmetic change.
fn folded(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit())).map(str::to_lowercase).collect()
}

fn minor_text_change(was: &str, now: &str) -> bool {
    if was.is_empty() || now.is_empty() {
        return true;
    }
    let (a, b) = (folded(was), folded(now));
    if a == b {
        return true;
    }
    // Only digits changed: "Cart (2)" → "Cart (3)".
    let strip = |s: &str| s.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
    if !strip(&a).is_empty() && strip(&a) == strip(&b) {
        return true;
    }
    let (wa, wb) = (words(was), words(now));
    if wa.is_empty() || wb.is_empty() {
        return false;
    }
    let shared = wa.iter().filter(|w| wb.contains(w)).count();
    // Most words kept: "Send message" → "Send message now".
    shared * 2 >= wa.len().max(wb.len())
}

/// Compare the element as the snapshot saw it with what the page reports now.
/// Roles are Chrome's or ARIA names; names are normalised like snapshot names.
pub fn compare(was_role: &str, was_name: &str, now_role: &str, now_name: &str) -> Verdict {
    let was_role = roles::aria_role(was_role);
    let now_role = roles::aria_role(now_role);
    let was_name = normalize_name(was_name, usize::MAX);
    let now_name = normalize_name(now_name, usize::MAX);
    if was_role == now_role && was_name == now_name {
        return Verdict::Same;
    }
    if was_role == now_role && minor_text_change(&was_name, &now_name) {
        return Verdict::Minor { note: NOTE.to_string() };
    }
    Verdict::Changed {
        message: format!(
            "Element changed since snapshot. Was: {}, Now: {}. Take a new snapshot to get current element state.",
            label(was_role, &was_name),
            label(now_role, &now_name)
        ),
    }
}

/// The element is gone from the page.
pub fn gone_message(role: &str, name: &str, ref_id: &str) -> String {
    let what = if name.is_empty() { roles::aria_role(role).to_string() } else { json_quote(name) };
    format!("Element {what} (ref {ref_id}) no longer exists. Take a new snapshot.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(compare("button", "Submit", "button", "Submit"), Verdict::Same);
        assert_eq!(compare("button", "Submit", "button", "  submit "), Verdict::Minor { note: NOTE.into() });
        assert_eq!(compare("link", "Cart (2)", "link", "Cart (3)"), Verdict::Minor { note: NOTE.into() });
        assert_eq!(compare("button", "Send message", "button", "Send message now"), Verdict::Minor { note: NOTE.into() });
        assert_eq!(compare("StaticText", "x", "text", "x"), Verdict::Same, "Chrome role names are read as ARIA names");
        assert_eq!(
            compare("button", "Submit", "button", "Loading..."),
            Verdict::Changed {
                message:
                    "Element changed since snapshot. Was: button \"Submit\", Now: button \"Loading...\". Take a new snapshot to get current element state."
                        .into()
            }
        );
        assert!(matches!(compare("button", "Submit", "link", "Submit"), Verdict::Changed { .. }));
    }

    #[test]
    fn gone() {
        assert_eq!(gone_message("button", "Submit", "@e3"), "Element \"Submit\" (ref @e3) no longer exists. Take a new snapshot.");
        assert_eq!(gone_message("button", "", "@e3"), "Element button (ref @e3) no longer exists. Take a new snapshot.");
    }
}
