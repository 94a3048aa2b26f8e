//! Capture orchestration: the plan of CDP calls that yields a snapshot, and
//! how frames are read and stitched into the page's tree.

pub mod frames;
mod session;

pub use session::*;
