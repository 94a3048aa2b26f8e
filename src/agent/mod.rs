//! What agents do with a snapshot: registries, stale-ref verdicts, target
//! matching and ranking, vendor contracts and the doctor's summary.

pub mod contracts;
pub mod doctor;
pub mod keys;
pub mod registry;
pub mod staleness;
pub mod targets;
