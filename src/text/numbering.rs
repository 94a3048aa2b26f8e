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
    /// Each key's number, and when it was last seen ([`RefMemory::learn`]'s clock).
    known: FxHashMap<String, (u32, u64)>,
    /// Never below 1; every number below it has been given.
    pub next: u32,
    clock: u64,
}

impl RefMemory {
    pub fn new(known: FxHashMap<String, u32>, next: u32) -> RefMemory {
        // A number the caller already gave must not be given again, whatever `next` says.
        let floor = known.values().copied().max().map_or(1, |m| m.saturating_add(1));
        RefMemory { known: known.into_iter().map(|(k, n)| (k, (n, 0))).collect(), next: next.max(floor).max(1), clock: 0 }
    }

    /// The number `key` was given.
    pub fn number_of(&self, key: &str) -> Option<u32> {
        self.known.get(key).map(|&(n, _)| n)
    }

    /// How many elements it remembers.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// What a snapshot numbered (each ref's element key and number) and the
    /// first number it left free. Beyond `cap` elements, those not seen for
    /// longest are forgotten; their numbers are never given again (`next` only grows).
    /// (A stamp per key and a sort when over the cap, not an LRU crate: a look
    /// touches every ref it shows, and the sort runs only past 50,000 elements.)
    pub fn learn<'k>(&mut self, seen: impl IntoIterator<Item = (&'k str, u32)>, next: u32, cap: usize) {
        self.clock += 1;
        let clock = self.clock;
        for (key, n) in seen {
            match self.known.get_mut(key) {
                Some(slot) => *slot = (n, clock),
                None => {
                    self.known.insert(key.to_string(), (n, clock));
                }
            }
            self.next = self.next.max(n.saturating_add(1));
        }
        self.next = self.next.max(next).max(1);
        if self.known.len() > cap {
            let mut ages: Vec<(u64, &String)> = self.known.iter().map(|(k, &(_, seen))| (seen, k)).collect();
            ages.sort_unstable();
            let old: Vec<String> = ages[..ages.len() - cap].iter().map(|(_, k)| (*k).clone()).collect();
            for k in old {
                self.known.remove(&k);
            }
        }
    }

    /// Every remembered key and its number, oldest seen first.
    pub fn entries(&self) -> Vec<(&str, u32)> {
        let mut all: Vec<(u64, &str, u32)> = self.known.iter().map(|(k, &(n, seen))| (seen, k.as_str(), n)).collect();
        all.sort_unstable();
        all.into_iter().map(|(_, k, n)| (k, n)).collect()
    }
}

/// The key of an element: its frame's document and its backend node id.
/// Elements without a backend id (recorded legacy trees) have no key and are
/// numbered afresh every time.
pub fn element_key(document: &str, backend_node_id: Option<i64>) -> Option<String> {
    let b = backend_node_id?;
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(b);
    let mut key = String::with_capacity(document.len() + 1 + digits.len());
    key.push_str(document);
    key.push('#');
    key.push_str(digits);
    Some(key)
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
            if let Some(n) = m.number_of(k) {
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
    fn a_session_memory_learns_each_snapshot_and_forgets_the_longest_unseen_beyond_its_cap() {
        let mut m = RefMemory::default();
        m.learn([("d#1", 1), ("d#2", 2), ("d#3", 3)], 4, 3);
        assert_eq!((m.number_of("d#2"), m.next), (Some(2), 4));
        // d#1 and d#3 are seen again; d#2 is not, and goes first when a fourth comes.
        m.learn([("d#1", 1), ("d#3", 3)], 4, 3);
        m.learn([("d#4", 4)], 5, 3);
        assert_eq!(m.number_of("d#2"), None);
        assert_eq!(m.entries(), [("d#1", 1), ("d#3", 3), ("d#4", 4)]);
        // A number forgotten is never given again.
        let mut n = Numberer::new(Some(&m));
        assert_eq!(n.number(Some("d#2")), 5);
        // `next` never goes back, whatever a snapshot says.
        m.learn([], 2, 3);
        assert_eq!(m.next, 5);
    }

    #[test]
    fn keys_name_the_document() {
        assert_eq!(element_key("L1", Some(5)).as_deref(), Some("L1#5"));
        assert_ne!(element_key("L1", Some(5)), element_key("L2", Some(5)));
        assert_eq!(element_key("L1", None), None);
    }
}
