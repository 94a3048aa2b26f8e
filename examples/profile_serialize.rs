//! Time the Rust half of a snapshot on a recorded `getFullAXTree` result:
//! `cargo run --release --example profile_serialize -- tree.json`
//! (a raw `getFullAXTree` result, or the rows the JS driver projects)
use std::time::Instant;

use web_ai_snapshot::readers::{parse_full_ax_tree, parse_rows};
use web_ai_snapshot::SnapshotOptions;
use web_ai_snapshot::{build_snapshot, PageFacts};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: profile_serialize <getFullAXTree.json>");
        std::process::exit(2);
    };
    let json = match std::fs::read_to_string(&path) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let opts = SnapshotOptions::default();
    // What any client that builds a serde_json::Value of each reply pays first
    // (chromiumoxide's message type does), for comparison.
    for _ in 0..3 {
        let t = Instant::now();
        let v: serde_json::Result<serde_json::Value> = serde_json::from_str(&json);
        println!("as serde_json::Value: {:?} (ok: {})", t.elapsed(), v.is_ok());
    }
    for _ in 0..5 {
        let t = Instant::now();
        // Projected rows (what the JS driver sends) or a raw CDP result.
        let parsed_tree = if json.starts_with("[[") { parse_rows(&json) } else { parse_full_ax_tree(&json) };
        let tree = match parsed_tree {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let parsed = t.elapsed();
        let snap = build_snapshot(&tree, None, PageFacts::default(), &opts, None, 0.0, &[]);
        let built = t.elapsed() - parsed;
        let out = snap.to_json();
        let total = t.elapsed();
        println!(
            "nodes {} parse {:?} serialize {:?} json {:?} total {:?} ({} bytes out)",
            tree.nodes.len(),
            parsed,
            built,
            total - parsed - built,
            total,
            out.len()
        );
    }
}
