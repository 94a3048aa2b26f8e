//! Accessible names: the text alternative computation of accname 1.2 ("Computation steps",
//! #computation-steps; steps 2A–2I below), with the HTML-AAM
//! #accessible-name-computations-by-html-element sources for native elements (labels, `alt`,
//! `legend`, `caption`, `figcaption`, button values, `title`, `placeholder`).
//!
//! The name-from-content traversal (step 2F) walks the subtree with
//! an explicit stack, so a deep page cannot exhaust the native stack. An
//! `aria-labelledby` reference starts a traversal of its own, which never
//! follows `aria-labelledby` again (step 2B), so nesting is bounded at two.

use crate::engine::page::{Kind, Page, Pseudo, NONE};

/// Roles whose name may come from their content (WAI-ARIA 1.2 #namefromcontent, and
/// Chrome's internal roles that follow the same rule).
pub fn from_content(role: &str) -> bool {
    // Phrasing roles (code, emphasis, strong, time, …) may take their content
    // in ARIA 1.2, but Chrome leaves them unnamed, their text as children.
    matches!(
        role,
        "button"
            | "cell"
            | "checkbox"
            | "columnheader"
            | "gridcell"
            | "heading"
            | "link"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "radio"
            | "row"
            | "rowheader"
            | "switch"
            | "tab"
            | "tooltip"
            | "treeitem"
            | "DisclosureTriangle"
            | "MenuListOption"
    )
}

/// Roles whose content never counts toward another element's name, even
/// inside a name-from-content traversal (as Chrome computes names: landmarks,
/// containers and composite widgets keep their text to themselves).
fn keeps_content(role: &str) -> bool {
    matches!(
        role,
        "alert"
            | "alertdialog"
            | "application"
            | "article"
            | "banner"
            | "complementary"
            | "contentinfo"
            | "dialog"
            | "document"
            | "feed"
            | "form"
            | "grid"
            | "group"
            | "list"
            | "listbox"
            | "log"
            | "main"
            | "marquee"
            | "math"
            | "menu"
            | "menubar"
            | "navigation"
            | "note"
            | "radiogroup"
            | "region"
            | "search"
            | "table"
            | "tablist"
            | "tabpanel"
            | "timer"
            | "toolbar"
            | "tree"
            | "treegrid"
            | "Iframe"
            // An image's children are presentational: `<svg role="img">` with a
            // `use`, or `<span role="img">` with text, gives only its own name.
            | "img"
            | "image"
            | "RootWebArea"
            | "DescriptionList"
            | "figure"
    )
}

/// What the computation needs from the tree builder: whether a node is hidden
/// (step 2A), and each element's role.
pub struct Namer<'p> {
    pub page: &'p Page,
    /// Not rendered, `aria-hidden`, `inert`: the node and its subtree.
    pub gone: &'p [bool],
    /// `visibility: hidden` on the node itself.
    pub invisible: &'p [bool],
    pub roles: &'p [&'static str],
    /// Content traversals in progress. A label's content can hold a control
    /// named by another label, a legend a fieldset with its own legend: the
    /// page decides how deep that goes, so it is cut at MAX_NESTING.
    pub nesting: std::cell::Cell<u32>,
    /// Nodes visited for the name being computed (bounded by MAX_NAME_NODES).
    pub visits: std::cell::Cell<usize>,
}

/// Content traversals one name may nest (a label inside a legend inside a caption …).
const MAX_NESTING: u32 = 8;

enum Step {
    Enter(u32),
    /// Leaving an element: where its text began, and whether it was a block.
    Exit(u32, usize, bool),
}

/// Nodes one name's content traversals visit at most, together. Names print at most
/// `maxNameChars`, and without a bound a page of nested buttons would make
/// naming quadratic (each button names its whole subtree).
const MAX_NAME_NODES: usize = 2_000;

/// Elements a `label` names (HTML #category-label): their name comes from their labels.
pub(crate) fn is_labelable(tag: &str) -> bool {
    matches!(tag, "input" | "textarea" | "select" | "meter" | "progress" | "output" | "button")
}

