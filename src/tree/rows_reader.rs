//! The compact form of `getFullAXTree` the JS driver sends: one JSON array per
//! node, in the column order of [`projection_spec`].
//!
//! Playwright hands us the browser's answer as parsed objects; re-serialising
//! all of it (name sources, ignored reasons, …) cost more than the rest of a
//! snapshot together. The driver instead copies only these columns, following
//! this spec, so the CDP schema stays described in Rust.

use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{Result, WebAiError};
use crate::tree::{AxNode, AxTree, PropValue};

/// Properties the serializer reads; every other property is left in the browser's answer.
pub const PROPERTIES: [&str; 12] =
    ["focusable", "checked", "pressed", "expanded", "disabled", "selected", "level", "focused", "readonly", "busy", "modal", "url"];

/// Rows the driver leaves out; children pointing at them are expected to dangle.
pub const DROPPED_ROLES: [&str; 1] = ["InlineTextBox"];

/// What the JS driver copies out of each node.
pub fn projection_spec() -> Value {
    json!({
        "rows": "nodes",
        "columns": ["nodeId", "ignored", "role.value", "name.value", "value.value", "childIds", "backendDOMNodeId", "frameId"],
        "pairs": { "from": "properties", "key": "name", "value": "value.value", "keys": PROPERTIES },
        // A quarter of Chrome's nodes are InlineTextBox layout fragments whose
        // text is already in their StaticText parent; they never reach the text.
        "drop": { "column": 2, "values": DROPPED_ROLES },
    })
}

/// A JSON scalar, borrowed where possible; anything else is `Other`.
#[derive(Debug, Clone, PartialEq)]
pub enum Prim<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Prim<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Prim<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Str(Cow::Owned(v)))
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> std::result::Result<Self::Value, E> {
                Ok(i64::try_from(v).map_or(Prim::Float(v as f64), Prim::Int))
            }
            fn visit_f64<E>(self, v: f64) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Float(v))
            }
            fn visit_bool<E>(self, v: bool) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Bool(v))
            }
            fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Null)
            }
            fn visit_none<E>(self) -> std::result::Result<Self::Value, E> {
                Ok(Prim::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Prim::Other)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Prim::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl Prim<'_> {
    fn text(&self) -> Option<String> {
        match self {
            Prim::Str(s) => Some(s.to_string()),
            Prim::Int(i) => Some(i.to_string()),
            Prim::Float(f) if f.is_finite() => Some(f.to_string()),
            Prim::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    fn key(&self) -> Option<Key<'_>> {
        match self {
            Prim::Str(s) => Some(s.parse::<i64>().map_or(Key::Str(s.as_ref()), Key::Int)),
            Prim::Int(i) => Some(Key::Int(*i)),
            _ => None,
        }
    }

    fn as_prop(&self) -> PropValue<'_> {
        match self {
            Prim::Str(s) => PropValue::Str(s),
            Prim::Bool(b) => PropValue::Bool(*b),
            Prim::Int(i) => PropValue::Num(*i as f64),
            Prim::Float(f) => PropValue::Num(*f),
            Prim::Null | Prim::Other => PropValue::Other,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Int(i64),
    Str(&'a str),
}

/// A row may be malformed in any column; `Prim::Other` and empty lists absorb that.
#[derive(Deserialize)]
struct Row<'a>(
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] ListOf<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] Prim<'a>,
    #[serde(borrow)] ListOf<'a>,
);

