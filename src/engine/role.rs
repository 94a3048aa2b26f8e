//! An element's role: the first valid token of `role` (WAI-ARIA 1.2
//! #host_general_role, with #conflict_resolution_presentation_none), else its implicit
//! role by element and context (HTML-AAM #html-element-role-mappings).
//! Role names are Chrome's, as `getFullAXTree` reports them, so the
//! serializer reads both engines' trees alike.

use crate::engine::page::{Page, NONE};

/// Concrete ARIA 1.2 roles (#role_definitions) plus the DPub/Graphics roles Chrome maps; abstract roles are not valid.
const ARIA_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "comment",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "image",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "suggestion",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Global ARIA states and properties (#global_states): one of these makes a
/// presentational role on a focusable-less element ignored (#conflict_resolution_presentation_none).
const GLOBAL_ARIA: &[&str] = &[
    "aria-atomic",
    "aria-busy",
    "aria-controls",
    "aria-current",
    "aria-describedby",
    "aria-details",
    "aria-dropeffect",
    "aria-flowto",
    "aria-grabbed",
    "aria-haspopup",
    "aria-keyshortcuts",
    "aria-live",
    "aria-owns",
    "aria-relevant",
    "aria-roledescription",
    "aria-label",
    "aria-labelledby",
];

/// Elements that are focusable without `tabindex` (HTML #focusable-area, as Chrome applies it).
pub fn is_focusable(page: &Page, i: u32) -> bool {
    let n = page.node(i);
    if !n.is_element() {
        return false;
    }
    if n.has_attr("tabindex") && n.attr("tabindex").and_then(|t| t.trim().parse::<i64>().ok()).is_some() {
        return !is_disabled_control(page, i);
    }
    if matches!(n.attr("contenteditable"), Some("" | "true" | "plaintext-only")) {
        return true;
    }
    let natively = match n.tag.as_str() {
        "a" | "area" => n.has_attr("href"),
        "button" | "select" | "textarea" => true,
        "input" => n.attr("type").map(str::to_ascii_lowercase).as_deref() != Some("hidden"),
        "summary" => page.parent_element(i).is_some_and(|p| page.node(p).is("details")),
        // A native select's options are focusable in Chrome's tree (each is a choice to move to).
        "option" => page.ancestors(i).take(2).any(|a| page.node(a).is("select") || page.node(a).is("datalist")),
        "iframe" | "embed" => true,
        // An object shows a plugin or a document only from its `data`;
        // without one it shows its fallback content and takes no focus.
        "object" => n.attr("data").is_some_and(|d| !d.trim().is_empty()),
        "audio" | "video" => n.has_attr("controls"),
        _ => false,
    };
    natively && !is_disabled_control(page, i)
}

/// A form control disabled by its own `disabled` or a disabled `fieldset`
/// ancestor's (not inside that fieldset's first `legend`) — HTML #concept-fe-disabled.
pub fn is_disabled_control(page: &Page, i: u32) -> bool {
    let n = page.node(i);
    if !matches!(n.tag.as_str(), "button" | "input" | "select" | "textarea" | "optgroup" | "option" | "fieldset") {
        return false;
    }
    if n.has_attr("disabled") {
        return true;
    }
    if n.tag == "option" {
        return page.parent_element(i).is_some_and(|p| page.node(p).is("optgroup") && page.node(p).has_attr("disabled"));
    }
    let mut child = i;
    for a in page.ancestors(i) {
        let an = page.node(a);
        if an.is("fieldset") && an.has_attr("disabled") {
            let first_legend = an.children.iter().copied().find(|&c| page.node(c).is("legend"));
            if first_legend != Some(child) {
                return true;
            }
        }
        child = a;
    }
    false
}

fn has_global_aria(page: &Page, i: u32) -> bool {
    page.node(i).attrs.iter().any(|(k, _)| GLOBAL_ARIA.contains(&k.as_str()))
}

/// The explicit role, if `role` names a valid one (#host_general_role: the first valid token wins).
pub fn explicit_role(page: &Page, i: u32) -> Option<&'static str> {
    let value = page.node(i).attr("role")?;
    for token in value.split_ascii_whitespace() {
        let token = token.to_ascii_lowercase();
        if let Some(&r) = ARIA_ROLES.iter().find(|&&r| r == token) {
            // #conflict_resolution_presentation_none: a focusable element or one with global ARIA attributes is not presentational.
            if matches!(r, "none" | "presentation") && (is_focusable(page, i) || has_global_aria(page, i)) {
                continue;
            }
            return Some(match r {
                "image" => "image",
                "img" => "image",
                "presentation" => "none",
                "directory" => "list",
                other => other,
            });
        }
    }
    None
}