/// The label a submit or reset button without a `value` shows (HTML #submit-button-state).
pub(crate) fn default_button_label(input_type: &str) -> Option<&'static str> {
    match input_type {
        "submit" => Some("Submit"),
        "reset" => Some("Reset"),
        _ => None,
    }
}

/// Runs of ASCII whitespace (CSS's document white space) become one space, the ends trimmed.
pub(crate) fn collapse(s: &str) -> String {
    s.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

impl<'p> Namer<'p> {
    fn hidden(&self, i: u32) -> bool {
        self.gone.get(i as usize).copied().unwrap_or(true) || self.invisible.get(i as usize).copied().unwrap_or(false)
    }

    fn role(&self, i: u32) -> &'static str {
        self.roles.get(i as usize).copied().unwrap_or("generic")
    }

    /// The accessible name of element `i` (accname steps 1–2 from the root).
    pub fn name(&self, i: u32) -> String {
        // One budget for the whole name, nested traversals included.
        self.visits.set(0);
        collapse(&self.text_alternative(i, false, true))
    }

    /// Step 2B: `aria-labelledby` (not inside another labelledby traversal).
    fn labelledby(&self, i: u32, in_labelledby: bool) -> Option<String> {
        if in_labelledby {
            return None;
        }
        let ids = self.page.node(i).attr("aria-labelledby")?;
        let refs: Vec<u32> = ids.split_ascii_whitespace().filter_map(|id| self.page.by_id(i, id)).collect();
        if refs.is_empty() {
            return None;
        }
        let parts: Vec<String> = refs.iter().map(|&r| collapse(&self.text_alternative(r, true, false))).filter(|s| !s.is_empty()).collect();
        Some(parts.join(" "))
    }

    /// The text alternative of `i`: `in_labelledby` when reached through
    /// `aria-labelledby` (hidden nodes then still count, step 2A), `root`
    /// when `i` is the element being named.
    fn text_alternative(&self, i: u32, in_labelledby: bool, root: bool) -> String {
        let page = self.page;
        let n = page.node(i);
        if n.kind == Some(Kind::Text) {
            return n.transform.apply(&n.text).into_owned();
        }
        if !in_labelledby && self.hidden(i) {
            return String::new();
        }
        if let Some(s) = self.labelledby(i, in_labelledby) {
            if !s.is_empty() {
                return s;
            }
        }
        if let Some(s) = self.own_alternative(i, in_labelledby, root) {
            return s;
        }
        let role = self.role(i);
        if from_content(role) || in_labelledby || !root {
            let s = self.content(i, in_labelledby);
            if !collapse(&s).is_empty() {
                return s;
            }
        }
        if root { self.title_name(i) } else { self.tooltip(i) }.unwrap_or_default()
    }

    /// Steps 2C–2E for one element: `aria-label`, an embedded control's value
    /// (when it is not the root), and the host language's own sources.
    fn own_alternative(&self, i: u32, in_labelledby: bool, root: bool) -> Option<String> {
        let page = self.page;
        let n = page.node(i);
        let role = self.role(i);
        // 2E: inside another element's name, a control contributes its value.
        if !root {
            if let Some(v) = self.embedded_value(i, role) {
                return Some(v);
            }
        }
        if let Some(label) = n.attr("aria-label").map(str::trim).filter(|s| !s.is_empty()) {
            return Some(label.to_string());
        }
        if matches!(role, "none") && !root {
            return None;
        }
        let input_type = n.attr("type").map(|t| t.trim().to_ascii_lowercase()).unwrap_or_default();
        let button_like = matches!(input_type.as_str(), "button" | "submit" | "reset" | "image");
        if n.is("input") && button_like && self.has_label(i) {
            // A button-like input with a label element is named by the label
            // alone, even an empty one: Chrome then gives it no name, not its
            // value, `alt` or `title` (`<label><input type=submit value=Go></label>` is "").
            return Some(self.labels(i, in_labelledby));
        }
        // A value attribute names a button-like input even when empty (Chrome
        // does not go on to its title), and an `alt` an image, even an empty one.
        if n.is("input") && matches!(input_type.as_str(), "button" | "submit" | "reset") {
            if let Some(v) = n.attr("value") {
                return Some(v.to_string());
            }
        }
        if matches!(n.tag.as_str(), "img" | "area") {
            if let Some(alt) = n.attr("alt") {
                return Some(alt.to_string());
            }
        }
        let native = match n.tag.as_str() {
            // Without a value (that returned above): the label a submit or reset button shows.
            "input" if matches!(input_type.as_str(), "button" | "submit" | "reset") => default_button_label(&input_type).map(str::to_string),
            "input" if input_type == "image" => n.attr("alt").or(n.attr("value")).map(str::to_string),
            t if is_labelable(t) => {
                let labels = self.labels(i, in_labelledby);
                (!labels.is_empty()).then_some(labels)
            }
            "fieldset" => self.first_child_tag(i, "legend").map(|l| self.content(l, in_labelledby)),
            "table" => self.first_child_tag(i, "caption").map(|c| self.content(c, in_labelledby)),
            "svg" | "g" => self.first_child_tag(i, "title").map(|t| self.plain_text(t)),
            "use" => self.used_titles(i),
            "option" => n.attr("label").map(str::to_string),
            _ => None,
        };
        if let Some(s) = native.filter(|s| !collapse(s).is_empty()) {
            return Some(s);
        }
        // Text fields: `title`, then `placeholder` (HTML-AAM #input-type-text-input-type-password-input-type-number-input-type-search-input-type-tel-input-type-email-input-type-url-and-textarea-element-accessible-name-computation).
        if matches!(n.tag.as_str(), "input" | "textarea") && !matches!(input_type.as_str(), "button" | "submit" | "reset" | "image") {
            if let Some(t) = self.tooltip(i) {
                return Some(t);
            }
            // A field with a label element (even an empty one) is not named by its placeholder (as Chrome does).
            if self.has_label(i) {
                return None;
            }
            return n.attr("placeholder").filter(|p| !p.trim().is_empty()).map(str::to_string);
        }
        None
    }

    /// Step 2E: a textbox's value, a combobox's or listbox's chosen option, a range's value.
    fn embedded_value(&self, i: u32, role: &str) -> Option<String> {
        let n = self.page.node(i);
        match role {
            "textbox" | "searchbox" => Some(n.value.clone().or_else(|| n.attr("value").map(str::to_string)).unwrap_or_default()),
            "combobox" | "listbox" => {
                if n.is("select") {
                    Some(self.selected_option(i).map(|o| self.plain_text(o)).unwrap_or_default())
                } else {
                    n.value.clone()
                }
            }
            "slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter" => {
                n.attr("aria-valuetext").or(n.attr("aria-valuenow")).map(str::to_string).or_else(|| n.value.clone())
            }
            _ => None,
        }
    }

    /// A `select`'s selected option (the first when none is marked).
    pub fn selected_option(&self, select: u32) -> Option<u32> {
        let page = self.page;
        let mut first = None;
        let mut stack: Vec<u32> = page.node(select).children.iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            let n = page.node(c);
            if n.is("option") {
                if n.selected {
                    return Some(c);
                }
                first.get_or_insert(c);
            } else if n.is("optgroup") {
                stack.extend(n.children.iter().rev().copied());
            }
        }
        first
    }

    /// `<label for=id>` elements, then an ancestor `label`, their content joined (HTML-AAM #input-type-text-input-type-password-input-type-number-input-type-search-input-type-tel-input-type-email-input-type-url-and-textarea-element-accessible-name-computation).
    fn labels(&self, i: u32, in_labelledby: bool) -> String {
        let page = self.page;
        let n = page.node(i);
        let mut found: Vec<u32> = Vec::new();
        if let Some(id) = n.attr("id").filter(|s| !s.is_empty()) {
            found.extend_from_slice(page.labels_for(i, id));
        }
        if let Some(a) = page.ancestors(i).find(|&a| page.node(a).is("label")) {
            if !found.contains(&a) {
                found.push(a);
            }
        }
        let parts: Vec<String> = found.iter().map(|&l| collapse(&self.content_skipping(l, i, in_labelledby))).filter(|s| !s.is_empty()).collect();
        parts.join(" ")
    }

    fn has_label(&self, i: u32) -> bool {
        let page = self.page;
        let n = page.node(i);
        n.attr("id").filter(|s| !s.is_empty()).is_some_and(|id| !page.labels_for(i, id).is_empty()) || page.ancestors(i).any(|a| page.node(a).is("label"))
    }

    /// An SVG `use` shows a copy of the element its `href` names (SVG 2
    /// #UseElement), and Chrome reads the copy: the `title` of the element
    /// and of each element inside it names it (an icon link
    /// `<a><svg><use href="#icon-search"/></svg></a>` is "search" when the
    /// symbol has `<title>search</title>`). `use` elements inside the copy
    /// are not followed, so a cycle of references ends.
    fn used_titles(&self, i: u32) -> Option<String> {
        let page = self.page;
        let r = page.used_element(i)?;
        let mut titles: Vec<String> = Vec::new();
        let mut stack = vec![r];
        let mut visits = 0usize;
        while let Some(e) = stack.pop() {
            visits += 1;
            if visits > MAX_NAME_NODES {
                break;
            }
            let node = page.node(e);
            if !node.is_element() || node.is("use") || node.is("title") {
                continue;
            }
            if let Some(t) = self.first_child_tag(e, "title") {
                let t = self.plain_text(t);
                if !t.is_empty() {
                    titles.push(t);
                    continue;
                }
            }
            stack.extend(node.children.iter().rev().copied());
        }
        (!titles.is_empty()).then(|| titles.join(" "))
    }

    fn first_child_tag(&self, i: u32, tag: &str) -> Option<u32> {
        self.page.node(i).children.iter().copied().find(|&c| self.page.node(c).is(tag))
    }

    /// Step 2I: `title`.
    fn tooltip(&self, i: u32) -> Option<String> {
        self.page.node(i).attr("title").filter(|t| !t.trim().is_empty()).map(str::to_string)
    }

    /// The element's own name from its `title`: none when the title only
    /// repeats the element's own text, as in Chrome's tree
    /// (`<label title="Search">Search</label>` is "").
    pub fn title_name(&self, i: u32) -> Option<String> {
        self.tooltip(i).map(|t| collapse(&t)).filter(|t| *t != self.text_of(i))
    }

    /// The rendered text of an element's subtree, whitespace collapsed.
    pub fn text_of(&self, i: u32) -> String {
        collapse(&self.content(i, false))
    }

    /// A node's text, hidden or not (an SVG `title`, an option's label).
    fn plain_text(&self, i: u32) -> String {
        let page = self.page;
        let mut out = String::new();
        let mut stack = vec![i];
        while let Some(c) = stack.pop() {
            let n = page.node(c);
            match n.kind {
                Some(Kind::Text) => out.push_str(&n.text),
                Some(Kind::Element) if n.pseudo.is_none() => stack.extend(n.children.iter().rev().copied()),
                _ => {}
            }
        }
        collapse(&out)
    }

    fn content(&self, i: u32, in_labelledby: bool) -> String {
        self.content_skipping(i, NONE, in_labelledby)
    }

    /// Step 2F: the text of `i`'s subtree, each element contributing its own
    /// text alternative (2C–2E) or else its content, and CSS generated
    /// content in its place. `skip` (the control a label names) is left out.
    fn content_skipping(&self, i: u32, skip: u32, in_labelledby: bool) -> String {
        if self.nesting.get() >= MAX_NESTING {
            return String::new();
        }
        self.nesting.set(self.nesting.get() + 1);
        let out = self.walk_content(i, skip, in_labelledby);
        self.nesting.set(self.nesting.get() - 1);
        out
    }

    fn walk_content(&self, i: u32, skip: u32, in_labelledby: bool) -> String {
        let page = self.page;
        let mut out = String::new();
        let mut stack: Vec<Step> = page.node(i).children.iter().rev().map(|&c| Step::Enter(c)).collect();
        while let Some(step) = stack.pop() {
            self.visits.set(self.visits.get() + 1);
            if self.visits.get() > MAX_NAME_NODES {
                break;
            }
            let c = match step {
                Step::Enter(c) => c,
                Step::Exit(c, start, block) => {
                    // 2I: an element whose content gave nothing may still have a
                    // title; in another element's name Chrome reads it only for
                    // roles that take names from more than their author (an
                    // `img`, an `abbr`), never a generic's or a paragraph's
                    // (`<a>Share<div title="WeChat"><img></div></a>` is "Share").
                    if out[start..].trim().is_empty() && !author_only(self.role(c)) {
                        if let Some(t) = self.tooltip(c) {
                            out.push_str(&t);
                        }
                    }
                    if block {
                        out.push(' ');
                    }
                    continue;
                }
            };
            if c == skip {
                continue;
            }
            let n = page.node(c);
            match n.kind {
                Some(Kind::Text) => {
                    if in_labelledby || !self.hidden(c) {
                        out.push_str(&n.transform.apply(&n.text));
                    }
                    continue;
                }
                Some(Kind::Element) => {}
                _ => continue,
            }
            if let Some(p) = n.pseudo {
                if matches!(p, Pseudo::Before | Pseudo::After) {
                    out.push_str(&generated_text(&n.content));
                }
                continue;
            }
            // 2A: hidden descendants are skipped, except inside a labelledby target.
            if self.hidden(c) && !in_labelledby {
                continue;
            }
            // A line break, and a word-break opportunity, read as a space in
            // Chrome's names ("mozilla<wbr>.org" is "mozilla .org").
            if n.is("br") || n.is("wbr") {
                out.push(' ');
                continue;
            }
            let role = self.role(c);
            if let Some(s) = self.labelledby(c, in_labelledby).filter(|s| !s.is_empty()) {
                out.push_str(&s);
                continue;
            }
            if let Some(s) = self.own_alternative(c, in_labelledby, false) {
                out.push(' ');
                out.push_str(&s);
                out.push(' ');
                continue;
            }
            if keeps_content(role) {
                // An image with no other name is still named by its title.
                if matches!(role, "img" | "image") {
                    if let Some(t) = self.tooltip(c) {
                        out.push(' ');
                        out.push_str(&t);
                        out.push(' ');
                    }
                }
                continue;
            }
            let block = is_block(&n.display);
            if block {
                out.push(' ');
            }
            stack.push(Step::Exit(c, out.len(), block));
            stack.extend(n.children.iter().rev().map(|&k| Step::Enter(k)));
        }
        out
    }
}