/// A list of scalars, or nothing when the column held something else.
struct ListOf<'a>(Vec<Prim<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for ListOf<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ListOf<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(4));
                while let Some(p) = seq.next_element::<Prim<'de>>()? {
                    out.push(p);
                }
                Ok(ListOf(out))
            }
            fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(ListOf(Vec::new()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ListOf(Vec::new()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Read the projected rows. The JS driver wrote them, so a row that is not an
/// array of the expected width means a broken driver: `snapshot.invalid-input`.
pub fn parse_rows(json: &str) -> Result<AxTree> {
    match crate::compat::json_text::repaired(json) {
        // Names with lone surrogates (rare) are read from a repaired copy.
        Some(fixed) if serde_json::from_str::<serde::de::IgnoredAny>(json).is_err() => parse_rows_text(&fixed),
        _ => parse_rows_text(json),
    }
}

fn parse_rows_text(json: &str) -> Result<AxTree> {
    let rows: Vec<Option<Row>> =
        serde_json::from_str(json).map_err(|e| WebAiError::invalid_input("axTree", format!("the projected accessibility tree is malformed: {e}")))?;
    let mut tree = AxTree { nodes: Vec::with_capacity(rows.len()), ..AxTree::default() };
    let mut index: FxHashMap<Key, u32> = FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
    // Rows are only read; the tree owns copies of what it keeps.
    let mut duplicates = 0usize;
    let mut kept_rows: Vec<&Row> = Vec::with_capacity(rows.len());
    let mut skipped = 0usize;
    for row in &rows {
        let Some(row) = row else {
            skipped += 1;
            continue;
        };
        if let Some(k) = row.0.key() {
            if index.contains_key(&k) {
                if !matches!(&row.2, Prim::Str(r) if r == "InlineTextBox") {
                    duplicates += 1;
                }
                continue;
            }
            index.insert(k, tree.nodes.len() as u32);
        }
        let mut node = AxNode {
            role: match &row.2 {
                Prim::Str(r) => crate::tree::roles::intern(r),
                _ => std::borrow::Cow::Borrowed("generic"),
            },
            name: row.3.text().unwrap_or_default(),
            value: row.4.text(),
            ignored: row.1.as_prop().truthy(),
            backend_node_id: match row.6 {
                Prim::Int(i) => Some(i),
                _ => None,
            },
            frame_id: row.7.text(),
            ..AxNode::default()
        };
        for pair in row.8 .0.chunks(2) {
            if let (Some(Prim::Str(k)), Some(v)) = (pair.first(), pair.get(1)) {
                node.apply_property(k, v.as_prop());
            }
        }
        tree.nodes.push(node);
        kept_rows.push(row);
    }
    if skipped > 0 {
        tree.notes.push(format!("{skipped} malformed accessibility node(s) were skipped"));
    }
    if duplicates > 0 {
        tree.notes.push(format!("{duplicates} accessibility node(s) with a repeated nodeId were skipped"));
    }
    let mut is_child = vec![false; tree.nodes.len()];
    for (i, row) in kept_rows.iter().enumerate() {
        let mut children = Vec::with_capacity(row.5 .0.len());
        for c in &row.5 .0 {
            match c.key().and_then(|k| index.get(&k)) {
                Some(&ci) if ci as usize != i => {
                    is_child[ci as usize] = true;
                    children.push(ci);
                }
                // Dropped rows (DROPPED_ROLES) leave these behind by design.
                _ => {}
            }
        }
        tree.nodes[i].children = children;
    }
    tree.root = match is_child.first() {
        None => None,
        Some(false) => Some(0),
        Some(true) => Some(is_child.iter().position(|c| !c).unwrap_or(0) as u32),
    };
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_with_properties() {
        let json = r#"[["1",false,"RootWebArea","Doc",null,["2"],5,"F",[]],
                       ["2",false,"checkbox","Agree",null,[],7,"F",["checked","mixed","focusable",true,"level",2]]]"#;
        let t = parse_rows(json).unwrap();
        assert_eq!(t.root, Some(0));
        assert_eq!(t.nodes[1].states.checked, Some(crate::tree::Tristate::Mixed));
        assert!(t.nodes[1].focusable);
        assert_eq!(t.nodes[1].backend_node_id, Some(7));
        assert_eq!(t.nodes[0].children, vec![1]);
    }

    #[test]
    fn malformed_columns_do_not_fail_the_tree() {
        let json = r#"[["1",{"x":1},["r"],{"n":1},null,"oops",null,null,{"a":1}],null,["1",false,"button","dup",null,[],null,null,[]]]"#;
        let t = parse_rows(json).unwrap();
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].role, "generic");
        assert!(t.notes.iter().any(|n| n.contains("repeated nodeId")));
        assert!(t.notes.iter().any(|n| n.contains("malformed")));
        assert!(parse_rows("[1,2]").is_err());
    }
}
