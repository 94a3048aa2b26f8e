//! `observeProviderTargets` matching and `rankTargetCandidates` ordering.
//!
//! Names are JS RegExps (or strings, matched as case-insensitive
//! substrings). RegExps are run by `regress`, an ECMAScript engine, on the
//! subject's UTF-16 code units, as JavaScript runs them: the same matches,
//! lookaround and backreferences included, with no call back into JS.

use crate::error::{ErrorCode, WebAiError};

/// A name pattern as the JS layer describes it.
#[derive(Debug, Clone)]
pub enum PatternSpec {
    /// A RegExp's `source` and `flags`.
    RegExp { source: String, flags: String },
    /// A string: case-insensitive substring.
    Substring(String),
    /// Something that is neither (never matches, like `pattern.test?.()` on a non-RegExp).
    Never,
}

/// Code points that JavaScript's case-insensitive matching without `u`
/// keeps apart from their Unicode case-fold partners (`Canonicalize` there
/// is `toUpperCase`, and a non-ASCII character never becomes ASCII), while
/// regress folds them together (`/s/i` matching "ſ"). In that mode they are
/// swapped for noncharacters, in the subject and in the pattern's literal
/// text alike, so each still matches itself and nothing else.
const FOLD_APART: [(char, char); 5] =
    [('\u{017F}', '\u{FDD0}'), ('\u{212A}', '\u{FDD1}'), ('\u{212B}', '\u{FDD2}'), ('\u{2126}', '\u{FDD3}'), ('\u{1E9E}', '\u{FDD4}')];

fn keep_apart(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(|c| FOLD_APART.iter().any(|(from, _)| *from == c)) {
        text.chars().map(|c| FOLD_APART.iter().find(|(from, _)| *from == c).map_or(c, |(_, to)| *to)).collect::<String>().into()
    } else {
        text.into()
    }
}

enum Compiled {
    Regex { regex: regress::Regex, unicode: bool, sticky: bool, legacy_fold: bool },
    Substring(String),
    Never,
}

pub struct Pattern(Compiled);

impl Pattern {
    /// Compile a pattern. A RegExp JavaScript accepted and `regress` cannot
    /// read is an error, never an approximation.
    pub fn compile(spec: &PatternSpec) -> Result<Pattern, WebAiError> {
        Ok(Pattern(match spec {
            PatternSpec::RegExp { source, flags } => {
                // `g` and `y` make a JS RegExp stateful (`lastIndex`); a first
                // `test` searches from 0, and `y` only there. `d` adds indices.
                let engine_flags: String = flags.chars().filter(|f| matches!(f, 'i' | 'm' | 's' | 'u' | 'v')).collect();
                let unicode = flags.contains('u') || flags.contains('v');
                let legacy_fold = flags.contains('i') && !unicode;
                let pattern = if legacy_fold { keep_apart(source) } else { source.into() };
                let regex = regress::Regex::with_flags(&pattern, engine_flags.as_str()).map_err(|e| {
                    WebAiError::new(ErrorCode::InvalidInput, format!("the name pattern /{source}/{flags} cannot be evaluated: {e}"))
                        .with_evidence(serde_json::json!({ "what": "pattern", "source": source, "flags": flags }))
                })?;
                Compiled::Regex { regex, unicode, sticky: flags.contains('y'), legacy_fold }
            }
            PatternSpec::Substring(s) => Compiled::Substring(s.to_lowercase()),
            PatternSpec::Never => Compiled::Never,
        }))
    }

    pub fn test(&self, subject: &str) -> bool {
        match &self.0 {
            Compiled::Regex { regex, unicode, sticky, legacy_fold } => {
                let subject = if *legacy_fold { keep_apart(subject) } else { subject.into() };
                let units: Vec<u16> = subject.encode_utf16().collect();
                let first = if *unicode { regex.find_from_utf16(&units, 0).next() } else { regex.find_from_ucs2(&units, 0).next() };
                // Sticky: only a match at lastIndex (0) counts; the leftmost
                // match starts there whenever one does.
                first.is_some_and(|m| !*sticky || m.start() == 0)
            }
            Compiled::Substring(s) => subject.to_lowercase().contains(s.as_str()),
            Compiled::Never => false,
        }
    }
}