/// Inside sectioning content (HTML-AAM: `header`/`footer` map to banner and
/// contentinfo only outside article, aside, main, nav and section; `aside` to
/// complementary outside article, aside, nav and section — `main` counts only with `with_main`).
fn in_sectioning(page: &Page, i: u32, with_main: bool) -> bool {
    page.ancestors(i).any(|a| {
        let n = page.node(a);
        n.is_element()
            && (matches!(n.tag.as_str(), "article" | "aside" | "nav" | "section")
                || (with_main && n.tag == "main")
                || matches!(n.attr("role"), Some("article" | "complementary" | "navigation" | "region"))
                || (with_main && n.attr("role") == Some("main")))
    })
}

/// The implicit role (HTML-AAM #html-element-role-mappings), in Chrome's names. `named` says whether
/// the element has an accessible name, which some mappings depend on.
pub fn implicit_role(page: &Page, i: u32, named: impl Fn() -> bool) -> &'static str {
    let n = page.node(i);
    let input_type = || n.attr("type").map(|t| t.trim().to_ascii_lowercase()).unwrap_or_default();
    match n.tag.as_str() {
        // Chrome also takes an anchor with a click listener for a link.
        "a" | "area" if n.has_attr("href") || (n.tag == "a" && (n.clickable || n.has_attr("onclick"))) => "link",
        "a" | "area" => "generic",
        "article" => "article",
        // HTML-AAM: an `aside` inside article, aside, nav or section is generic unless named.
        "aside" => {
            if in_sectioning(page, i, false) && !named() {
                "generic"
            } else {
                "complementary"
            }
        }
        // The root elements carry nothing of their own (Chrome: ignored, "uninteresting").
        "html" | "body" => "none",
        "pre" => "Pre",
        "b" | "bdi" | "bdo" | "data" | "div" | "i" | "q" | "s" | "samp" | "small" | "span" | "u" => "generic",
        "blockquote" => "blockquote",
        "br" => "LineBreak",
        "button" => "button",
        "canvas" => "Canvas",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "del" => "deletion",
        "details" => "group",
        "dfn" => "term",
        "dialog" => "dialog",
        "dl" => "DescriptionList",
        "dt" => "DescriptionListTerm",
        "dd" => "DescriptionListDetail",
        "em" => "emphasis",
        "fieldset" => "group",
        "figure" => "figure",
        "figcaption" => "Figcaption",
        "footer" => {
            if in_sectioning(page, i, true) {
                "FooterAsNonLandmark"
            } else {
                "contentinfo"
            }
        }
        "form" => "form",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "header" => {
            if in_sectioning(page, i, true) {
                "HeaderAsNonLandmark"
            } else {
                "banner"
            }
        }
        "hgroup" => "group",
        "hr" => "separator",
        "iframe" | "frame" => "Iframe",
        "img" => match n.attr("alt") {
            Some("") if !has_global_aria(page, i) && !n.has_attr("title") => "none",
            _ => "image",
        },
        "input" => match input_type().as_str() {
            "button" | "image" | "reset" | "submit" => "button",
            "checkbox" => "checkbox",
            "radio" => "radio",
            "range" => "slider",
            "number" => "spinbutton",
            "color" => "ColorWell",
            "date" => "Date",
            "datetime-local" => "DateTime",
            "time" => "InputTime",
            "month" | "week" => "DateTime",
            "file" => "button",
            "hidden" => "none",
            "search" => {
                if n.has_attr("list") {
                    "combobox"
                } else {
                    "searchbox"
                }
            }
            // email, tel, text, url, password and unknown types are text fields.
            _ => {
                if n.has_attr("list") {
                    "combobox"
                } else {
                    "textbox"
                }
            }
        },
        "ins" => "insertion",
        "label" => "LabelText",
        "legend" => "Legend",
        // HTML-AAM: `li` is a list item only in a list (a `ul role=tablist` makes it generic).
        "li" => {
            let in_list = page.parent_element(i).is_some_and(|p| {
                let pn = page.node(p);
                match explicit_role(page, p) {
                    Some(r) => r == "list",
                    None => matches!(pn.tag.as_str(), "ul" | "ol" | "menu"),
                }
            });
            if in_list {
                "listitem"
            } else {
                "generic"
            }
        }
        "main" => "main",
        "mark" => "mark",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "optgroup" => "group",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" => {
            if named() {
                "region"
            } else {
                "SectionWithoutName"
            }
        }
        "select" => {
            let multiple = n.has_attr("multiple");
            let size = n.attr("size").and_then(|s| s.trim().parse::<i64>().ok()).unwrap_or(0);
            if multiple || size > 1 {
                "listbox"
            } else {
                "combobox"
            }
        }
        "strong" => "strong",
        "sub" => "subscript",
        "sup" => "superscript",
        "svg" => "SvgRoot",
        // SVG-AAM: a `g` with a `title` is a group, and so is a `use` whose
        // copy has one (Chrome leaves untitled ones out of its tree).
        "g" if titled_svg(page, i) => "group",
        "use" if page.used_element(i).is_some_and(|r| page.descendants_any(r, |d| d.is("title"))) => "group",
        "table" => "table",
        "thead" | "tfoot" => "rowgroup",
        // Chrome leaves an implicit `tbody` out (its rows belong to the table).
        "tbody" => "none",
        "td" => match table_role(page, i) {
            Some("grid" | "treegrid") => "gridcell",
            _ => "cell",
        },
        "th" => header_cell_role(page, i),
        "textarea" => "textbox",
        "time" => "time",
        "tr" => "row",
        "summary" => "DisclosureTriangle",
        "abbr" => "Abbr",
        "ruby" => "Ruby",
        "object" => "PluginObject",
        "embed" => "EmbeddedObject",
        "audio" => "Audio",
        "video" => "Video",
        _ => "generic",
    }
}

