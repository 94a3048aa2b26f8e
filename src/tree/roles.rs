//! Role vocabulary: how browser-internal roles are named in the text, and
//! which roles are printed, lifted or given refs (SPEC §5–6).

/// Every role name Chrome reports, so trees share one copy of each instead of
/// allocating a string per node.
const KNOWN_ROLES: &[&str] = &[
    "RootWebArea",
    "WebArea",
    "StaticText",
    "InlineTextBox",
    "LineBreak",
    "ListMarker",
    "generic",
    "none",
    "presentation",
    "paragraph",
    "heading",
    "link",
    "button",
    "image",
    "img",
    "list",
    "listitem",
    "LabelText",
    "Section",
    "sectionheader",
    "sectionfooter",
    "contentinfo",
    "banner",
    "navigation",
    "main",
    "complementary",
    "region",
    "form",
    "textbox",
    "searchbox",
    "combobox",
    "checkbox",
    "radio",
    "MenuListPopup",
    "MenuListOption",
    "Iframe",
    "IframePresentational",
    "Canvas",
    "Pre",
    "Abbr",
    "Ruby",
    "mark",
    "term",
    "definition",
    "time",
    "code",
    "strong",
    "emphasis",
    "subscript",
    "superscript",
    "deletion",
    "insertion",
    "blockquote",
    "caption",
    "figure",
    "Figcaption",
    "DisclosureTriangle",
    "group",
    "table",
    "row",
    "cell",
    "columnheader",
    "rowheader",
    "rowgroup",
    "LayoutTable",
    "LayoutTableRow",
    "LayoutTableCell",
    "Video",
    "Audio",
    "Details",
    "Date",
    "DateTime",
    "InputTime",
    "ColorWell",
    "meter",
    "progressbar",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "tablist",
    "tabpanel",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "listbox",
    "tree",
    "treeitem",
    "treegrid",
    "grid",
    "gridcell",
    "dialog",
    "alertdialog",
    "alert",
    "status",
    "log",
    "marquee",
    "timer",
    "toolbar",
    "tooltip",
    "separator",
    "scrollbar",
    "article",
    "feed",
    "math",
    "note",
    "document",
    "application",
    "search",
    "Search",
    "SvgRoot",
    "HeaderAsNonLandmark",
    "FooterAsNonLandmark",
    "SectionWithoutName",
    "DescriptionList",
    "DescriptionListTerm",
    "DescriptionListDetail",
    "Legend",
    "Unknown",
    "PluginObject",
    "Ignored",
    "text",
    "graphics-document",
    "graphics-object",
    "graphics-symbol",
    "doc-subtitle",
    "comment",
    "suggestion",
];

/// The shared copy of a role name, or an owned one for a role we have not seen.
pub fn intern(role: &str) -> std::borrow::Cow<'static, str> {
    use std::sync::OnceLock;
    static TABLE: OnceLock<rustc_hash::FxHashMap<&'static str, &'static str>> = OnceLock::new();
    let table = TABLE.get_or_init(|| KNOWN_ROLES.iter().map(|r| (*r, *r)).collect());
    match table.get(role) {
        Some(r) => std::borrow::Cow::Borrowed(r),
        None => std::borrow::Cow::Owned(role.to_string()),
    }
}

/// Browser-internal role → the ARIA name printed in the text.
pub fn aria_role(raw: &str) -> &str {
    match raw {
        "RootWebArea" | "WebArea" => "document",
        "StaticText" => "text",
        "image" | "Image" | "SvgRoot" => "img",
        "Iframe" | "IframePresentational" => "iframe",
        "MenuListPopup" => "listbox",
        "MenuListOption" => "option",
        "DisclosureTriangle" => "button",
        "HeaderAsNonLandmark"
        | "FooterAsNonLandmark"
        | "sectionheader"
        | "sectionfooter"
        | "SectionWithoutName"
        | "LabelText"
        | "Legend"
        | "Abbr"
        | "Ruby"
        | "Pre"
        | "Canvas"
        | "Unknown"
        | "LayoutTable"
        | "LayoutTableRow"
        | "LayoutTableCell"
        | "Details"
        | "Div"
        | "Span" => "generic",
        "DescriptionList" => "list",
        "DescriptionListTerm" => "term",
        "DescriptionListDetail" => "definition",
        "Section" => "region",
        "Search" => "search",
        "Figcaption" => "caption",
        other => other,
    }
}

/// Roles whose node and everything under it are not printed (their text is
/// already in their parent's `StaticText` name).
pub fn is_dropped_with_subtree(raw: &str) -> bool {
    matches!(raw, "InlineTextBox" | "LineBreak")
}

/// Roles that never print a line of their own; their children move up.
pub fn is_transparent(raw: &str) -> bool {
    matches!(raw, "ListMarker")
}

