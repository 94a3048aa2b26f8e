//! The addon's global allocator: mimalloc instead of the system's.
//!
//! A capture builds and drops many small values (the engine's nodes, names,
//! lines, refs). Replaying one recorded guardian-1 capture (DOM engine)
//! through the pump 200 times, with the release addon on this machine (what
//! `npm run bench:replay -- --only guardian-1 --runs 200` does):
//! glibc's malloc and free were 34% of perf samples (`_int_malloc`,
//! `_int_free`, `malloc_consolidate`, `unlink_chunk`); the replay's median
//! went from 3.90 ms (twice) to 3.06 and 3.30 ms, its best from 3.66 to 2.83.
//! The 40k-node page's repeat snapshot did not change beyond the noise.
//!
//! Only the addon uses it (the `napi` feature): a Rust program that links the
//! core as a library keeps its own allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
