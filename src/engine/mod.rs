//! The DOM engine (`engine: 'dom'`): the accessibility tree computed in Rust
//! from one `DOMSnapshot.captureSnapshot`, instead of asking Chrome for
//! `Accessibility.getFullAXTree`, which costs 3.5–4.5× as much on a large
//! page. Chrome stays the oracle: `__test__/engine.test.mjs` compares both
//! engines element by element.
//!
//! - [`page`]: the snapshot read into one arena (text, attributes, form state, styles);
//! - [`role`]: explicit and implicit roles (WAI-ARIA 1.2, HTML-AAM);
//! - [`name`]: accessible names (accname 1.2);
//! - [`build`]: exclusion, states, `aria-owns`, frames, the tree.

pub mod build;
pub mod name;
pub mod page;
pub mod role;

use crate::tree::AxTree;

/// The tree of a DOMSnapshot reply whose computed styles end with [`page::STYLES`] from `style_at`.
pub fn tree_from_snapshot(text: &str, style_at: usize) -> Result<AxTree, String> {
    let page = page::read(text, style_at)?;
    Ok(build::build(&page))
}

#[cfg(test)]
mod timing {
    /// `cargo test --release --lib engine::timing -- --ignored --nocapture` with recorded replies in /tmp.
    #[test]
    #[ignore]
    fn stages() {
        for path in ["/tmp/snap-a.json", "/tmp/snap-b.json"] {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            for _ in 0..3 {
                let t = std::time::Instant::now();
                let page = super::page::read(&text, 1).unwrap();
                let t1 = t.elapsed();
                let tree = super::build::build(&page);
                let t2 = t.elapsed();
                let dom = crate::dom::snapshot_reader::read_snapshot(&text, false, false).unwrap();
                let t3 = t.elapsed();
                println!("{path}: read {:?} build {:?} dom pass read {:?} ({} nodes, {} ax, tree {})", t1, t2 - t1, t3 - t2, page.nodes.len(), tree.nodes.len(), dom.tree.is_some());
            }
        }
    }
}
