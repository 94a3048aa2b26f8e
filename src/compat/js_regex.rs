//! JavaScript `RegExp#test` semantics, reproduced with the `regex` crate when
//! that is provably exact and handed back to JavaScript when it is not.
//!
//! Only a conservative subset is translated: literals, ASCII case folding,
//! classes, `\d \w \s \b`, groups, alternation and greedy/lazy quantifiers.
//! Lookaround, backreferences, `u`/`v`/`g`/`y` flags, `m` with anchors and any
//! escape whose Annex-B meaning is unusual are reported as [`Translation::Js`],
//! and the caller evaluates them with the real JS RegExp. Patterns that can
//! match a single UTF-16 unit (`.`, negated classes, `\D \W \S`) are marked
//! surrogate-sensitive: JS sees an astral character as two units, so subjects
//! containing one are also evaluated in JS.

use regex::Regex;

pub enum Translation {
    Native { regex: Regex, surrogate_sensitive: bool },
    Js,
}

const JS_WS: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

pub fn translate(source: &str, flags: &str) -> Translation {
    let mut ignore_case = false;
    let mut dot_all = false;
    let mut multiline = false;
    for f in flags.chars() {
        match f {
            'i' => ignore_case = true,
            's' => dot_all = true,
            'm' => multiline = true,
            'd' => {}
            _ => return Translation::Js,
        }
    }
    let mut t = Translator { chars: source.chars().collect(), pos: 0, out: String::new(), ignore_case, dot_all, sensitive: false };
    if t.run().is_none() {
        return Translation::Js;
    }
    if multiline && (source.contains('^') || source.contains('$')) {
        return Translation::Js;
    }
    match Regex::new(&t.out) {
        Ok(regex) => Translation::Native { regex, surrogate_sensitive: t.sensitive },
        Err(_) => Translation::Js,
    }
}

/// Does `subject` need JS evaluation for a surrogate-sensitive pattern?
pub fn has_astral_or_replacement(subject: &str) -> bool {
    subject.chars().any(|c| c as u32 > 0xFFFF || c == '\u{FFFD}')
}

struct Translator {
    chars: Vec<char>,
    pos: usize,
    out: String,
    ignore_case: bool,
    dot_all: bool,
    sensitive: bool,
}

