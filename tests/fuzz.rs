//! Time-bounded fuzzing on the stable toolchain (proptest drives the
//! mutations and shrinks a failure to its smallest reproduction).
//!
//! Each target starts from a corpus seeded from the recorded fixtures
//! (`fuzz/corpus/<target>/`, `node scripts/seed-fuzz-corpus.mjs`), replays
//! every earlier finding (`fuzz/regressions/<target>/`), then mutates corpus
//! inputs for `FUZZ_SECONDS` seconds (default 1, for a developer's `npm test`;
//! `.ci/run` gives each 20):
//! byte flips, cuts, insertions of JSON tokens, duplicated spans, and
//! structural edits (a value replaced by a hostile one or by another part of
//! the same document, which makes cycles and shared children). A target
//! fails on a panic or on one input taking longer than `HANG`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;
use web_ai_snapshot::readers;
use web_ai_snapshot::{
    build_snapshot, capture_with, compare_snapshots, CdpCall, CdpReply, CdpTransport, PageFacts, RefMemory, ReplyFuture, Side, SnapshotOptions,
};

/// One input taking this long is a hang.
const HANG: Duration = Duration::from_secs(5);

fn seconds() -> u64 {
    std::env::var("FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

fn dir_texts(dir: &PathBuf) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), std::fs::read_to_string(&p).ok()?)))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn corpus(target: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let texts: Vec<String> = dir_texts(&dir).into_iter().map(|(_, t)| t).collect();
    assert!(!texts.is_empty(), "fuzz/corpus/{target} is empty: run node scripts/seed-fuzz-corpus.mjs");
    texts
}

fn regressions(target: &str) -> Vec<(String, String)> {
    dir_texts(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(target))
}

/// Text a mutation can insert: JSON's own tokens and the values that break
/// careless readers.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "true",
    "-1",
    "0",
    "1e309",
    "-0",
    "9007199254740993",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "{\"nodeId\":\"1\",\"childIds\":[\"1\"]}",
    "[[[[[[[[[[[[[[[[",
    "]]]]]]]]",
    "\"role\"",
    "\"backendDOMNodeId\"",
    "\"childIds\"",
    "\"nodes\"",
    "\"documents\"",
    "\"strings\"",
    "\"parentIndex\"",
    "\"shadowRoots\"",
    "\"children\"",
    "\u{1F600}",
    "\u{202E}",
    "\u{FEFF}",
];

/// Values a structural edit can put anywhere.
fn hostile(k: usize) -> Value {
    match k % 14 {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => serde_json::json!(-1),
        3 => serde_json::json!(1.0e308),
        4 => serde_json::json!(u64::MAX),
        5 => serde_json::json!(""),
        6 => serde_json::json!("x".repeat(200_000)),
        7 => serde_json::json!([]),
        8 => serde_json::json!({}),
        9 => serde_json::json!(i64::MIN),
        10 => serde_json::json!("\u{0}\u{FFFF}\u{10FFFF}"),
        11 => serde_json::json!([1, 2, 3]),
        12 => serde_json::json!({ "value": { "type": "computedString" } }),
        // Deep nesting, put in as text after serialising (see `deep`): a
        // `Value` that deep would overflow this harness's own stack.
        _ => serde_json::json!(DEEP_MARK),
    }
}

const DEEP_MARK: &str = "\u{1}deep\u{1}";

