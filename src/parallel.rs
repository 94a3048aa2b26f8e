//! Two pieces of work over one input, on the machine's two cores when the
//! input is large enough to pay for a thread: a capture reads the engine's
//! page and the DOM pass's tree from the same reply or mirror (on the
//! 40k-node page the DOM pass is a few milliseconds beside the engine's;
//! on small pages a thread costs more than it saves).

/// `main()` here and `other()` on a scoped thread when `split`, else one after the other.
/// A panic on the other thread goes on here, as it would have in one thread.
pub(crate) fn beside<A, B: Send>(split: bool, main: impl FnOnce() -> A, other: impl FnOnce() -> B + Send) -> (A, B) {
    if !split {
        let b = other();
        return (main(), b);
    }
    std::thread::scope(|scope| {
        let handle = scope.spawn(other);
        let a = main();
        match handle.join() {
            Ok(b) => (a, b),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
