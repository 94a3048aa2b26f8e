//! Capture orchestration: the plan of CDP calls that yields a snapshot, and
//! how frames are read and stitched into the page's tree.

mod calls;
pub(crate) mod context;
mod driver;
pub mod frames;
pub mod pump;
mod repeat;
mod session;
mod transport;
pub mod walk;

pub use calls::Call;
pub use context::{CaptureContext, World};
pub use driver::{capture_in, capture_with, Captured};
pub use repeat::{capture_incremental, SessionCapture, FULL_CAPTURE_NOTE, NOT_MIRRORED_NOTE, REPEAT_MIN_NODES};
pub(crate) use session::PARALLEL_READ_NODES;
pub use session::{FrameReplies, WORLD_NAME};
pub use transport::{call_before, js_rejection, CdpCall, CdpReply, CdpTransport, ReplyFuture};
