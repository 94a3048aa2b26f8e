//! The accessibility tree every capture source is converted into.
//!
//! Nodes live in one arena and refer to children by index, so no walk over a
//! page-controlled tree ever needs recursion.

pub mod cdp_reader;
pub mod legacy_reader;
pub mod roles;
pub mod rows_reader;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tristate {
    False,
    True,
    Mixed,
}

/// A property value as any reader sees it (CDP JSON, projected rows, legacy trees).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PropValue<'a> {
    Bool(bool),
    Str(&'a str),
    Num(f64),
    Other,
}

impl PropValue<'_> {
    pub fn from_json(v: &serde_json::Value) -> PropValue<'_> {
        match v {
            serde_json::Value::Bool(b) => PropValue::Bool(*b),
            serde_json::Value::String(s) => PropValue::Str(s),
            serde_json::Value::Number(n) => n.as_f64().map_or(PropValue::Other, PropValue::Num),
            _ => PropValue::Other,
        }
    }

    pub fn truthy(self) -> bool {
        matches!(self, PropValue::Bool(true) | PropValue::Str("true"))
    }

    pub fn tristate(self) -> Option<Tristate> {
        match self {
            PropValue::Bool(true) | PropValue::Str("true") => Some(Tristate::True),
            PropValue::Bool(false) | PropValue::Str("false") => Some(Tristate::False),
            PropValue::Str("mixed") => Some(Tristate::Mixed),
            _ => None,
        }
    }

    pub fn level(self) -> Option<u32> {
        match self {
            PropValue::Num(f) if (0.0..1e6).contains(&f) => Some(f as u32),
            _ => None,
        }
    }
}

impl AxNode {
    /// Apply one CDP `AXProperty` (the ones the serializer reads; others are ignored).
    pub fn apply_property(&mut self, name: &str, v: PropValue<'_>) {
        let s = &mut self.states;
        match name {
            "focusable" => self.focusable = v.truthy(),
            "checked" => s.checked = v.tristate(),
            "pressed" => s.pressed = v.tristate(),
            "expanded" => s.expanded = v.tristate().map(|t| t == Tristate::True),
            "disabled" => s.disabled = v.truthy(),
            "selected" => s.selected = v.truthy(),
            "level" => s.level = v.level(),
            "focused" => s.focused = v.truthy(),
            "readonly" => s.readonly = v.truthy(),
            "busy" => s.busy = v.truthy(),
            "modal" => s.modal = v.truthy(),
            "url" => {
                if let PropValue::Str(u) = v {
                    self.url = Some(u.to_string()).filter(|u| !u.is_empty());
                }
            }
            _ => {}
        }
    }
}

impl Tristate {
    pub fn as_str(self) -> &'static str {
        match self {
            Tristate::False => "false",
            Tristate::True => "true",
            Tristate::Mixed => "mixed",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct States {
    pub checked: Option<Tristate>,
    pub pressed: Option<Tristate>,
    pub expanded: Option<bool>,
    pub disabled: bool,
    pub selected: bool,
    pub level: Option<u32>,
    /// Printed in no line (focus is churn); reported in structured elements.
    pub focused: bool,
    pub readonly: bool,
    pub busy: bool,
    /// `aria-modal="true"` on a dialog: the rest of the page is behind it.
    pub modal: bool,
}

#[derive(Debug, Clone, Default)]
pub struct AxNode {
    /// The role as the browser reported it (`RootWebArea`, `StaticText`, `button`, …).
    pub role: std::borrow::Cow<'static, str>,
    pub name: String,
    pub value: Option<String>,
    pub ignored: bool,
    pub focusable: bool,
    pub states: States,
    pub backend_node_id: Option<i64>,
    pub frame_id: Option<String>,
    /// A link's target (`urls: true` prints it).
    pub url: Option<String>,
    pub children: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct AxTree {
    pub nodes: Vec<AxNode>,
    pub root: Option<u32>,
    /// Problems found while reading the input that did not stop the snapshot.
    pub notes: Vec<String>,
    /// Nodes whose content is in a user-agent shadow root, which the DOM
    /// snapshot does not show (a `<video controls>`'s buttons): the DOM
    /// engine's capture asks Chrome for their subtrees and grafts them in.
    pub chrome_subtrees: Vec<u32>,
}

impl AxTree {
    pub fn node(&self, idx: u32) -> Option<&AxNode> {
        self.nodes.get(idx as usize)
    }

    /// The node for a DOM element, as found by `rootSelector`.
    pub fn find_by_backend_id(&self, backend_node_id: i64) -> Option<u32> {
        self.nodes.iter().position(|n| n.backend_node_id == Some(backend_node_id)).map(|i| i as u32)
    }

    /// The ancestors of `idx`, nearest first (one pass to find parents; the walk
    /// up stops at a repeat, so a malformed cycle cannot loop).
    pub fn ancestors(&self, idx: u32) -> Vec<u32> {
        self.ancestors_with(&self.parents(), idx)
    }

    /// Each node's parent (`u32::MAX`: none), for callers that walk up often.
    pub fn parents(&self) -> Vec<u32> {
        let mut parent = vec![u32::MAX; self.nodes.len()];
        for (p, n) in self.nodes.iter().enumerate() {
            for &c in &n.children {
                if let Some(slot) = parent.get_mut(c as usize) {
                    if *slot == u32::MAX {
                        *slot = p as u32;
                    }
                }
            }
        }
        parent
    }

    fn ancestors_with(&self, parent: &[u32], idx: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        let mut cur = idx;
        while let Some(&p) = parent.get(cur as usize) {
            if p == u32::MAX || std::mem::replace(&mut seen[p as usize], true) {
                break;
            }
            out.push(p);
            cur = p;
        }
        out
    }

    /// Put `sub` (rooted at the same element) in place of node `at` and its
    /// children. The old children stay in the arena, unreachable. Indices
    /// are shifted, not walked, so no depth of `sub` can recurse.
    pub fn graft(&mut self, at: u32, sub: AxTree) {
        let (Some(root), Some(_)) = (sub.root, self.nodes.get(at as usize)) else { return };
        let offset = self.nodes.len() as u32;
        // Sub's nodes after its root move down one place: the root lands on `at`.
        let place = |i: u32| match i.cmp(&root) {
            std::cmp::Ordering::Equal => at,
            std::cmp::Ordering::Less => offset + i,
            std::cmp::Ordering::Greater => offset + i - 1,
        };
        let frame_id = self.nodes[at as usize].frame_id.clone();
        for (i, mut n) in sub.nodes.into_iter().enumerate() {
            n.children = n.children.iter().filter(|&&c| c != root).map(|&c| place(c)).collect();
            if i as u32 == root {
                n.frame_id = n.frame_id.or_else(|| frame_id.clone());
                self.nodes[at as usize] = n;
            } else {
                self.nodes.push(n);
            }
        }
    }

    /// The title of the page: the root document's name.
    pub fn title(&self) -> Option<&str> {
        self.root.and_then(|r| self.node(r)).filter(|n| crate::tree::roles::aria_role(&n.role) == "document").map(|n| n.name.as_str()).filter(|s| !s.is_empty())
    }
}
