//! Where mirrors live between captures: the JS session holds a slot number,
//! the mirror stays in Rust (it is never converted to JS values). A session
//! that is dropped without closing leaves its slot behind, so the store keeps
//! only the most recently used [`MAX_MIRRORS`]. Sixteen slots are a `Vec`
//! scanned on each of a capture's two calls here, next to a capture that
//! takes milliseconds; an LRU crate would add a dependency for nothing measurable.

use std::sync::Mutex;

use super::Mirror;
use crate::text::sent_refs::SentRefs;

pub const MAX_MIRRORS: usize = 16;

struct Slot {
    id: u32,
    mirror: Option<Mirror>,
    /// The watcher token of the document the mirror is of.
    token: String,
    used: u64,
    /// The refs of the last snapshot this slot's session was sent.
    sent: Option<SentRefs>,
}

#[derive(Default)]
struct Store {
    slots: Vec<Slot>,
    next_id: u32,
    clock: u64,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut Store) -> R) -> R {
    // A panic elsewhere while holding the lock leaves the data usable: it is only a cache.
    let mut guard = STORE.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Store::default))
}

/// A new, empty slot.
pub fn open() -> u32 {
    with(|s| {
        s.next_id = s.next_id.wrapping_add(1).max(1);
        s.clock += 1;
        let id = s.next_id;
        s.slots.push(Slot { id, mirror: None, token: String::new(), used: s.clock, sent: None });
        if s.slots.len() > MAX_MIRRORS {
            if let Some(oldest) = s.slots.iter().enumerate().min_by_key(|(_, x)| x.used).map(|(i, _)| i) {
                s.slots.swap_remove(oldest);
            }
        }
        id
    })
}

/// Take the mirror of slot `id` if it is of the document `token`.
pub fn take(id: u32, token: &str) -> Option<Mirror> {
    with(|s| {
        s.clock += 1;
        let clock = s.clock;
        let slot = s.slots.iter_mut().find(|x| x.id == id)?;
        slot.used = clock;
        if slot.token != token {
            slot.mirror = None;
            return None;
        }
        slot.mirror.take()
    })
}

/// Keep `mirror` (of document `token`) in slot `id`, if the slot is still open.
pub fn put(id: u32, token: &str, mirror: Mirror) {
    with(|s| {
        s.clock += 1;
        let clock = s.clock;
        if let Some(slot) = s.slots.iter_mut().find(|x| x.id == id) {
            slot.mirror = Some(mirror);
            slot.token = token.to_string();
            slot.used = clock;
        }
    })
}

/// Take the refs slot `id`'s session was last sent.
pub fn take_sent(id: u32) -> Option<SentRefs> {
    with(|s| s.slots.iter_mut().find(|x| x.id == id).and_then(|x| x.sent.take()))
}

/// Remember the refs slot `id`'s session is sent now, if the slot is still open.
pub fn put_sent(id: u32, sent: SentRefs) {
    with(|s| {
        if let Some(slot) = s.slots.iter_mut().find(|x| x.id == id) {
            slot.sent = Some(sent);
        }
    })
}

pub fn close(id: u32) {
    with(|s| s.slots.retain(|x| x.id != id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_is_given_back_only_for_its_document_and_slots_are_bounded() {
        let a = open();
        put(a, "doc-1", Mirror::default());
        assert!(take(a, "doc-2").is_none(), "another document");
        assert!(take(a, "doc-1").is_none(), "dropped when the document changed");
        put(a, "doc-1", Mirror::default());
        assert!(take(a, "doc-1").is_some());
        assert!(take(a, "doc-1").is_none(), "taken once");
        close(a);
        put(a, "doc-1", Mirror::default());
        assert!(take(a, "doc-1").is_none(), "a closed slot keeps nothing");
        let ids: Vec<u32> = (0..MAX_MIRRORS + 4).map(|_| open()).collect();
        with(|s| assert!(s.slots.len() <= MAX_MIRRORS));
        for id in ids {
            close(id);
        }
    }
}
