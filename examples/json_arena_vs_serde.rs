//! Why `DOM.getDocument` replies are read by `dom::json_arena` and not by
//! serde_json with `unbounded_depth` and `serde_stacker`:
//! `cargo run --release --example json_arena_vs_serde`
//!
//! Builds a `DOM.getDocument` reply as the page controls it (elements nested
//! N deep, and a wide page of the same size) and times both readers. serde's
//! reader survives the depth only on a stack grown on the heap, and dropping
//! the deep `Value` recurses again on the thread's own stack, so it is done
//! on a thread with a 1 GiB stack here, to have a number at all.
use std::time::Instant;

fn nested(depth: usize) -> String {
    let mut s = String::from(r##"{"root":{"nodeId":1,"backendNodeId":1,"nodeType":9,"nodeName":"#document","localName":"","children":["##);
    for i in 0..depth {
        s.push_str(&format!(r#"{{"nodeId":{i},"backendNodeId":{i},"nodeType":1,"nodeName":"DIV","localName":"div","attributes":["class","x"],"children":["#));
    }
    s.push_str(&"]}".repeat(depth));
    s.push_str("]}}");
    s
}

fn wide(count: usize) -> String {
    let kids: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"nodeId":{i},"backendNodeId":{i},"nodeType":1,"nodeName":"DIV","localName":"div","attributes":["class","x"],"children":[]}}"#))
        .collect();
    format!(r##"{{"root":{{"nodeId":1,"backendNodeId":1,"nodeType":9,"nodeName":"#document","localName":"","children":[{}]}}}}"##, kids.join(","))
}

fn best_of<F: FnMut() -> bool>(runs: usize, mut f: F) -> (f64, bool) {
    let mut best = f64::MAX;
    let mut ok = true;
    for _ in 0..runs {
        let t = Instant::now();
        ok &= f();
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    (best, ok)
}

fn serde_stacked(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let de = serde_stacker::Deserializer::new(&mut de);
    let v: Result<serde_json::Value, _> = serde::Deserialize::deserialize(de);
    let ok = v.is_ok();
    drop(v); // recursive: needs the big stack this runs on
    ok
}

fn main() {
    let run = || {
        for (what, text) in [("40,000 elements nested 40,000 deep", nested(40_000)), ("40,000 elements, flat", wide(40_000))] {
            let (arena_ms, a_ok) = best_of(5, || web_ai_snapshot::readers::parse_json_arena(&text).is_ok());
            let (serde_ms, s_ok) = best_of(5, || serde_stacked(&text));
            println!(
                "{what} ({} MB): json_arena {arena_ms:.1} ms (ok {a_ok}); serde_json + serde_stacker {serde_ms:.1} ms (ok {s_ok})",
                text.len() / 1_000_000
            );
        }
    };
    let worker = std::thread::Builder::new().stack_size(1 << 30).spawn(run);
    if let Ok(handle) = worker {
        let _ = handle.join();
    }
}
