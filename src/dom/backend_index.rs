//! DOM nodes by backend id.
//!
//! Chrome numbers the nodes of a renderer process from 1 as it first hands
//! them out, so a page's ids are dense: a table indexed by id answers with
//! one load, where a hash map's lookup in 40k entries was a cache miss. The
//! serializer asks for every element's hints and the locator for every ref
//! (on the 40k-node page the map's lookups were about 5% of a repeat build,
//! in a profile). Ids the table would have to grow too far for (a process
//! that has numbered millions of nodes, a small frame of a busy process) go
//! to a hash map.

use rustc_hash::FxHashMap;

const ABSENT: u32 = u32::MAX;
/// The table grows to an id at most this far past 8 entries per node held (and at least this far).
const SLACK: usize = 1 << 16;

#[derive(Debug, Default)]
pub struct BackendIndex {
    table: Vec<u32>,
    spill: FxHashMap<i64, u32>,
    held: usize,
}

impl BackendIndex {
    pub fn insert(&mut self, backend: i64, node: u32) {
        self.held += 1;
        let Ok(at) = usize::try_from(backend) else {
            self.spill.insert(backend, node);
            return;
        };
        if at < self.table.len() || at < self.held.saturating_mul(8).max(SLACK) {
            if at >= self.table.len() {
                self.table.resize(at + 1, ABSENT);
            }
            self.table[at] = node;
            // An id held in both would answer with the older node.
            self.spill.remove(&backend);
        } else {
            self.spill.insert(backend, node);
        }
    }

    pub fn get(&self, backend: i64) -> Option<u32> {
        match usize::try_from(backend).ok().and_then(|at| self.table.get(at)) {
            Some(&n) if n != ABSENT => Some(n),
            _ => self.spill.get(&backend).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_sparse_and_negative_ids_all_answer_and_the_last_insert_wins() {
        let mut ix = BackendIndex::default();
        ix.insert(5, 0);
        ix.insert(9_000_000, 1);
        ix.insert(-3, 2);
        ix.insert(6, 3);
        assert_eq!([ix.get(5), ix.get(9_000_000), ix.get(-3), ix.get(6), ix.get(7), ix.get(10_000_000)], [Some(0), Some(1), Some(2), Some(3), None, None]);
        assert!(ix.table.len() < 1 << 17, "a far id does not grow the table");
        ix.insert(9_000_000, 4);
        ix.insert(5, 5);
        assert_eq!((ix.get(9_000_000), ix.get(5)), (Some(4), Some(5)));
    }
}
