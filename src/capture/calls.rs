//! Every command the capture plan sends, by name: its method, and whether
//! its failure is only a note, decided in one place.

/// A command of the plan. Frame commands carry the index of their frame job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    AxTree,
    /// The main frame's isolated world, where the page scripts run.
    CreateWorld,
    PageFacts,
    /// The `rootSelector` element, as a remote object.
    FindRoot,
    /// The page facts and root element asked in a world a previous capture
    /// made, in the first batch: kept only if the frame tree shows the same document.
    HintedFacts,
    HintedRoot,
    DescribeRoot,
    ReleaseRoot,
    FrameTree,
    Targets,
    DomDocument,
    /// The element tree of the `k`th shadow host outside any shadow tree (`DOM.describeNode`).
    DomHost(u32),
    DomSnapshot,
    /// `DOM.disable` after the capture, one per session that got `DOM.getDocument`.
    Cleanup(u32),
    Frame(u32, FrameCall),
    Repeat(RepeatCall),
    /// The DOM engine's `k`th node whose content only Chrome's tree shows (media controls).
    ChromeSubtree(u32, ChromeCall),
    /// An element the DOM snapshot cannot mark (the DOM engine): found by script, then described.
    Mark(Mark, MarkCall),
    /// The page read by a walk instead of a DOM snapshot (`super::walk`).
    Walk(WalkCall),
}

/// The calls of a page read by a walk (`domRead`, `super::walk`), in the order they are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalkCall {
    /// `DOM.enable` with white space, so that `DOM.getDocument` lists every text node as DOMSnapshot does,
    Enable,
    /// the document,
    Document,
    /// and the DOM agent off again before any page script runs (see `walk.rs`).
    Disable,
    /// The last walk's remote objects let go, then the document in the page's own world,
    Release,
    PageDocument,
    /// and its listeners (clickable nodes).
    Listeners,
    /// What style and layout say of each node, from our world,
    Facts,
    /// then of the generated boxes `DOM.getDocument` lists (the walk left them for later).
    Later,
}

/// The calls that read one of Chrome's subtrees (`CaptureSession::ask_chrome_subtrees`), in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChromeCall {
    /// The node as a remote object of its document (`DOM.resolveNode`),
    Resolve,
    /// then its subtree, asked by that object (`Accessibility.queryAXTree`),
    Query,
    /// and the object let go.
    Release,
}

/// What the DOM engine learns by script (`scripts/marked_element.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Focused,
    /// A `<dialog>` shown with `showModal()`: the rest of the page is inert.
    Modal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkCall {
    /// The element as a remote object,
    Find,
    /// its `backendNodeId`,
    Describe,
    /// and the object released.
    Release,
}

/// The calls of a repeat capture over a mirror (`super::repeat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepeatCall {
    /// The watcher's record of what changed since the last capture, and the changed subtrees' roots.
    Take,
    /// `DOM.enable` with white space: `describeNode` then lists every text node, as DOMSnapshot does.
    DomEnable,
    /// Root `k` the watcher kept (then the frames it cannot enter), as a remote object.
    Root(u32),
    /// Root `k`'s subtree as the DOM has it.
    Describe(u32),
    /// Root `k`'s subtree as style and layout have it.
    Facts(u32),
    /// List `k` (an element whose child list changed) or, after the lists, a child one lost: its backend id alone.
    Identify(u32),
    /// Root `k` as a remote object in its document's main world (for its listeners),
    PageRoot(u32),
    /// and its subtree's event listeners (clickable nodes).
    Listeners(u32),
    /// A frame of another origin in this process (`k`: its index among them): our world there,
    FrameWorld(u32),
    /// its document as a remote object in that world, and in the frame's main world,
    FrameDocument(u32),
    FramePageDocument(u32),
    /// and what style, layout and listeners say of it.
    FrameFacts(u32),
    FrameListeners(u32),
    /// Whether the `k`th frame world the mirror keeps shows its frame as it was at the session's last mark
    /// (and the mark made again: the frame is read after it in this look, if at all),
    FrameSwap(u32),
    /// and its first mark when its world is new, with its document described again after it.
    FrameMark(u32),
    FrameDescribe(u32),
    /// The `k`th frame in another process the mirror keeps our world in: as it was, then marked again,
    OopifSwap(u32),
    /// the page's frames in other processes (targets),
    OopifTargets,
    /// our world in the `k`th that has none yet, and its first mark.
    OopifWorld(u32),
    OopifMark(u32),
    /// The caller's look at the page once the subtrees are read (`Incremental::after`).
    After,
    /// The layout boxes of the page's document, read again (`crate::incremental::layout`).
    Boxes,
    /// The remote objects of the roots, released.
    Release,
    DomDisable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameCall {
    AxTree,
    /// The `iframe` element hosting the frame.
    Owner,
    /// An out-of-process frame's own frame tree (for the frames nested in it).
    FrameTree,
    DomDocument,
    DomHost(u32),
    DomSnapshot,
}