/// Readers must walk 20,000 levels of nesting without recursion.
fn deep(text: String) -> String {
    let marked = serde_json::to_string(DEEP_MARK).unwrap_or_default();
    if !text.contains(&marked) {
        return text;
    }
    text.replacen(&marked, &format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)), 1)
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip {
        at: f64,
        byte: u8,
    },
    Delete {
        at: f64,
        len: u16,
    },
    Insert {
        at: f64,
        token: usize,
    },
    Truncate {
        at: f64,
    },
    Duplicate {
        at: f64,
        len: u16,
    },
    /// Replace the `at`-th JSON value (in a walk of the document) by a hostile one.
    Replace {
        at: f64,
        with: usize,
    },
    /// Copy one part of the document over another (cycles, shared children).
    Copy {
        from: f64,
        to: f64,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0.0..1.0f64;
    prop_oneof![
        (at.clone(), any::<u8>()).prop_map(|(at, byte)| Mutation::Flip { at, byte }),
        (at.clone(), 1..64u16).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (at.clone(), 0..TOKENS.len()).prop_map(|(at, token)| Mutation::Insert { at, token }),
        at.clone().prop_map(|at| Mutation::Truncate { at }),
        (at.clone(), 1..512u16).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (at.clone(), 0..14usize).prop_map(|(at, with)| Mutation::Replace { at, with }),
        (at.clone(), at).prop_map(|(from, to)| Mutation::Copy { from, to }),
    ]
}

fn index(at: f64, len: usize) -> usize {
    ((at * len as f64) as usize).min(len)
}

/// Paths to every value of `v`, walked with an explicit stack.
fn value_paths(v: &Value) -> Vec<Vec<PathStep>> {
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<PathStep>, &Value)> = vec![(Vec::new(), v)];
    while let Some((path, node)) = stack.pop() {
        match node {
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| stack.push(([path.clone(), vec![PathStep::I(i)]].concat(), c))),
            Value::Object(o) => o.iter().for_each(|(k, c)| stack.push(([path.clone(), vec![PathStep::K(k.clone())]].concat(), c))),
            _ => {}
        }
        out.push(path);
        if out.len() > 20_000 {
            break;
        }
    }
    out
}

#[derive(Debug, Clone)]
enum PathStep {
    I(usize),
    K(String),
}

fn at_path<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    let mut cur = v;
    for step in path {
        cur = match step {
            PathStep::I(i) => cur.get_mut(*i)?,
            PathStep::K(k) => cur.get_mut(k.as_str())?,
        };
    }
    Some(cur)
}

fn structural(text: &str, m: &Mutation) -> Option<String> {
    let mut v: Value = serde_json::from_str(text).ok()?;
    let paths = value_paths(&v);
    match m {
        Mutation::Replace { at, with } => {
            let p = paths.get(index(*at, paths.len().saturating_sub(1)))?.clone();
            *at_path(&mut v, &p)? = hostile(*with);
        }
        Mutation::Copy { from, to } => {
            let src = paths.get(index(*from, paths.len().saturating_sub(1)))?.clone();
            let dst = paths.get(index(*to, paths.len().saturating_sub(1)))?.clone();
            let copied = at_path(&mut v, &src)?.clone();
            *at_path(&mut v, &dst)? = copied;
        }
        _ => return None,
    }
    Some(deep(v.to_string()))
}

fn apply(seed: &str, muts: &[Mutation]) -> String {
    let mut text = seed.to_string();
    for m in muts {
        if let Some(t) = structural(&text, m) {
            text = t;
            continue;
        }
        let mut b = text.into_bytes();
        let n = b.len();
        match m {
            Mutation::Flip { at, byte } => {
                if n > 0 {
                    let i = index(*at, n - 1);
                    b[i] = *byte;
                }
            }
            Mutation::Delete { at, len } => {
                let i = index(*at, n);
                let j = (i + *len as usize).min(n);
                b.drain(i..j);
            }
            Mutation::Insert { at, token } => {
                let i = index(*at, n);
                b.splice(i..i, TOKENS[*token].bytes());
            }
            Mutation::Truncate { at } => b.truncate(index(*at, n)),
            Mutation::Duplicate { at, len } => {
                let i = index(*at, n);
                let j = (i + *len as usize).min(n);
                let span = b[i..j].to_vec();
                b.splice(j..j, span);
            }
            Mutation::Replace { .. } | Mutation::Copy { .. } => {}
        }
        text = String::from_utf8_lossy(&b).into_owned();
    }
    text
}

static CASES: AtomicU64 = AtomicU64::new(0);

/// Run `target` on every regression and corpus input, then on mutations of
/// the corpus until the time is up.
fn fuzz(name: &str, target: impl Fn(&str)) {
    fuzz_as(name, name, target)
}

