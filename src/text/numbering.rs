//! Stable ref numbers for a page session: an element keeps its number for
//! as long as it exists, and a new element gets a number never given before.
//!
//! "The same element" is the same node of the same frame document: the
//! frame's `loaderId` (new for every document the frame loads) and the
//! node's `backendNodeId`. The loader matters because backend ids are a
//! per-renderer counter: after a cross-site navigation the new process
//! starts counting again, and a bare backend id would hand an old number to
//! an unrelated element.

use rustc_hash::FxHashMap;

/// The numbers given so far in a session, by element key, and the next free one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefMemory {
    pub known: FxHashMap<String, u32>,
    /// Never below 1; every number below it has been given.
    pub next: u32,
}

impl RefMemory {
    pub fn new(known: FxHashMap<String, u32>, next: u32) -> RefMemory {
        // A number the caller already gave must not be given again, whatever `next` says.
        let floor = known.values().copied().max().map_or(1, |m| m.saturating_add(1));
        RefMemory { known, next: next.max(floor).max(1) }
    }
}

/// The key of an element: its frame's document and its backend node id.
/// Elements without a backend id (recorded legacy trees) have no key and are
/// numbered afresh every time.
pub fn element_key(document: &str, backend_node_id: Option<i64>) -> Option<String> {
    backend_node_id.map(|b| format!("{document}#{b}"))
}

/// Hands out numbers during one serialization.
pub struct Numberer<'m> {
    memory: Option<&'m RefMemory>,
    next: u32,
    given: FxHashMap<u32, ()>,
}

impl<'m> Numberer<'m> {
    pub fn new(memory: Option<&'m RefMemory>) -> Numberer<'m> {
        Numberer { memory, next: memory.map_or(1, |m| m.next.max(1)), given: FxHashMap::default() }
    }

    /// The number for an element. Without a memory, refs count from 1 in
    /// document order (the drop-in behaviour). With one, a known element keeps
    /// its number unless this snapshot already used it (two nodes cannot share).
    pub fn number(&mut self, key: Option<&str>) -> u32 {
        if let (Some(m), Some(k)) = (self.memory, key) {
            if let Some(&n) = m.known.get(k) {
                if self.given.insert(n, ()).is_none() {
                    return n;
                }
            }
        }
        let n = self.next;
        self.next = self.next.saturating_add(1);
        self.given.insert(n, ());
        n
    }

    /// The first number not yet given in the session.
    pub fn next(&self) -> u32 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_memory_numbers_count_from_one() {
        let mut n = Numberer::new(None);
        assert_eq!([n.number(Some("d#1")), n.number(None), n.number(Some("d#1"))], [1, 2, 3]);
    }

    #[test]
    fn known_elements_keep_numbers_and_new_ones_never_reuse() {
        let mut known = FxHashMap::default();
        known.insert("d#10".to_string(), 3);
        known.insert("d#11".to_string(), 7);
        // A stale `next` below a given number is raised past it.
        let memory = RefMemory::new(known, 2);
        assert_eq!(memory.next, 8);
        let mut n = Numberer::new(Some(&memory));
        assert_eq!(n.number(Some("d#11")), 7);
        assert_eq!(n.number(Some("d#12")), 8);
        assert_eq!(n.number(Some("d#10")), 3);
        // The same key twice in one snapshot (a malformed tree) gets a fresh number.
        assert_eq!(n.number(Some("d#10")), 9);
        assert_eq!(n.next(), 10);
    }

    #[test]
    fn keys_name_the_document() {
        assert_eq!(element_key("L1", Some(5)).as_deref(), Some("L1#5"));
        assert_ne!(element_key("L1", Some(5)), element_key("L2", Some(5)));
        assert_eq!(element_key("L1", None), None);
    }
}