impl Call {
    pub fn method(self) -> &'static str {
        match self {
            Call::AxTree | Call::Frame(_, FrameCall::AxTree) => "Accessibility.getFullAXTree",
            Call::CreateWorld => "Page.createIsolatedWorld",
            Call::PageFacts | Call::FindRoot | Call::HintedFacts | Call::HintedRoot => "Runtime.evaluate",
            Call::DescribeRoot | Call::DomHost(_) | Call::Frame(_, FrameCall::DomHost(_)) => "DOM.describeNode",
            Call::ReleaseRoot => "Runtime.releaseObject",
            Call::FrameTree | Call::Frame(_, FrameCall::FrameTree) => "Page.getFrameTree",
            Call::Targets => "Target.getTargets",
            Call::DomDocument | Call::Frame(_, FrameCall::DomDocument) => "DOM.getDocument",
            Call::DomSnapshot | Call::Frame(_, FrameCall::DomSnapshot) => "DOMSnapshot.captureSnapshot",
            Call::Frame(_, FrameCall::Owner) => "DOM.getFrameOwner",
            Call::Cleanup(_) | Call::Repeat(RepeatCall::DomDisable) => "DOM.disable",
            Call::Repeat(
                RepeatCall::Take
                | RepeatCall::After
                | RepeatCall::FrameSwap(_)
                | RepeatCall::FrameMark(_)
                | RepeatCall::OopifSwap(_)
                | RepeatCall::OopifMark(_),
            ) => "Runtime.evaluate",
            Call::Repeat(RepeatCall::OopifTargets) => "Target.getTargets",
            Call::Repeat(RepeatCall::OopifWorld(_)) => "Page.createIsolatedWorld",
            Call::Repeat(RepeatCall::DomEnable) => "DOM.enable",
            Call::Repeat(RepeatCall::Root(_) | RepeatCall::Boxes) => "Runtime.evaluate",
            Call::Repeat(RepeatCall::Describe(_) | RepeatCall::FrameDescribe(_) | RepeatCall::Identify(_)) => "DOM.describeNode",
            Call::Repeat(RepeatCall::Facts(_)) => "Runtime.callFunctionOn",
            Call::Repeat(RepeatCall::Listeners(_)) => "DOMDebugger.getEventListeners",
            Call::Repeat(RepeatCall::Release) => "Runtime.releaseObjectGroup",
            Call::Repeat(RepeatCall::FrameWorld(_)) => "Page.createIsolatedWorld",
            Call::Repeat(RepeatCall::FrameDocument(_) | RepeatCall::FramePageDocument(_) | RepeatCall::PageRoot(_)) => "DOM.resolveNode",
            Call::Repeat(RepeatCall::FrameFacts(_)) => "Runtime.callFunctionOn",
            Call::Repeat(RepeatCall::FrameListeners(_)) => "DOMDebugger.getEventListeners",
            Call::ChromeSubtree(_, ChromeCall::Resolve) => "DOM.resolveNode",
            Call::ChromeSubtree(_, ChromeCall::Query) => "Accessibility.queryAXTree",
            Call::ChromeSubtree(_, ChromeCall::Release) => "Runtime.releaseObject",
            Call::Mark(_, MarkCall::Find) => "Runtime.evaluate",
            Call::Mark(_, MarkCall::Describe) => "DOM.describeNode",
            Call::Mark(_, MarkCall::Release) => "Runtime.releaseObject",
            Call::Walk(WalkCall::Enable) => "DOM.enable",
            Call::Walk(WalkCall::Document) => "DOM.getDocument",
            Call::Walk(WalkCall::Disable) => "DOM.disable",
            Call::Walk(WalkCall::Release) => "Runtime.releaseObjectGroup",
            Call::Walk(WalkCall::PageDocument | WalkCall::Facts | WalkCall::Later) => "Runtime.evaluate",
            Call::Walk(WalkCall::Listeners) => "DOMDebugger.getEventListeners",
        }
    }

    /// A failure or a timeout of this call is a note, not a failed capture.
    pub fn optional(self) -> bool {
        !matches!(self, Call::AxTree | Call::FindRoot | Call::DescribeRoot | Call::ReleaseRoot)
    }

    /// The frame job this call belongs to.
    pub fn frame(self) -> Option<usize> {
        match self {
            Call::Frame(k, _) => Some(k as usize),
            _ => None,
        }
    }

    /// A call of the DOM pass.
    pub fn is_dom(self) -> bool {
        matches!(
            self,
            Call::DomDocument | Call::DomHost(_) | Call::DomSnapshot | Call::Frame(_, FrameCall::DomDocument | FrameCall::DomHost(_) | FrameCall::DomSnapshot)
        )
    }

    pub fn is_document(self) -> bool {
        matches!(self, Call::DomDocument | Call::Frame(_, FrameCall::DomDocument))
    }

    /// Which shadow host's element tree this call asks for (`DOM.describeNode`), if it is one.
    pub fn dom_host(self) -> Option<usize> {
        match self {
            Call::DomHost(k) | Call::Frame(_, FrameCall::DomHost(k)) => Some(k as usize),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_and_optional_calls() {
        assert_eq!(Call::Frame(3, FrameCall::Owner).method(), "DOM.getFrameOwner");
        assert_eq!(Call::Cleanup(0).method(), "DOM.disable");
        assert!(!Call::AxTree.optional());
        assert!(Call::Frame(0, FrameCall::AxTree).optional());
        assert!(Call::Frame(2, FrameCall::DomSnapshot).is_dom() && !Call::FrameTree.is_dom());
        assert_eq!(Call::Frame(2, FrameCall::DomSnapshot).frame(), Some(2));
        assert_eq!(Call::ChromeSubtree(0, ChromeCall::Query).method(), "Accessibility.queryAXTree");
    }
}
