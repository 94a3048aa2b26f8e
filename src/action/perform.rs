//! Click, fill, select and scroll on a live element, with the checks a user
//! would make first: enabled, visible, inside the viewport, not covered.

use serde_json::{json, Value};

use super::element::{Live, RefTarget};
use super::outcome::{ActionCode, Fail, Step};
use super::page::{Arg, Page};
use super::scripts;
use crate::compat::js_string::json_quote;

fn js_round(x: f64) -> f64 {
    // Math.round: halves go up, also below zero.
    (x + 0.5).floor()
}

fn flag(state: &Value, key: &str) -> bool {
    state.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn tag(state: &Value) -> &str {
    state.get("tag").and_then(Value::as_str).unwrap_or("?")
}

/// Scroll the element into view; the centre of its first box with an area,
/// in the page's viewport, which must contain it.
pub async fn click_point(page: &Page<'_>, el: &Live, target: &RefTarget) -> Step<Value> {
    let s = el.session.as_deref();
    let by_id = json!({ "backendNodeId": el.backend_node_id });
    let _ = page.send_raw("DOM.scrollIntoViewIfNeeded", &by_id, s).await?;
    let quads = match page.send_raw("DOM.getContentQuads", &by_id, s).await? {
        Ok(q) => q.get("quads").and_then(Value::as_array).cloned().unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let quad = quads
        .iter()
        .filter_map(|q| q.as_array())
        .map(|q| q.iter().map(|v| v.as_f64().unwrap_or(0.0)).collect::<Vec<f64>>())
        .find(|p| p.len() == 8 && (((p[2] - p[0]) * (p[7] - p[1])).abs() > 0.5 || ((p[4] - p[0]) * (p[5] - p[1])).abs() > 0.5));
    let Some(p) = quad else {
        return Err(Fail::new(ActionCode::ElementNotVisible, format!("{} has no visible box (hidden, collapsed or not rendered)", target.label())));
    };
    let x = (p[0] + p[2] + p[4] + p[6]) / 4.0 + el.offset.0;
    let y = (p[1] + p[3] + p[5] + p[7]) / 4.0 + el.offset.1;
    let vp = page.viewport().await?;
    let (w, h) = (vp["width"].as_f64().unwrap_or(0.0), vp["height"].as_f64().unwrap_or(0.0));
    if !(x >= 0.0 && y >= 0.0 && x < w && y < h) {
        return Err(Fail::new(
            ActionCode::ElementNotVisible,
            format!("{} is outside the viewport at ({}, {}) and cannot be scrolled into it", target.label(), js_round(x), js_round(y)),
        )
        .with_evidence(json!({ "point": { "x": x, "y": y }, "viewport": vp })));
    }
    Ok(json!({ "point": { "x": x, "y": y }, "viewport": vp }))
}

/// What is on top at the click point must be the element or inside it.
async fn assert_not_obscured(page: &Page<'_>, el: &Live, target: &RefTarget, x: f64, y: f64) -> Step<()> {
    let s = el.session.as_deref();
    // `ignorePointerEventsNone: false`, as a pointer hit tests: an element
    // with `pointer-events: none` (a decorative layer over a card, a
    // gradient over a list) lets the click through, so it covers nothing.
    // (`true` would hit test it and name it as covering what it lets through.)
    let at = json!({ "x": js_round(x - el.offset.0), "y": js_round(y - el.offset.1), "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": false });
    let Ok(hit) = page.send_raw("DOM.getNodeForLocation", &at, s).await? else { return Ok(()) };
    let Some(hit_backend) = hit.get("backendNodeId").and_then(Value::as_i64) else { return Ok(()) };
    if hit_backend == el.backend_node_id {
        return Ok(());
    }
    // In the element's world, so the two can meet in one call; a hit in
    // another document resolves in that document's world and covers it.
    let Ok((hit_node, _)) = page.resolve(hit_backend, s, el.context).await? else { return Ok(()) };
    let Some(hit_id) = hit_node.pointer("/object/objectId").and_then(Value::as_str) else { return Ok(()) };
    // Objects of two frames cannot meet in one call: a hit in another frame covers the element.
    let inside = match page.call_on(s, &el.object_id, scripts::CONTAINS_NODE, vec![Arg::Object(hit_id)]).await {
        Ok(v) => v == Value::Bool(true),
        Err(f) if f.code == ActionCode::Timeout => return Err(f),
        Err(_) => false,
    };
    if inside {
        return Ok(());
    }
    let cover = match page.call_on(s, hit_id, scripts::DESCRIBE_ELEMENT, vec![]).await {
        Ok(Value::String(d)) => d,
        Err(f) if f.code == ActionCode::Timeout => return Err(f),
        _ => "another element".to_string(),
    };
    Err(Fail::new(ActionCode::ElementObscured, format!("{} is covered by {cover} at ({}, {})", target.label(), js_round(x), js_round(y)))
        .with_evidence(json!({ "coveredBy": cover, "point": { "x": x, "y": y } })))
}

pub async fn click(page: &Page<'_>, el: &Live, target: &RefTarget) -> Step<Value> {
    let s = &el.state;
    if flag(s, "disabled") {
        return Err(Fail::new(ActionCode::ElementDisabled, format!("{} is disabled", target.label())));
    }
    let at = click_point(page, el, target).await?;
    let (x, y) = (at["point"]["x"].as_f64().unwrap_or(0.0), at["point"]["y"].as_f64().unwrap_or(0.0));
    assert_not_obscured(page, el, target, x, y).await?;
    // Chrome delivers pointer moves with the next animation frame, and a
    // background tab runs none: the move would wait forever, so a click there
    // is the press and the release alone (they are delivered at once), and
    // the tab the user sees stays the one in front.
    if !flag(s, "tabHidden") {
        page.send("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y }), None).await?;
    }
    for (kind, buttons) in [("mousePressed", 1), ("mouseReleased", 0)] {
        page.send("Input.dispatchMouseEvent", json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1, "buttons": buttons }), None).await?;
    }
    Ok(json!({ "point": at["point"] }))
}

pub async fn fill(page: &Page<'_>, el: &Live, target: &RefTarget, value: &str, clear_first: bool) -> Step<Value> {
    let s = &el.state;
    if flag(s, "disabled") {
        return Err(Fail::new(ActionCode::ElementDisabled, format!("{} is disabled", target.label())));
    }
    if flag(s, "readOnly") {
        return Err(Fail::new(ActionCode::ElementDisabled, format!("{} is read-only", target.label())));
    }
    if !flag(s, "formatted") && !flag(s, "textInput") && !flag(s, "editable") {
        return Err(Fail::new(
            ActionCode::ActionFailed,
            format!("{} is not a text field (<{}>); fill needs an input, a textarea or an editable element", target.label(), tag(s)),
        ));
    }
    let session = el.session.as_deref();
    let by_id = json!({ "backendNodeId": el.backend_node_id });
    let _ = page.send_raw("DOM.scrollIntoViewIfNeeded", &by_id, session).await?;
    page.send("DOM.focus", by_id, session).await?;
    if flag(s, "formatted") {
        return fill_formatted(page, el, target, value).await;
    }
    page.call_on(session, &el.object_id, scripts::PREPARE_FILL, vec![Arg::Value(Value::Bool(clear_first))]).await?;
    if value.is_empty() {
        if clear_first {
            page.call_on(session, &el.object_id, scripts::DELETE_SELECTION, vec![]).await?;
        }
    } else {
        page.send("Input.insertText", json!({ "text": value }), session).await?;
    }
    let now = page.call_on(session, &el.object_id, scripts::READ_VALUE, vec![]).await?;
    let now_text = match &now {
        Value::String(s) => s.clone(),
        Value::Null => "undefined".to_string(),
        other => other.to_string(),
    };
    // An editable element renders its text (innerText): runs of spaces come
    // back as no-break spaces or collapsed, and a trailing newline is added.
    let editable = flag(s, "editable") && !flag(s, "textInput");
    let (now_cmp, wanted) = if editable { (collapse_spaces(&now_text), collapse_spaces(value)) } else { (now_text.clone(), value.to_string()) };
    let ok = if clear_first { now_cmp.strip_suffix('\n').unwrap_or(&now_cmp) == wanted } else { now_cmp.ends_with(&wanted) };
    if !ok {
        return Err(Fail::new(
            ActionCode::ActionFailed,
            format!("{} holds {} after filling {} (the page limited or rewrote the input)", target.label(), json_quote(&now_text), json_quote(value)),
        ));
    }
    Ok(json!({ "value": now }))
}

/// A date, time, month, week, colour or range input (in view and focused):
/// its value set in the control's own format, not typed (Chrome's date field
/// takes keys segment by segment, in the reader's locale, so typed text never
/// lands), then read back.
async fn fill_formatted(page: &Page<'_>, el: &Live, target: &RefTarget, value: &str) -> Step<Value> {
    let session = el.session.as_deref();
    // element_state.js gives it in lower case.
    let kind = el.state.get("type").and_then(Value::as_str).unwrap_or_default();
    let was = page.call_on(session, &el.object_id, scripts::SET_VALUE, vec![Arg::Value(Value::String(value.to_string()))]).await?;
    let now = page.call_on(session, &el.object_id, scripts::READ_VALUE, vec![]).await?;
    let now_text = now.as_str().unwrap_or_default();
    // A colour reads back in lower case (#FF8800 is #ff8800).
    if now_text != value && !(kind == "color" && now_text.eq_ignore_ascii_case(value)) {
        // Rejected: the input gets back what it held, so a bad value costs nothing.
        if was.as_str().is_some_and(|w| w != now_text) {
            page.call_on(session, &el.object_id, scripts::SET_VALUE, vec![Arg::Value(was)]).await?;
        }
        let format = match kind {
            "date" => " (a date is filled as YYYY-MM-DD)",
            "time" => " (a time is filled as HH:MM or HH:MM:SS)",
            "datetime-local" => " (filled as YYYY-MM-DDTHH:MM)",
            "month" => " (a month is filled as YYYY-MM)",
            "week" => " (a week is filled as YYYY-Www)",
            "color" => " (a colour is filled as #rrggbb)",
            _ => " (a range takes a number within its min, max and step)",
        };
        return Err(Fail::new(
            ActionCode::ActionFailed,
            format!("{} holds {} after filling {}{format}", target.label(), json_quote(now_text), json_quote(value)),
        ));
    }
    Ok(json!({ "value": now }))
}

/// Runs of spaces (no-break spaces included) as one space, trimmed.
fn collapse_spaces(text: &str) -> String {
    text.split([' ', '\u{a0}']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

pub async fn select(page: &Page<'_>, el: &Live, target: &RefTarget, wanted: &str) -> Step<Value> {
    let s = &el.state;
    if flag(s, "disabled") {
        return Err(Fail::new(ActionCode::ElementDisabled, format!("{} is disabled", target.label())));
    }
    if !flag(s, "select") {
        if flag(s, "popup") || matches!(target.role.as_str(), "combobox" | "listbox") {
            return select_custom(page, el, target, wanted).await;
        }
        return Err(Fail::new(
            ActionCode::ActionFailed,
            format!("{} is not a <select> (<{}>) nor a dropdown (role combobox or listbox, or aria-haspopup)", target.label(), tag(s)),
        ));
    }
    let r = page.call_on(el.session.as_deref(), &el.object_id, scripts::SELECT_OPTION, vec![Arg::Value(Value::String(wanted.to_string()))]).await?;
    if let Some(d) = r.get("disabled").and_then(Value::as_str) {
        return Err(Fail::new(ActionCode::ElementDisabled, format!("option {} of {} is disabled", json_quote(d), target.label())));
    }
    if r.get("ok") != Some(&Value::Bool(true)) {
        let options: Vec<String> =
            r.get("options").and_then(Value::as_array).into_iter().flatten().map(|o| json_quote(o.as_str().unwrap_or_default())).collect();
        return Err(Fail::new(
            ActionCode::ActionFailed,
            format!("{} has no option with value or text {}; options: {}", target.label(), json_quote(wanted), options.join(", ")),
        ));
    }
    Ok(json!({ "value": r.get("value"), "label": r.get("label") }))
}

const OPTION_ROLES: [&str; 4] = ["option", "menuitemradio", "menuitem", "treeitem"];

/// A custom dropdown (an ARIA combobox, a button with a popup, a listbox):
/// open it with a real click unless it is a listbox already showing, find
/// the option by its accessible name where its popup renders, click that.
async fn select_custom(page: &Page<'_>, el: &Live, target: &RefTarget, wanted: &str) -> Step<Value> {
    let session = el.session.as_deref();
    if target.role != "listbox" {
        click(page, el, target).await?;
        settle(page).await;
    }
    let root = page
        .send("Runtime.callFunctionOn", json!({ "objectId": el.object_id, "functionDeclaration": scripts::POPUP_ROOT, "returnByValue": false }), session)
        .await?;
    let Some(root_id) = root.pointer("/result/objectId").and_then(Value::as_str) else {
        return Err(Fail::new(ActionCode::ActionFailed, format!("the popup of {} could not be read", target.label())));
    };
    let w = wanted.trim();
    let mut seen: Vec<String> = Vec::new();
    for role in OPTION_ROLES {
        let found = page.send("Accessibility.queryAXTree", json!({ "objectId": root_id, "role": role }), session).await?;
        let options: Vec<(String, i64)> = found
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|n| n.get("ignored") != Some(&Value::Bool(true)))
            .filter_map(|n| {
                let backend = n.get("backendDOMNodeId").and_then(Value::as_i64)?;
                Some((n.pointer("/name/value").and_then(Value::as_str).unwrap_or_default().trim().to_string(), backend))
            })
            .collect();
        seen.extend(options.iter().map(|(n, _)| n.clone()));
        let hit = options.iter().find(|(n, _)| n == w).or_else(|| options.iter().find(|(n, _)| n.to_lowercase() == w.to_lowercase()));
        let Some((name, backend)) = hit else { continue };
        let (resolved, context) = page.resolve(*backend, session, el.context).await?.map_err(Fail::refused)?;
        let Some(object_id) = resolved.pointer("/object/objectId").and_then(Value::as_str) else {
            return Err(Fail::new(ActionCode::ActionFailed, format!("option {} went away before it could be clicked", json_quote(name))));
        };
        // An option that is enabled; a disabled one (aria-disabled) is refused by the click.
        let state = page.call_on(session, object_id, scripts::ELEMENT_STATE, vec![]).await?;
        let option = Live { session: el.session.clone(), object_id: object_id.to_string(), backend_node_id: *backend, offset: el.offset, context, state };
        let within = if target.ref_id.is_empty() { "the dropdown".to_string() } else { target.ref_id.clone() };
        let option_target = RefTarget { ref_id: format!("in {within}"), role: role.to_string(), name: name.clone(), ..Default::default() };
        click(page, &option, &option_target).await?;
        return Ok(json!({ "value": name, "label": name }));
    }
    let listed = if seen.is_empty() {
        "; no options showed after opening it".to_string()
    } else {
        format!("; options: {}", seen.iter().take(20).map(|n| json_quote(n)).collect::<Vec<_>>().join(", "))
    };
    Err(Fail::new(ActionCode::ActionFailed, format!("{} has no option named {}{listed}", target.label(), json_quote(w))))
}

pub async fn scroll_page(page: &Page<'_>, direction: &str, amount: u64) -> Step<Value> {
    page.evaluate(&scripts::call_expression(scripts::SCROLL_PAGE, &[json!(direction), json!(amount)])).await?;
    Ok(json!({ "viewport": page.viewport().await? }))
}

/// The most an action waits for the page's next frame. A click that starts a
/// load the server does not answer holds every call to the tab until the
/// load ends: this wait took the action's whole deadline (5 s in the MCP
/// server's test), where a frame takes milliseconds; the session's settle,
/// which comes next, waits for the page to be quiet.
const FRAME_WAIT_MS: u64 = 1000;

/// One frame for the page to react before the next look; a failure, or no
/// frame within [`FRAME_WAIT_MS`], is no reason to fail.
pub async fn settle(page: &Page<'_>) {
    let expression = scripts::call_expression(scripts::SETTLE, &[]);
    let _ = tokio::time::timeout(std::time::Duration::from_millis(FRAME_WAIT_MS), page.evaluate(&expression)).await;
}
