//! Repeat snapshots at the cost of the change (issue 13).
//!
//! A page session's first capture with the DOM engine keeps its DOM snapshot
//! as a [`mirror::Mirror`]. The session's watcher (`lib/page/watch.js`, in our
//! isolated world) records the nodes mutations touched; a repeat capture
//! takes those, re-reads only their subtrees ([`fresh`]: the DOM from
//! `DOM.describeNode`, style and layout from one script each), patches the
//! mirror, and runs the engine and the DOM pass over it as over a reply from
//! Chrome. Roles, names and states depend on other nodes (labels, `aria-*`
//! references, names from content, hidden ancestors), but they are derived
//! again in Rust from the whole mirror, so those rules need no browser call.
//! Only what style and layout say is re-read, for the changed subtrees. When
//! only values changed, the engine's page and the DOM pass's trees of the last
//! build serve again, patched ([`kept`]); after a change to the tree, the
//! page is laid out again from the mirror, reusing its nodes ([`to_page`]),
//! and the DOM pass's tree made from the mirror ([`to_dom`]).
//!
//! What cannot be bounded that way (a frame or shadow root in a changed
//! subtree, a changed style sheet, a change near the top of a large page, a
//! new document) falls back to a full capture, and the snapshot's notes say why.

pub mod fresh;
pub mod kept;
pub mod layout;
pub mod mirror;
pub mod to_dom;
pub mod to_page;

pub use mirror::{Mirror, Unpatchable};