/// A block-level box: its text is set apart from its neighbours' in a name.
fn is_block(display: &str) -> bool {
    !(display.is_empty() || display.starts_with("inline") || display == "contents" || display == "none")
}

/// The string parts of a computed `content` value (`"Go "`, `"a" "b"`);
/// counters, `attr()` and images are not read. Not a CSS parser (cssparser
/// would be one more dependency for this): Chrome serializes computed
/// `content` canonically, strings in double quotes with `\` escapes between
/// keywords and functions, and only the strings are text.
pub fn generated_text(content: &str) -> String {
    let mut out = String::new();
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let quote = c;
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    }
                    d if d == quote => break,
                    d => out.push(d),
                }
            }
        }
    }
    out
}

/// Roles that take only an author name (`aria-label`, `aria-labelledby`,
/// `title`): neither native sources nor content name them.
pub fn author_only(role: &str) -> bool {
    matches!(
        role,
        "generic"
            | "none"
            | "LineBreak"
            | "StaticText"
            | "Pre"
            | "SectionWithoutName"
            | "HeaderAsNonLandmark"
            | "FooterAsNonLandmark"
            | "paragraph"
            | "list"
            | "listitem"
            | "DescriptionList"
            | "DescriptionListDetail"
            | "blockquote"
            | "Canvas"
    )
}