fn push_char_escaped(out: &mut String, c: char) {
    out.push_str(&format!("\\x{{{:X}}}", c as u32));
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn literal(&mut self, c: char) -> Option<()> {
        if c as u32 > 0xFFFF {
            return None;
        }
        if self.ignore_case && !c.is_ascii() {
            return None;
        }
        if self.ignore_case && c.is_ascii_alphabetic() {
            self.out.push('[');
            self.out.push(c.to_ascii_lowercase());
            self.out.push(c.to_ascii_uppercase());
            self.out.push(']');
        } else {
            push_char_escaped(&mut self.out, c);
        }
        Some(())
    }

    fn run(&mut self) -> Option<()> {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\\' => self.escape()?,
                '[' => self.class()?,
                '(' => {
                    if self.peek() == Some('?') {
                        let next = self.chars.get(self.pos + 1).copied();
                        match next {
                            Some(':') => self.pos += 2,
                            Some('<') if !matches!(self.chars.get(self.pos + 2), Some('=') | Some('!')) => {
                                // Named group: only `.test()` matters, so capture nothing.
                                let close = self.chars[self.pos..].iter().position(|&c| c == '>')?;
                                self.pos += close + 1;
                            }
                            _ => return None,
                        }
                    }
                    depth += 1;
                    self.out.push_str("(?:");
                }
                ')' => {
                    depth = depth.checked_sub(1)?;
                    self.out.push(')');
                }
                '|' => self.out.push('|'),
                '^' => self.out.push('^'),
                '$' => self.out.push('$'),
                '.' => {
                    self.sensitive = true;
                    if self.dot_all {
                        self.out.push_str("(?s:.)");
                    } else {
                        self.out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                    }
                }
                '*' | '+' | '?' => {
                    self.out.push(c);
                    self.lazy();
                }
                '{' => {
                    if let Some(q) = self.quantifier_braces() {
                        self.out.push_str(&q);
                        self.lazy();
                    } else {
                        self.literal('{')?;
                    }
                }
                other => self.literal(other)?,
            }
        }
        if depth != 0 {
            return None;
        }
        Some(())
    }

    fn lazy(&mut self) {
        if self.peek() == Some('?') {
            self.pos += 1;
            self.out.push('?');
        }
    }

    /// `{n}`, `{n,}`, `{n,m}` starting after the `{`; anything else is a literal brace in JS.
    fn quantifier_braces(&mut self) -> Option<String> {
        let rest: String = self.chars[self.pos..].iter().take_while(|&&c| c != '}').collect();
        if self.pos + rest.chars().count() >= self.chars.len() {
            return None;
        }
        let (lo, hi) = match rest.split_once(',') {
            Some((lo, hi)) => (lo, Some(hi)),
            None => (rest.as_str(), None),
        };
        if lo.is_empty() || !lo.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if let Some(h) = hi {
            if !h.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
        }
        self.pos += rest.chars().count() + 1;
        Some(format!("{{{rest}}}"))
    }

    fn escape(&mut self) -> Option<()> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            'd' => self.out.push_str("[0-9]"),
            'D' => {
                self.sensitive = true;
                self.out.push_str("[^0-9]")
            }
            'w' => self.out.push_str("[0-9A-Za-z_]"),
            'W' => {
                self.sensitive = true;
                self.out.push_str("[^0-9A-Za-z_]")
            }
            's' => self.out.push_str(&format!("[{JS_WS}]")),
            'S' => {
                self.sensitive = true;
                self.out.push_str(&format!("[^{JS_WS}]"))
            }
            'b' => self.out.push_str(r"(?-u:\b)"),
            'B' => self.out.push_str(r"(?-u:\B)"),
            _ => {
                let lit = self.escaped_literal(c)?;
                self.literal(lit)?;
            }
        }
        Some(())
    }

    /// The character an escape outside `\d\w\s\b` stands for, or None when
    /// its JS meaning is one we do not translate.
    fn escaped_literal(&mut self, c: char) -> Option<char> {
        Some(match c {
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'v' => '\u{0B}',
            'f' => '\u{0C}',
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => '\0',
            'x' => {
                let h: String = self.chars.get(self.pos..self.pos + 2)?.iter().collect();
                let v = u32::from_str_radix(&h, 16).ok()?;
                if !h.chars().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                self.pos += 2;
                char::from_u32(v)?
            }
            'u' => {
                let h: String = self.chars.get(self.pos..self.pos + 4)?.iter().collect();
                if !h.chars().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                let v = u32::from_str_radix(&h, 16).ok()?;
                if (0xD800..0xE000).contains(&v) {
                    return None;
                }
                self.pos += 4;
                char::from_u32(v)?
            }
            c if c.is_ascii_alphanumeric() => return None,
            c if c as u32 > 0xFFFF => return None,
            c => c,
        })
    }

    fn class(&mut self) -> Option<()> {
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
            self.sensitive = true;
        }
        let mut items: Vec<String> = Vec::new();
        let mut chars_in: Vec<char> = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek()?;
            self.pos += 1;
            if c == ']' {
                break;
            }
            // A class escape (`\d`, `\w`, `\s`) may not be a range endpoint.
            let single: char = if c == '\\' {
                let e = self.peek()?;
                self.pos += 1;
                match e {
                    'd' | 'w' | 's' | 'D' | 'W' | 'S' => {
                        if self.peek() == Some('-') && self.chars.get(self.pos + 1) != Some(&']') {
                            return None;
                        }
                        if e.is_ascii_uppercase() {
                            return None;
                        }
                        items.push(match e {
                            'd' => "0-9".into(),
                            'w' => "0-9A-Za-z_".into(),
                            _ => JS_WS.to_string(),
                        });
                        first = false;
                        continue;
                    }
                    'b' => '\u{08}',
                    '-' => '-',
                    other => self.escaped_literal(other)?,
                }
            } else {
                c
            };
            let _ = first;
            first = false;
            if single as u32 > 0xFFFF || (self.ignore_case && !single.is_ascii()) {
                return None;
            }
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&n| n != ']') {
                self.pos += 1;
                let hi_raw = self.peek()?;
                self.pos += 1;
                let hi = if hi_raw == '\\' {
                    let e = self.peek()?;
                    self.pos += 1;
                    if matches!(e, 'd' | 'w' | 's' | 'D' | 'W' | 'S') {
                        return None;
                    }
                    if e == 'b' { '\u{08}' } else { self.escaped_literal(e)? }
                } else {
                    hi_raw
                };
                if hi < single || hi as u32 > 0xFFFF || (self.ignore_case && !hi.is_ascii()) {
                    return None;
                }
                if self.ignore_case {
                    for x in single..=hi {
                        chars_in.push(x);
                    }
                } else {
                    items.push(format!("\\x{{{:X}}}-\\x{{{:X}}}", single as u32, hi as u32));
                }
            } else {
                chars_in.push(single);
            }
        }
        for c in chars_in {
            if self.ignore_case && c.is_ascii_alphabetic() {
                items.push(format!("{}{}", c.to_ascii_lowercase(), c.to_ascii_uppercase()));
            } else {
                items.push(format!("\\x{{{:X}}}", c as u32));
            }
        }
        if items.is_empty() {
            // `[]` matches nothing and `[^]` anything in JS; rare enough to defer.
            return None;
        }
        self.out.push('[');
        if negated {
            self.out.push('^');
        }
        for it in items {
            self.out.push_str(&it);
        }
        self.out.push(']');
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(src: &str, flags: &str) -> Regex {
        match translate(src, flags) {
            Translation::Native { regex, .. } => regex,
            Translation::Js => panic!("expected a native translation of /{src}/{flags}"),
        }
    }

    fn is_js(src: &str, flags: &str) -> bool {
        matches!(translate(src, flags), Translation::Js)
    }

    #[test]
    fn translates_the_contract_patterns() {
        let r = native("^(Instant|Medium|High|Extra High|Pro)$", "i");
        assert!(r.is_match("extra high"));
        assert!(!r.is_match("Extra High mode"));
        let r = native(r"^(GPT-5\.6 Sol|GPT-5\.5|GPT-5\.4|GPT-5\.3|o3)$", "i");
        assert!(r.is_match("gpt-5.5"));
        assert!(!r.is_match("GPT-555"));
        assert!(native("send", "i").is_match("SEND message"));
    }

    #[test]
    fn ignore_case_is_ascii_only_like_javascript() {
        // JS: /s/i does not match U+017F (long s); Unicode folding would.
        let r = native("s", "i");
        assert!(!r.is_match("\u{17F}"));
        assert!(!native("k", "i").is_match("\u{212A}"));
        assert!(native("[a-c]", "i").is_match("B"));
        assert!(!native("[^a]", "i").is_match("A"));
    }

    #[test]
    fn classes_use_javascript_definitions() {
        assert!(!native(r"\w", "").is_match("é"));
        assert!(native(r"\s", "").is_match("\u{FEFF}"));
        assert!(!native(r"\s", "").is_match("\u{85}"));
        assert!(native(r"\bsend\b", "").is_match("é send"));
        assert!(native(r"a{", "").is_match("a{"));
        assert!(native(r"a{2}", "").is_match("aa"));
        assert!(native(r"[\b]", "").is_match("\u{8}"));
    }

    #[test]
    fn defers_what_it_cannot_express() {
        for (src, flags) in [
            ("(?=a)", ""),
            ("(?<!a)b", ""),
            (r"(a)\1", ""),
            ("a", "g"),
            ("a", "y"),
            ("a", "u"),
            ("^a", "m"),
            ("é", "i"),
            ("😀", ""),
            (r"\p{L}", ""),
            ("[]", ""),
            (r"\cA", ""),
        ] {
            assert!(is_js(src, flags), "/{src}/{flags} should be evaluated in JS");
        }
    }

    #[test]
    fn marks_surrogate_sensitive_patterns() {
        assert!(matches!(translate("^.$", ""), Translation::Native { surrogate_sensitive: true, .. }));
        assert!(matches!(translate("^a$", ""), Translation::Native { surrogate_sensitive: false, .. }));
        assert!(has_astral_or_replacement("x😀"));
    }
}
