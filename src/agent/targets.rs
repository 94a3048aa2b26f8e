//! `observeProviderTargets` matching and `rankTargetCandidates` ordering.
//!
//! Names are JS RegExps (or strings, matched as case-insensitive substrings).
//! Patterns [`crate::compat::js_regex`] cannot translate exactly are tested through a
//! [`JsTester`], which the binding backs with the caller's own RegExp objects.

use crate::compat::js_regex::{has_astral_or_replacement, translate, Translation};

/// A name pattern as the JS layer describes it.
#[derive(Debug, Clone)]
pub enum PatternSpec {
    /// A RegExp; `id` is its index in the JS-side list, for deferred evaluation.
    RegExp { id: u32, source: String, flags: String },
    /// A string: case-insensitive substring.
    Substring(String),
    /// Something that is neither (never matches, like `pattern.test?.()` on a non-RegExp).
    Never,
}

pub trait JsTester {
    fn test(&mut self, pattern_id: u32, subject: &str) -> bool;
}

enum Compiled {
    Native { regex: regex::Regex, sensitive: bool, id: u32 },
    Js(u32),
    Substring(String),
    Never,
}

pub struct Pattern(Compiled);

impl Pattern {
    pub fn compile(spec: &PatternSpec) -> Pattern {
        Pattern(match spec {
            PatternSpec::RegExp { id, source, flags } => match translate(source, flags) {
                Translation::Native { regex, surrogate_sensitive } => Compiled::Native { regex, sensitive: surrogate_sensitive, id: *id },
                Translation::Js => Compiled::Js(*id),
            },
            PatternSpec::Substring(s) => Compiled::Substring(s.to_lowercase()),
            PatternSpec::Never => Compiled::Never,
        })
    }

    /// Whether this pattern is answered without calling back into JS for every subject.
    pub fn is_native(&self) -> bool {
        !matches!(self.0, Compiled::Js(_))
    }

    pub fn test(&self, subject: &str, js: &mut dyn JsTester) -> bool {
        match &self.0 {
            Compiled::Native { regex, sensitive, id } => {
                if *sensitive && has_astral_or_replacement(subject) {
                    js.test(*id, subject)
                } else {
                    regex.is_match(subject)
                }
            }
            Compiled::Js(id) => js.test(*id, subject),
            Compiled::Substring(s) => subject.to_lowercase().contains(s.as_str()),
            Compiled::Never => false,
        }
    }
}

pub fn any_matches(patterns: &[Pattern], subject: &str, js: &mut dyn JsTester) -> bool {
    patterns.iter().any(|p| p.test(subject, js))
}

pub struct Target {
    pub roles: Vec<String>,
    pub names: Vec<Pattern>,
    pub exclude_names: Vec<Pattern>,
    pub required: bool,
}

pub struct RefView<'a> {
    pub role: &'a str,
    pub name: &'a str,
}

/// The confidence of a snapshot ref for a target, or None when it does not qualify.
pub fn score_ref(target: &Target, r: &RefView, js: &mut dyn JsTester) -> Option<f64> {
    if !target.roles.is_empty() && !target.roles.iter().any(|x| x == r.role) {
        return None;
    }
    if any_matches(&target.exclude_names, r.name, js) {
        return None;
    }
    let name_hit = !target.names.is_empty() && any_matches(&target.names, r.name, js);
    if !target.names.is_empty() && !name_hit {
        return None;
    }
    let mut score = 0.0;
    if target.roles.iter().any(|x| x == r.role) {
        score += 2.0;
    }
    if name_hit {
        score += 2.0;
    }
    if target.required {
        score += 1.0;
    }
    Some(score)
}

pub struct RankInput {
    pub confidence: f64,
    pub role: Option<String>,
    pub name: String,
    pub is_snapshot_ref: bool,
}

/// Indices of `candidates` in ranked order (stable, highest score first).
pub fn rank(candidates: &[RankInput], expected_role: Option<&str>, expected_names: &[Pattern], js: &mut dyn JsTester) -> Vec<u32> {
    let scores: Vec<f64> = candidates
        .iter()
        .map(|c| {
            let mut s = c.confidence;
            if expected_role.is_some() && c.role.as_deref() == expected_role {
                s += 2.0;
            }
            if any_matches(expected_names, &c.name, js) {
                s += 1.0;
            }
            if c.is_snapshot_ref {
                s += 0.5;
            }
            s
        })
        .collect();
    let mut order: Vec<u32> = (0..candidates.len() as u32).collect();
    // NaN compares equal, like a comparator returning NaN in Array#sort.
    order.sort_by(|&a, &b| scores[b as usize].partial_cmp(&scores[a as usize]).unwrap_or(std::cmp::Ordering::Equal));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoJs;
    impl JsTester for NoJs {
        fn test(&mut self, _: u32, _: &str) -> bool {
            panic!("unexpected JS call")
        }
    }

    struct Lookahead;
    impl JsTester for Lookahead {
        fn test(&mut self, _: u32, subject: &str) -> bool {
            subject.contains("send") && !subject.contains("sender")
        }
    }

    fn re(id: u32, s: &str) -> Pattern {
        Pattern::compile(&PatternSpec::RegExp { id, source: s.into(), flags: "i".into() })
    }

    #[test]
    fn scores_role_name_and_required() {
        let t = Target { roles: vec!["textbox".into()], names: vec![re(0, "message")], exclude_names: vec![re(1, "search")], required: true };
        assert_eq!(score_ref(&t, &RefView { role: "textbox", name: "Message ChatGPT" }, &mut NoJs), Some(5.0));
        assert_eq!(score_ref(&t, &RefView { role: "textbox", name: "Search messages" }, &mut NoJs), None);
        assert_eq!(score_ref(&t, &RefView { role: "button", name: "Message" }, &mut NoJs), None);
    }

    #[test]
    fn untranslatable_patterns_go_to_js() {
        let p = re(3, "send(?!er)");
        assert!(!p.is_native());
        assert!(p.test("send it", &mut Lookahead));
        assert!(!p.test("sender", &mut Lookahead));
        let s = Pattern::compile(&PatternSpec::Substring("SeNd".into()));
        assert!(s.test("Press send", &mut NoJs));
    }

    #[test]
    fn rank_is_stable_and_descending() {
        let c = |conf: f64, role: &str, snap: bool| RankInput { confidence: conf, role: Some(role.into()), name: String::new(), is_snapshot_ref: snap };
        let cands = vec![c(2.0, "x", false), c(2.0, "x", false), c(1.0, "button", false), c(2.0, "x", true)];
        assert_eq!(rank(&cands, Some("button"), &[], &mut NoJs), vec![2, 3, 0, 1]);
    }
}