/// Containers that carry no meaning when they have no name.
pub fn is_nameless_container(role: &str) -> bool {
    matches!(role, "generic" | "none" | "presentation" | "group-hidden")
}

/// Tier 1: these roles always get a ref.
pub fn is_tier1_role(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "link"
            | "textbox"
            | "searchbox"
            | "combobox"
            | "checkbox"
            | "radio"
            | "switch"
            | "slider"
            | "spinbutton"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "tab"
    )
}

/// Tier 2: these get a ref inside an interactive container.
pub fn is_tier2_role(role: &str) -> bool {
    matches!(role, "option" | "treeitem" | "row" | "gridcell" | "cell" | "listitem")
}

/// Containers that make tier-2 descendants actionable.
/// The old module's `DEFAULT_INTERACTIVE_ROLES` (SPEC §2), exported as is.
pub const DEFAULT_INTERACTIVE_ROLES: [&str; 19] = [
    "button",
    "link",
    "textbox",
    "searchbox",
    "combobox",
    "checkbox",
    "radio",
    "switch",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "tab",
    "slider",
    "spinbutton",
    "treeitem",
    "listbox",
    "gridcell",
    "cell",
];

pub fn is_interactive_container(role: &str) -> bool {
    matches!(role, "listbox" | "combobox" | "menu" | "menubar" | "tree" | "grid" | "treegrid" | "tablist")
}

/// Structural roles never get a ref, even when the browser reports them focusable
/// (a `<main tabindex=-1>` skip target is not a control).
pub fn is_never_ref_role(role: &str) -> bool {
    matches!(
        role,
        "document"
            | "heading"
            | "paragraph"
            | "text"
            | "separator"
            | "img"
            | "figure"
            | "main"
            | "navigation"
            | "banner"
            | "contentinfo"
            | "region"
            | "complementary"
            | "form"
            | "search"
            | "article"
            | "list"
            | "table"
            | "rowgroup"
            | "columnheader"
            | "rowheader"
            | "caption"
            | "blockquote"
            | "code"
            | "strong"
            | "emphasis"
            | "iframe"
            | "dialog"
            | "alertdialog"
            | "alert"
            | "status"
            | "log"
            | "math"
            | "note"
            | "term"
            | "definition"
            | "time"
            | "toolbar"
            | "tabpanel"
            | "feed"
            | "application"
            | "scrollbar"
    )
}

/// The printable form of a role: lowercase, anything odd turned into `-`.
pub fn sanitize_role(role: &str) -> std::borrow::Cow<'_, str> {
    if role.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_') && !role.is_empty() {
        return std::borrow::Cow::Borrowed(role);
    }
    let lowered: String =
        role.chars().flat_map(char::to_lowercase).map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' { c } else { '-' }).collect();
    std::borrow::Cow::Owned(if lowered.is_empty() { "generic".to_string() } else { lowered })
}

/// Nameless structure a reader loses nothing by skipping when it holds a
/// single element: `- listitem:` over one link says no more than the link.
/// Landmarks, tables, frames, forms, articles and interactive containers
/// keep their line: they tell where a control is or what it belongs to.
pub fn is_unwrappable(role: &str) -> bool {
    matches!(
        role,
        "listitem"
            | "list"
            | "paragraph"
            | "generic"
            | "group"
            | "superscript"
            | "subscript"
            | "blockquote"
            | "figure"
            | "note"
            | "term"
            | "definition"
            | "emphasis"
            | "strong"
            | "mark"
            | "time"
            | "code"
            | "deletion"
            | "insertion"
            | "caption"
    )
}

/// Roles whose accessible name is computed from their content (WAI-ARIA 1.2
/// §5.2.8.4 "name from: contents"), so text inside them is part of the name.
pub fn is_named_from_content(role: &str) -> bool {
    matches!(
        role,
        "heading"
            | "cell"
            | "gridcell"
            | "columnheader"
            | "rowheader"
            | "link"
            | "button"
            | "tab"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "treeitem"
            | "row"
            | "tooltip"
            | "switch"
            | "radio"
            | "checkbox"
            | "caption"
            | "term"
    )
}

/// Inline formatting (HTML phrasing content) that a reader reads as part of
/// the sentence around it.
pub fn is_phrasing(role: &str) -> bool {
    matches!(role, "emphasis" | "strong" | "code" | "mark" | "time" | "superscript" | "subscript" | "deletion" | "insertion" | "generic")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_roles_get_aria_names() {
        assert_eq!(aria_role("RootWebArea"), "document");
        assert_eq!(aria_role("StaticText"), "text");
        assert_eq!(aria_role("image"), "img");
        assert_eq!(aria_role("button"), "button");
        assert_eq!(sanitize_role("MenuListPopup"), "menulistpopup");
        assert_eq!(sanitize_role("<b>"), "-b-");
        assert_eq!(sanitize_role(""), "generic");
    }
}
