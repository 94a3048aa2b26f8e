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

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, mimalloc.h
/// of the v2 line that `libmimalloc-sys` builds; its Rust constants stop short of it).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// How long memory freed by a capture stays with the process before it goes
/// back to the system: a second, mimalloc v3's default, instead of v2's 10 ms.
///
/// A repeat look after rows are added builds and drops page-sized arrays (the
/// kept page laid out again, the DOM pass's tree); purged 10 ms after each
/// look, the next look touched that memory anew, page fault by page fault.
/// `WEB_AI_TRACE=1 node bench/repeat-calls.mjs --kind add --runs 21` on the
/// 40k-node page, 2026-11-29, with `MIMALLOC_PURGE_DELAY=1000` against
/// mimalloc's default: `kept.dom` 6.9 → 2.7 ms, `kept.relayout` 7.4 → 3.3,
/// the look 53.8 → 47.4 ms (with the delay -1, never purging: 53k page faults
/// in the process → 36k). A look after a text change did not move. The most
/// memory held stays what a look needs at its peak; it is given back a
/// second after the addon last freed, not 10 ms. `MIMALLOC_PURGE_DELAY` in the
/// environment still wins.
#[napi_derive::module_init]
fn hold_freed_memory_briefly() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's options; any value is valid, at any time.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 1000) };
    }
}