/// [`fuzz`] under another label, on `name`'s corpus and regressions.
fn fuzz_as(label: &str, name: &str, target: impl Fn(&str)) {
    let run = |input: &str| {
        let started = Instant::now();
        target(input);
        started.elapsed()
    };
    for (file, text) in regressions(name) {
        let took = run(&text);
        assert!(took < HANG, "fuzz/regressions/{name}/{file} took {took:?}");
    }
    let seeds = corpus(name);
    for s in &seeds {
        run(s);
    }
    let mut runner = TestRunner::new(Config { failure_persistence: None, cases: u32::MAX, ..Config::default() });
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..6));
    let end = Instant::now() + Duration::from_secs(seconds());
    let mut cases = 0u64;
    while Instant::now() < end {
        let tree = strategy.new_tree(&mut runner).expect("a case");
        let result = runner.run_one(tree, |(seed, muts)| {
            let input = apply(&seeds[seed], &muts);
            let took = run(&input);
            prop_assert!(took < HANG, "one input took {:?}", took);
            Ok(())
        });
        if let Err(e) = result {
            panic!("fuzz target {label} failed; the smallest reproduction (seed index, mutations) is {e}\nSave the mutated input under fuzz/regressions/{name}/ once fixed.");
        }
        cases += 1;
    }
    CASES.fetch_add(cases, Ordering::Relaxed);
    eprintln!("fuzz {label}: {} seeds, {cases} mutated inputs, 0 crashes, 0 hangs", seeds.len());
}

fn option_sets() -> Vec<SnapshotOptions> {
    [
        serde_json::json!({}),
        serde_json::json!({ "interactiveOnly": false, "maxDepth": 100, "compact": false }),
        serde_json::json!({ "refsOnly": true, "allRefs": true, "maxNameChars": 5, "redactText": true }),
        serde_json::json!({ "includeElements": true, "maxElements": 3, "activeLayerOnly": true, "untrustedContent": "mark", "maxDepth": 2 }),
        serde_json::json!({ "maxTokens": 50, "urls": true, "untrustedContent": "mark" }),
    ]
    .iter()
    .map(|v| SnapshotOptions::from_value(v).expect("valid options"))
    .collect()
}

#[test]
fn fuzz_ax_tree_reader_and_serializer() {
    let sets = option_sets();
    fuzz("ax_tree", |input| {
        if let Ok(tree) = readers::parse_full_ax_tree(input) {
            for opts in &sets {
                let s = build_snapshot(&tree, None, PageFacts::default(), opts, None, 0.0, &[]);
                let _ = s.to_json();
            }
        }
        let _ = readers::parse_rows(input);
    });
}

#[test]
fn fuzz_session_numbering_revisions_and_deltas() {
    // A session's numbering over whatever tree the input reads as; the
    // snapshot compared with itself (never a change) and with the input
    // taken as snapshot text (page text of any shape), both ways.
    let mut known = rustc_hash::FxHashMap::default();
    for (k, n) in [("#1", 4u32), ("#2", 9), ("#5", 2)] {
        known.insert(k.to_string(), n);
    }
    let opts = option_sets().remove(1);
    let numbering = RefMemory::new(known, 3);
    fuzz_as("delta", "ax_tree", |input| {
        let text = match readers::parse_full_ax_tree(input) {
            Ok(tree) => {
                let s = build_snapshot(&tree, None, PageFacts::default(), &opts, Some(&numbering), 0.0, &[]);
                assert!(s.ref_keys.len() == s.refs.len() && s.next_ref >= 10);
                s.text
            }
            Err(_) => String::new(),
        };
        let same = compare_snapshots(&Side { text: &text, url: None }, &Side { text: &text, url: None }, 1, 2);
        assert!(!same.is_change(), "a snapshot compared with itself changed: {:?}", same.delta.text);
        let _ = compare_snapshots(&Side { text: &text, url: None }, &Side { text: input, url: Some("u") }, 1, 2);
        let _ = compare_snapshots(&Side { text: input, url: None }, &Side { text: &text, url: None }, 1, 2);
    });
}

