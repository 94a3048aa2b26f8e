//! Text a person cannot see (`untrustedContent: 'mark'`): a hidden
//! instruction is the classic prompt injection, so a line whose text is on
//! the page but not visible says so (`[invisible=transparent]`).
//!
//! Read from DOMSnapshot's computed styles and layout bounds, walking each
//! document's nodes in order (parents first), with what ancestors pass down:
//! opacity multiplies, a clip hides everything inside it, the background
//! shows through transparent boxes.

/// Why a node's text cannot be seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concealed {
    /// Placed above or left of the page (`left: -9999px`).
    Offscreen,
    /// Inside a clip of at most a pixel (`clip: rect(0 0 0 0)`, `clip-path: inset(50%)`, a 1×1 box with overflow hidden).
    Clipped,
    /// Too small to read (font under 4px, or a box under 2px).
    Tiny,
    /// Opacity (its own and its ancestors') near zero, or a fully transparent colour.
    Transparent,
    /// The same colour as the background behind it.
    SameColour,
}

impl Concealed {
    pub fn as_str(self) -> &'static str {
        match self {
            Concealed::Offscreen => "offscreen",
            Concealed::Clipped => "clipped",
            Concealed::Tiny => "tiny",
            Concealed::Transparent => "transparent",
            Concealed::SameColour => "same-colour-as-background",
        }
    }
}

/// The computed styles the capture asks DOMSnapshot for, in this order
/// after `cursor` (index 0, read for click hints).
pub const STYLES: [&str; 7] = ["opacity", "color", "background-color", "font-size", "clip", "clip-path", "overflow-x"];

/// An `rgb()`/`rgba()` colour: (r, g, b, alpha). Not a CSS colour parser
/// (a crate's job): computed colours come back from Chrome in these two
/// forms only, and anything else (`color(srgb …)`) is left unjudged.
pub fn parse_colour(s: &str) -> Option<(u8, u8, u8, f64)> {
    let inner = s.strip_prefix("rgba(").or_else(|| s.strip_prefix("rgb("))?.strip_suffix(')')?;
    let mut parts = inner.split([',', ' ', '/']).filter(|p| !p.is_empty());
    let mut channel = || parts.next()?.trim().parse::<f64>().ok();
    let (r, g, b) = (channel()?, channel()?, channel()?);
    let a = channel().unwrap_or(1.0);
    Some((r.clamp(0.0, 255.0) as u8, g.clamp(0.0, 255.0) as u8, b.clamp(0.0, 255.0) as u8, a))
}

fn px(s: &str) -> Option<f64> {
    s.trim().strip_suffix("px")?.trim().parse().ok()
}

/// `clip: rect(top, right, bottom, left)` that leaves at most a pixel.
fn clip_hides(clip: &str) -> bool {
    let Some(inner) = clip.strip_prefix("rect(").and_then(|c| c.strip_suffix(')')) else { return false };
    let v: Vec<f64> = inner.split([',', ' ']).filter(|p| !p.is_empty()).filter_map(px).collect();
    matches!(v[..], [top, right, bottom, left] if (right - left).max(0.0) * (bottom - top).max(0.0) <= 1.0)
}

/// `clip-path` shapes that leave nothing: `inset(50%)`, `inset(100%)`, `circle(0…)`.
fn clip_path_hides(path: &str) -> bool {
    let p = path.trim();
    (p.starts_with("inset(") && (p.contains("50%") || p.contains("100%")))
        || p.starts_with("circle(0px")
        || p.starts_with("circle(0%")
        || p.starts_with("circle(0 ")
}

/// One node's own facts, when it has a layout box.
#[derive(Debug, Clone, Default)]
pub struct Own<'s> {
    pub styles: [&'s str; 7],
    /// x, y, width, height in the document's coordinates.
    pub bounds: Option<[f64; 4]>,
}

/// What a node passes to its children.
#[derive(Debug, Clone, Copy)]
pub struct Inherited {
    opacity: f64,
    background: (u8, u8, u8),
    colour: Option<(u8, u8, u8, f64)>,
    clipped: bool,
}

impl Inherited {
    /// The root of a document: opaque, white behind it.
    pub const ROOT: Inherited = Inherited { opacity: 1.0, background: (255, 255, 255), colour: None, clipped: false };
}

