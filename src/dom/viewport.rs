//! What is on screen, for `viewportOnly`: element and text boxes from
//! DOMSnapshot's layout, placed in the page's viewport through every frame
//! they sit in.
//!
//! DOMSnapshot gives boxes in each document's own coordinates, scroll
//! included (a fixed element at the top of a page scrolled by 1800 px is at
//! y 1800). A process's boxes are stored relative to its root document's
//! viewport, each with the clip of the frames around it in that process; a
//! [`Placement`] then puts that viewport in the page's (the identity for the
//! page itself, the owner `iframe`'s box for an out-of-process frame).

use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub const EVERYWHERE: Rect = Rect { x: -1e15, y: -1e15, w: 2e15, h: 2e15 };
    pub const NOWHERE: Rect = Rect { x: 0.0, y: 0.0, w: -1.0, h: -1.0 };

    pub fn from_slice(b: &[f64]) -> Option<Rect> {
        match b {
            [x, y, w, h, ..] if [x, y, w, h].iter().all(|v| v.is_finite()) => Some(Rect { x: *x, y: *y, w: *w, h: *h }),
            _ => None,
        }
    }

    pub fn moved(self, dx: f64, dy: f64) -> Rect {
        Rect { x: self.x + dx, y: self.y + dy, ..self }
    }

    /// The overlap; empty (negative size) when there is none.
    pub fn clip(self, o: Rect) -> Rect {
        let x = self.x.max(o.x);
        let y = self.y.max(o.y);
        let right = (self.x + self.w).min(o.x + o.w);
        let bottom = (self.y + self.h).min(o.y + o.h);
        Rect { x, y, w: right - x, h: bottom - y }
    }

    /// Overlaps `o`. A box of zero width or height (an empty inline, a
    /// collapsed element) counts when it lies within `o`'s edges.
    pub fn meets(self, o: Rect) -> bool {
        if self.w < 0.0 || self.h < 0.0 || o.w < 0.0 || o.h < 0.0 {
            return false;
        }
        let c = self.clip(o);
        c.w >= 0.0 && c.h >= 0.0 && (c.w > 0.0 || self.w == 0.0) && (c.h > 0.0 || self.h == 0.0)
    }
}

/// Boxes of one process, by backend node id (elements and text).
#[derive(Debug, Default)]
pub struct Boxes {
    /// (box, clip of the frames around it), relative to the root document's viewport.
    map: FxHashMap<i64, (Rect, Rect)>,
    /// Elements whose content scrolls (`overflow-y: auto | scroll`).
    scrollers: rustc_hash::FxHashSet<i64>,
}

impl Boxes {
    pub fn mark_scroller(&mut self, backend: i64) {
        self.scrollers.insert(backend);
    }

    pub fn is_scroller(&self, backend: i64) -> bool {
        self.scrollers.contains(&backend)
    }

    pub fn insert(&mut self, backend: i64, rect: Rect, clip: Rect) {
        self.map.insert(backend, (rect, clip));
    }

    pub fn get(&self, backend: i64) -> Option<(Rect, Rect)> {
        self.map.get(&backend).copied()
    }

    /// Whether the node's box shows through `at`; None without a box.
    pub fn in_view(&self, backend: i64, at: &Placement) -> Option<bool> {
        let (rect, clip) = self.get(backend)?;
        let clip = clip.moved(at.dx, at.dy).clip(at.clip);
        Some(rect.moved(at.dx, at.dy).meets(clip))
    }

    /// The node's box in the page's viewport and how much of it shows through `at`.
    pub fn placed(&self, backend: i64, at: &Placement) -> Option<(Rect, Shown)> {
        let (rect, clip) = self.get(backend)?;
        let rect = rect.moved(at.dx, at.dy);
        let clip = clip.moved(at.dx, at.dy).clip(at.clip);
        let shown = if !rect.meets(clip) {
            Shown::Offscreen
        } else if rect.x >= clip.x && rect.y >= clip.y && rect.x + rect.w <= clip.x + clip.w && rect.y + rect.h <= clip.y + clip.h {
            Shown::Fully
        } else {
            Shown::Partly
        };
        Some((rect, shown))
    }

    /// Where the process rooted in the frame hosted by `owner` sits: at the
    /// owner's box, seen through it and whatever clips the owner.
    pub fn placement_inside(&self, owner: i64, at: &Placement) -> Option<Placement> {
        let (rect, clip) = self.get(owner)?;
        let rect = rect.moved(at.dx, at.dy);
        Some(Placement { dx: rect.x, dy: rect.y, clip: rect.clip(clip.moved(at.dx, at.dy)).clip(at.clip) })
    }
}

/// How much of a box shows in the viewport (seed 001's ranking: fully > partly > offscreen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shown {
    Fully,
    Partly,
    Offscreen,
}

/// How a process's root viewport sits in the page's viewport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub dx: f64,
    pub dy: f64,
    /// The visible part, in the page's viewport coordinates.
    pub clip: Rect,
}

impl Placement {
    /// The page itself, `width` × `height` CSS pixels.
    pub fn page(width: f64, height: f64) -> Placement {
        Placement { dx: 0.0, dy: 0.0, clip: Rect { x: 0.0, y: 0.0, w: width, h: height } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_show_through_frames_and_the_viewport() {
        let page = Placement::page(800.0, 600.0);
        let mut b = Boxes::default();
        b.insert(1, Rect { x: 10.0, y: 10.0, w: 40.0, h: 20.0 }, Rect::EVERYWHERE);
        b.insert(2, Rect { x: 10.0, y: 700.0, w: 40.0, h: 20.0 }, Rect::EVERYWHERE);
        b.insert(3, Rect { x: 10.0, y: 590.0, w: 40.0, h: 20.0 }, Rect::EVERYWHERE);
        // In a frame whose viewport is 100..300 on screen: inside, and scrolled out of it.
        let frame = Rect { x: 0.0, y: 100.0, w: 300.0, h: 200.0 };
        b.insert(4, Rect { x: 0.0, y: 150.0, w: 40.0, h: 20.0 }, frame);
        b.insert(5, Rect { x: 0.0, y: 350.0, w: 40.0, h: 20.0 }, frame);
        b.insert(6, Rect { x: 10.0, y: 10.0, w: 0.0, h: 0.0 }, Rect::EVERYWHERE);
        let seen: Vec<Option<bool>> = (1..=7).map(|k| b.in_view(k, &page)).collect();
        assert_eq!(seen, vec![Some(true), Some(false), Some(true), Some(true), Some(false), Some(true), None]);
    }

    #[test]
    fn an_out_of_process_frame_is_placed_at_its_owner() {
        let page = Placement::page(800.0, 600.0);
        let mut parent = Boxes::default();
        parent.insert(9, Rect { x: 100.0, y: 500.0, w: 300.0, h: 300.0 }, Rect::EVERYWHERE);
        let inside = parent.placement_inside(9, &page).unwrap();
        assert_eq!((inside.dx, inside.dy), (100.0, 500.0));
        assert_eq!(inside.clip, Rect { x: 100.0, y: 500.0, w: 300.0, h: 100.0 }, "only the top 100 px of the frame are on screen");
        let mut child = Boxes::default();
        child.insert(1, Rect { x: 0.0, y: 50.0, w: 10.0, h: 10.0 }, Rect::EVERYWHERE);
        child.insert(2, Rect { x: 0.0, y: 150.0, w: 10.0, h: 10.0 }, Rect::EVERYWHERE);
        assert_eq!(child.in_view(1, &inside), Some(true));
        assert_eq!(child.in_view(2, &inside), Some(false));
    }
}
