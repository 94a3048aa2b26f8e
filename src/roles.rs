//! Role vocabulary: how browser-internal roles are named in the text, and
//! which roles are printed, lifted or given refs (SPEC §5–6).

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
        "HeaderAsNonLandmark" | "FooterAsNonLandmark" | "sectionheader" | "sectionfooter" | "SectionWithoutName" | "LabelText" | "Legend"
        | "Abbr" | "Ruby" | "Pre" | "Canvas" | "Unknown" | "LayoutTable" | "LayoutTableRow"
        | "LayoutTableCell" | "Details" | "Div" | "Span" => "generic",
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

/// Roles kept in `interactiveOnly` snapshots even without a name or content.
pub fn is_landmark_or_heading(role: &str) -> bool {
    matches!(
        role,
        "heading" | "main" | "navigation" | "banner" | "contentinfo" | "region" | "complementary" | "search" | "form"
    )
}

/// The printable form of a role: lowercase, anything odd turned into `-`.
pub fn sanitize_role(role: &str) -> String {
    if role.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_') && !role.is_empty() {
        return role.to_string();
    }
    let lowered: String = role
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' { c } else { '-' })
        .collect();
    if lowered.is_empty() {
        "generic".to_string()
    } else {
        lowered
    }
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