pub fn any_matches(patterns: &[Pattern], subject: &str) -> bool {
    patterns.iter().any(|p| p.test(subject))
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
pub fn score_ref(target: &Target, r: &RefView) -> Option<f64> {
    if !target.roles.is_empty() && !target.roles.iter().any(|x| x == r.role) {
        return None;
    }
    if any_matches(&target.exclude_names, r.name) {
        return None;
    }
    let name_hit = !target.names.is_empty() && any_matches(&target.names, r.name);
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
pub fn rank(candidates: &[RankInput], expected_role: Option<&str>, expected_names: &[Pattern]) -> Vec<u32> {
    let scores: Vec<f64> = candidates
        .iter()
        .map(|c| {
            let mut s = c.confidence;
            if expected_role.is_some() && c.role.as_deref() == expected_role {
                s += 2.0;
            }
            if any_matches(expected_names, &c.name) {
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

    fn re(s: &str, flags: &str) -> Pattern {
        Pattern::compile(&PatternSpec::RegExp { source: s.into(), flags: flags.into() }).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn scores_role_name_and_required() {
        let t = Target { roles: vec!["textbox".into()], names: vec![re("message", "i")], exclude_names: vec![re("search", "i")], required: true };
        assert_eq!(score_ref(&t, &RefView { role: "textbox", name: "Message ChatGPT" }), Some(5.0));
        assert_eq!(score_ref(&t, &RefView { role: "textbox", name: "Search messages" }), None);
        assert_eq!(score_ref(&t, &RefView { role: "button", name: "Message" }), None);
    }

    #[test]
    fn patterns_have_javascript_semantics() {
        // Lookahead and backreferences, which the `regex` crate lacks.
        assert!(re("send(?!er)", "i").test("Send it"));
        assert!(!re("send(?!er)", "i").test("sender"));
        assert!(re("(a)\\1", "").test("xaa"));
        // Without `u`, `.` is one UTF-16 unit: an astral character is two.
        assert!(re("^.$", "").test("a"));
        assert!(!re("^.$", "").test("😀"));
        assert!(re("^..$", "").test("😀"));
        assert!(re("^.$", "u").test("😀"));
        // `\s` is JavaScript's whitespace (U+FEFF in), `\w` ASCII only.
        assert!(re("^\\s$", "").test("\u{FEFF}"));
        assert!(!re("^\\w$", "").test("é"));
        // Without `u`, `i` folds by toUpperCase: "ſ" and the Kelvin sign stay apart from s and k.
        assert!(!re("send", "i").test("ſend"));
        assert!(re("send", "iu").test("ſend"));
        assert!(re("ſend", "i").test("ſEND"));
        assert!(!re("k", "i").test("\u{212A}"));
        // Sticky: a first test matches only at 0.
        assert!(re("foo", "y").test("foobar"));
        assert!(!re("foo", "y").test("a foo"));
        assert!(re("foo", "g").test("a foo"));
        let s = Pattern::compile(&PatternSpec::Substring("SeNd".into())).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.test("Press send"));
    }

    #[test]
    fn a_pattern_the_engine_cannot_read_is_invalid_input() {
        let e = Pattern::compile(&PatternSpec::RegExp { source: "(".into(), flags: String::new() }).err().map(|e| e.code.code());
        assert_eq!(e, Some("snapshot.invalid-input"));
    }

    #[test]
    fn rank_is_stable_and_descending() {
        let c = |conf: f64, role: &str, snap: bool| RankInput { confidence: conf, role: Some(role.into()), name: String::new(), is_snapshot_ref: snap };
        let cands = vec![c(2.0, "x", false), c(2.0, "x", false), c(1.0, "button", false), c(2.0, "x", true)];
        assert_eq!(rank(&cands, Some("button"), &[]), vec![2, 3, 0, 1]);
    }
}
