//! The DOM engine (`engine: 'dom'`): the accessibility tree computed in Rust
//! from one `DOMSnapshot.captureSnapshot`, instead of asking Chrome for
//! `Accessibility.getFullAXTree`, which costs 3.5–4.5× as much on a large
//! page. Chrome stays the oracle: `__test__/engine.test.mjs` compares both
//! engines element by element.
//!
//! - [`page`]: the snapshot read into one arena (text, attributes, form state, styles);
//! - [`role`]: explicit and implicit roles (WAI-ARIA 1.2, HTML-AAM);
//! - [`name`]: accessible names (accname 1.2);
//! - [`build`]: exclusion, states, `aria-owns`, frames, the tree;
//! - [`retext`]: a built tree patched for changed text.
//!
//! Written here, not taken from a crate: no maintained Rust crate computes
//! HTML-AAM roles or accname 1.2 names (the implementations are browsers'
//! and JS libraries that walk a live DOM), and this one must follow Chrome
//! where Chrome departs from the specifications, over DOMSnapshot's arrays.

pub mod build;
pub mod name;
pub mod page;
pub mod retext;
pub mod role;

use crate::tree::AxTree;

/// The tree of a DOMSnapshot reply whose computed styles end with [`page::STYLES`] from `style_at`.
pub fn tree_from_snapshot(text: &str, style_at: usize) -> Result<AxTree, String> {
    let page = page::read(text, style_at)?;
    Ok(build::build(&page))
}
