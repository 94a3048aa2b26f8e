//! What a snapshot could not see or chose not to show, counted by kind on
//! one note line, so that nothing goes silently (the other notes say each
//! in full, with how to see it). Closed shadow roots are not a kind: both
//! engines read them (DOMSnapshot and Chrome's tree pierce them).

/// Counts of what is missing from the text, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unseen {
    /// Frames whose document was not read or not placed (over the frame
    /// limit, failed, did not answer, or hidden with their iframe).
    pub frames: usize,
    /// `<canvas>` and `<video>` elements: pixels, not text.
    pub canvases: usize,
    pub videos: usize,
    /// Nodes left out below `maxDepth` (their text and refs are listed at the cut).
    pub depth: usize,
    /// Nodes outside the viewport (`viewportOnly`).
    pub viewport: usize,
    /// Lines left out by `maxTokens` (counted on `more` lines).
    pub budget: usize,
}

impl Unseen {
    /// The note line, or none when nothing is missing.
    pub fn note(&self) -> Option<String> {
        let count = |n: usize, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
        let mut parts: Vec<String> = Vec::new();
        if self.frames > 0 {
            parts.push(format!("{} not read", count(self.frames, "frame", "frames")));
        }
        let media: Vec<String> = [(self.canvases, "canvas", "canvases"), (self.videos, "video", "videos")]
            .iter()
            .filter(|(n, ..)| *n > 0)
            .map(|&(n, one, many)| count(n, one, many))
            .collect();
        if !media.is_empty() {
            parts.push(format!("{} (pixels, not text)", media.join(" and ")));
        }
        if self.depth > 0 {
            parts.push(format!("{} below maxDepth", count(self.depth, "node", "nodes")));
        }
        if self.viewport > 0 {
            parts.push(format!("{} outside the viewport", count(self.viewport, "node", "nodes")));
        }
        if self.budget > 0 {
            parts.push(format!("{} over maxTokens", count(self.budget, "line", "lines")));
        }
        (!parts.is_empty()).then(|| format!("not seen or not shown: {}; the other notes say how to see each", parts.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_missing_is_no_note() {
        assert_eq!(Unseen::default().note(), None);
    }

    #[test]
    fn each_kind_is_counted_in_one_line() {
        let u = Unseen { frames: 2, canvases: 1, videos: 3, depth: 187, viewport: 1, budget: 62 };
        assert_eq!(
            u.note().as_deref(),
            Some("not seen or not shown: 2 frames not read, 1 canvas and 3 videos (pixels, not text), 187 nodes below maxDepth, 1 node outside the viewport, 62 lines over maxTokens; the other notes say how to see each")
        );
        assert_eq!(
            Unseen { videos: 1, ..Unseen::default() }.note().as_deref(),
            Some("not seen or not shown: 1 video (pixels, not text); the other notes say how to see each")
        );
    }
}