/// A node's verdict and what its children inherit. `text` is a text node
/// (its layout shares its parent's style, so opacity is not applied twice).
pub fn judge(parent: Inherited, own: Option<&Own<'_>>, text: bool) -> (Option<Concealed>, Inherited) {
    let Some(own) = own else { return (None, parent) };
    let [opacity, colour, background, font_size, clip, clip_path, overflow] = own.styles;
    let opacity = if text { parent.opacity } else { parent.opacity * opacity.trim().parse::<f64>().unwrap_or(1.0) };
    let colour = parse_colour(colour).or(parent.colour);
    let background = match parse_colour(background) {
        Some((r, g, b, a)) if a >= 0.99 => (r, g, b),
        _ => parent.background,
    };
    let small_box = own.bounds.is_some_and(|[_, _, w, h]| w <= 1.0 || h <= 1.0);
    let clipped = parent.clipped || clip_hides(clip) || clip_path_hides(clip_path) || (!text && small_box && overflow != "visible" && !overflow.is_empty());
    let passed = Inherited { opacity, background, colour, clipped };
    let offscreen = own.bounds.is_some_and(|[x, y, w, h]| x + w < 0.0 || y + h < 0.0);
    let verdict = if opacity < 0.05 || (text && colour.is_some_and(|c| c.3 < 0.05)) {
        Some(Concealed::Transparent)
    } else if clipped {
        Some(Concealed::Clipped)
    } else if offscreen {
        Some(Concealed::Offscreen)
    } else if text && (px(font_size).is_some_and(|f| f < 4.0) || own.bounds.is_some_and(|[_, _, w, h]| w < 2.0 || h < 2.0)) {
        Some(Concealed::Tiny)
    } else if text && colour.is_some_and(|(r, g, b, _)| (r, g, b) == background) {
        Some(Concealed::SameColour)
    } else {
        None
    };
    (verdict, passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(styles: [&'static str; 7], bounds: [f64; 4]) -> Own<'static> {
        Own { styles, bounds: Some(bounds) }
    }

    const PLAIN: [&str; 7] = ["1", "rgb(0, 0, 0)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"];

    #[test]
    fn each_way_of_hiding_text_is_named() {
        let text_box = [10.0, 10.0, 100.0, 18.0];
        let visible = judge(Inherited::ROOT, Some(&own(PLAIN, text_box)), true).0;
        assert_eq!(visible, None);
        let (_, faded) = judge(Inherited::ROOT, Some(&own(["0", "rgb(0, 0, 0)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"], text_box)), false);
        assert_eq!(judge(faded, Some(&own(PLAIN, text_box)), true).0, Some(Concealed::Transparent), "an ancestor's opacity");
        let (_, sr_only) = judge(
            Inherited::ROOT,
            Some(&own(["1", "rgb(0, 0, 0)", "rgba(0, 0, 0, 0)", "16px", "rect(0px, 0px, 0px, 0px)", "none", "hidden"], [0.0, 0.0, 1.0, 1.0])),
            false,
        );
        assert_eq!(judge(sr_only, Some(&own(PLAIN, text_box)), true).0, Some(Concealed::Clipped));
        assert_eq!(judge(Inherited::ROOT, Some(&own(PLAIN, [-9999.0, 10.0, 100.0, 18.0])), true).0, Some(Concealed::Offscreen));
        assert_eq!(
            judge(Inherited::ROOT, Some(&own(["1", "rgb(0, 0, 0)", "rgba(0, 0, 0, 0)", "1px", "auto", "none", "visible"], text_box)), true).0,
            Some(Concealed::Tiny)
        );
        assert_eq!(
            judge(Inherited::ROOT, Some(&own(["1", "rgb(255, 255, 255)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"], text_box)), true).0,
            Some(Concealed::SameColour),
            "white on the white page"
        );
        let (_, dark) =
            judge(Inherited::ROOT, Some(&own(["1", "rgb(0, 0, 0)", "rgb(20, 20, 20)", "16px", "auto", "none", "visible"], [0.0, 0.0, 500.0, 500.0])), false);
        assert_eq!(
            judge(dark, Some(&own(["1", "rgb(20, 20, 20)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"], text_box)), true).0,
            Some(Concealed::SameColour)
        );
        assert_eq!(
            judge(dark, Some(&own(["1", "rgb(255, 255, 255)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"], text_box)), true).0,
            None,
            "white on dark"
        );
        assert_eq!(
            judge(Inherited::ROOT, Some(&own(["1", "rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)", "16px", "auto", "none", "visible"], text_box)), true).0,
            Some(Concealed::Transparent)
        );
    }

    #[test]
    fn colours_and_clips_parse() {
        assert_eq!(parse_colour("rgb(1, 2, 3)"), Some((1, 2, 3, 1.0)));
        assert_eq!(parse_colour("rgba(1, 2, 3, 0.5)"), Some((1, 2, 3, 0.5)));
        assert_eq!(parse_colour("color(srgb 1 0 0)"), None);
        assert!(clip_hides("rect(0px, 0px, 0px, 0px)"));
        assert!(clip_hides("rect(1px, 1px, 1px, 1px)"));
        assert!(!clip_hides("rect(0px, 200px, 100px, 0px)"));
        assert!(!clip_hides("auto"));
        assert!(clip_path_hides("inset(50%)"));
        assert!(!clip_path_hides("inset(10px)"));
        assert!(!clip_path_hides("none"));
    }
}