#[test]
fn fuzz_legacy_tree_reader() {
    let sets = option_sets();
    fuzz("legacy", |input| {
        if let Ok(tree) = readers::parse_legacy_tree(input) {
            let _ = build_snapshot(&tree, None, PageFacts::default(), &sets[1], None, 0.0, &[]).to_json();
        }
    });
}

#[test]
fn fuzz_dom_snapshot_reader() {
    fuzz("dom_snapshot", |input| {
        let _ = readers::read_dom_snapshot(input, false);
        let _ = readers::read_dom_snapshot(input, true);
        // The DOM engine reads the same replies: its tree must serialize, whatever the page sent.
        for style_at in [0, 1] {
            if let Ok(tree) = readers::dom_engine_tree(input, style_at) {
                let _ = build_snapshot(&tree, None, PageFacts::default(), &SnapshotOptions::default(), None, 0.0, &[]).to_json();
            }
        }
        // A session keeps the reply as its mirror and writes it back out, whatever the page sent.
        // (Equality is for Chrome's replies, `incremental::mirror`'s tests: a malformed one's
        // detached nodes are not kept.)
        let _ = readers::mirror_round_trip(input);
    });
}

#[test]
fn fuzz_dom_document_reader_and_selector_builder() {
    fuzz("dom_document", |input| {
        let _ = readers::locate_all_in_document(input);
    });
}

#[test]
fn fuzz_json_readers() {
    fuzz("json", |input| {
        let _ = readers::parse_json_arena(input);
        let _ = readers::read_lossy_json(input);
    });
}

#[test]
fn fuzz_options_with_the_serializer() {
    let tree = readers::parse_full_ax_tree(&corpus("ax_tree")[0]).expect("a recorded tree");
    fuzz("options", |input| {
        let Ok(v) = serde_json::from_str::<Value>(input) else { return };
        if let Ok(opts) = SnapshotOptions::from_value(&v) {
            let _ = build_snapshot(&tree, None, PageFacts::default(), &opts, None, 0.0, &[]).to_json();
        }
    });
}

/// One recorded reply: method, params, result as JSON text.
type Recorded = (String, Value, String);

/// A recording whose reply to one call is replaced by the fuzzed text.
struct Mutated<'a> {
    replies: &'a [Recorded],
    method: &'a str,
    text: &'a str,
}

impl CdpTransport for Mutated<'_> {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        let reply = match self.replies.iter().find(|(m, p, _)| m == call.method && p == call.params) {
            Some((m, _, _)) if m == self.method => CdpReply::Ok(self.text.to_string()),
            Some((_, _, text)) => CdpReply::Ok(text.clone()),
            None => CdpReply::Err(format!("no recorded reply for {}", call.method)),
        };
        Box::pin(async move { reply })
    }
}

#[test]
fn fuzz_the_capture_plan_with_one_reply_mutated() {
    // Each recorded page, each of its calls in turn, gets the fuzzed reply.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded");
    let recordings: Vec<(Value, Vec<Recorded>)> = dir_texts(&dir)
        .into_iter()
        .filter(|(f, _)| f.ends_with(".json"))
        .filter_map(|(_, t)| serde_json::from_str::<Value>(&t).ok())
        .map(|rec| {
            let replies = rec["replies"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| (r["method"].as_str().unwrap_or_default().to_string(), r["params"].clone(), r["result"].to_string()))
                .collect();
            (rec["options"].clone(), replies)
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let pick = AtomicU64::new(0);
    fuzz_as("capture", "json", |input| {
        let k = pick.fetch_add(1, Ordering::Relaxed) as usize;
        let (options, replies) = &recordings[k % recordings.len()];
        let method = replies[(k / recordings.len()) % replies.len()].0.clone();
        let transport = Mutated { replies, method: &method, text: input };
        let opts = SnapshotOptions::from_value(options).unwrap_or_else(|_| SnapshotOptions::from_value(&serde_json::json!({})).expect("defaults"));
        let _ = runtime.block_on(capture_with(&transport, opts));
    });
}