/// An SVG element with a `title` child that says something.
fn titled_svg(page: &Page, i: u32) -> bool {
    page.node(i).children.iter().any(|&c| {
        let t = page.node(c);
        t.is("title") && t.children.iter().any(|&x| !page.node(x).text.trim().is_empty())
    })
}

/// The role of the table a cell is in (`grid` changes `td` to `gridcell`).
pub fn table_role(page: &Page, i: u32) -> Option<&'static str> {
    let table = page.ancestors(i).find(|&a| page.node(a).is("table") || matches!(explicit_role(page, a), Some("grid" | "treegrid" | "table")))?;
    Some(explicit_role(page, table).unwrap_or("table"))
}

/// `th`: a column header unless it heads a row (HTML-AAM: `scope`, or cells beside it in its row).
fn header_cell_role(page: &Page, i: u32) -> &'static str {
    let n = page.node(i);
    match n.attr("scope").map(str::to_ascii_lowercase).as_deref() {
        Some("row" | "rowgroup") => return "rowheader",
        Some("col" | "colgroup") => return "columnheader",
        _ => {}
    }
    let row = page.parent_element(i);
    let in_body = row.and_then(|r| page.parent_element(r)).is_some_and(|g| page.node(g).is("tbody"));
    let has_td_sibling = row.is_some_and(|r| page.node(r).children.iter().any(|&c| page.node(c).is("td")));
    if in_body && has_td_sibling && row.is_some_and(|r| page.node(r).children.iter().copied().find(|&c| page.node(c).is_element()) == Some(i)) {
        "rowheader"
    } else {
        "columnheader"
    }
}

/// The element's role: explicit, else implicit.
pub fn role_of(page: &Page, i: u32, named: impl Fn() -> bool) -> &'static str {
    if i == NONE {
        return "generic";
    }
    explicit_role(page, i).unwrap_or_else(|| implicit_role(page, i, named))
}
