//! Ref registry rules (`ref-registry`): when a registry is stale, how an
//! invalidation changes it, and how refs are normalised. The registry itself
//! stays a plain mutable JS object; the binding reads and writes its fields.

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegistryView {
    pub stale: bool,
    pub snapshot_id: Option<String>,
    pub dom_hash: Option<String>,
    pub ax_hash: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Freshness {
    pub expected_snapshot_id: Option<String>,
    pub current_dom_hash: Option<String>,
    pub current_ax_hash: Option<String>,
}

fn differs(current: &Option<String>, stored: &Option<String>) -> bool {
    matches!((current, stored), (Some(c), Some(s)) if !c.is_empty() && !s.is_empty() && c != s)
}

/// `isRegistryStale`: a missing registry is stale.
pub fn is_stale(registry: Option<&RegistryView>, ctx: &Freshness) -> bool {
    let Some(r) = registry else { return true };
    if r.stale {
        return true;
    }
    if let Some(expected) = ctx.expected_snapshot_id.as_deref().filter(|s| !s.is_empty()) {
        if r.snapshot_id.as_deref() != Some(expected) {
            return true;
        }
    }
    differs(&ctx.current_dom_hash, &r.dom_hash) || differs(&ctx.current_ax_hash, &r.ax_hash)
}

/// The new hashes after `invalidateRefsOnDomChange`, or None when nothing changed.
pub fn invalidation(registry: &RegistryView, dom_hash: &Option<String>, ax_hash: &Option<String>) -> Option<(Option<String>, Option<String>)> {
    if !(differs(dom_hash, &registry.dom_hash) || differs(ax_hash, &registry.ax_hash)) {
        return None;
    }
    let pick = |new: &Option<String>, old: &Option<String>| new.clone().filter(|s| !s.is_empty()).or_else(|| old.clone());
    Some((pick(dom_hash, &registry.dom_hash), pick(ax_hash, &registry.ax_hash)))
}

/// `e3` → `@e3`; surrounding whitespace is ignored.
pub fn normalize_ref(input: &str) -> String {
    let v = input.trim();
    if v.is_empty() || v.starts_with('@') {
        v.to_string()
    } else {
        format!("@{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> RegistryView {
        RegistryView { stale: false, snapshot_id: Some("s1".into()), dom_hash: Some("d1".into()), ax_hash: Some("a1".into()) }
    }

    #[test]
    fn staleness_rules() {
        assert!(is_stale(None, &Freshness::default()));
        assert!(!is_stale(Some(&reg()), &Freshness::default()));
        assert!(is_stale(Some(&reg()), &Freshness { expected_snapshot_id: Some("s2".into()), ..Default::default() }));
        assert!(is_stale(Some(&reg()), &Freshness { current_dom_hash: Some("d2".into()), ..Default::default() }));
        assert!(!is_stale(Some(&reg()), &Freshness { current_ax_hash: Some("a1".into()), ..Default::default() }));
        assert!(is_stale(Some(&RegistryView { stale: true, ..reg() }), &Freshness::default()));
    }

    #[test]
    fn invalidation_keeps_unchanged_hash() {
        assert_eq!(invalidation(&reg(), &Some("d1".into()), &None), None);
        assert_eq!(invalidation(&reg(), &Some("d2".into()), &None), Some((Some("d2".into()), Some("a1".into()))));
        assert_eq!(normalize_ref(" e3 "), "@e3");
        assert_eq!(normalize_ref("@e3"), "@e3");
    }
}
