//! Which formulas serve each native function (torchgen's `match_differentiability_info` and
//! `add_view_copy_derivatives`): an entry's own function exactly; an in-place or out variant
//! through its functional operator's entry; a generated functional variant through its
//! mutable operator's entry; a `_copy` operator through its view's entry.

use std::collections::HashMap;

use super::Derivatives;
use super::model::{DerivativeEntry, DifferentiabilityInfo};
use crate::native::NativeFunctions;
use crate::schema::{Schema, SchemaKind};

/// How a function got its formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// The function has its own entry.
    Exact,
    /// An in-place (or out) variant using its functional operator's formulas; the Autograd
    /// kernel saves a clone of `self` where a formula reads it.
    Functional,
    /// A generated functional variant using its mutable operator's formulas.
    Mutable,
    /// A `_copy` operator using its view operator's formulas (node names end in `_copy`).
    ViewCopy,
}

/// One native function and the entry whose formulas serve it.
#[derive(Debug, Clone, Copy)]
pub struct Matched<'d> {
    /// The function's index in the native functions' list.
    pub function: usize,
    /// The entry.
    pub entry: &'d DerivativeEntry,
    /// How.
    pub kind: MatchKind,
}

/// `signature(strip_default=True)`.
fn signature_without_defaults(schema: &Schema) -> Schema {
    let mut s = schema.signature();
    for a in &mut s.arguments {
        a.default = None;
    }
    s
}

/// The entry serving each function that has one, in function order.
pub fn match_functions<'d>(d: &'d Derivatives, natives: &NativeFunctions) -> Vec<Matched<'d>> {
    let by_function: HashMap<usize, &DerivativeEntry> =
        d.entries.iter().map(|e| (e.function, e)).collect();
    let mut functional = HashMap::new();
    let mut non_functional = HashMap::new();
    for e in &d.entries {
        let schema = &natives.functions()[e.function].func;
        let map = if schema.kind() == SchemaKind::Functional {
            &mut functional
        } else {
            &mut non_functional
        };
        map.entry(signature_without_defaults(schema)).or_insert(e);
    }
    let view_copies = view_copy_sources(d, natives);
    let mut out = Vec::new();
    for (i, f) in natives.functions().iter().enumerate() {
        let generated = f.has_tag("generated");
        if generated && f.func.kind() == SchemaKind::Out {
            continue;
        }
        let is_foreach = f.func.name.name.base.starts_with("_foreach_");
        let sig = signature_without_defaults(&f.func);
        let found = if let Some(e) = by_function.get(&i) {
            Some((*e, MatchKind::Exact))
        } else if let Some(e) = functional.get(&sig).filter(|_| !is_foreach) {
            Some((*e, MatchKind::Functional))
        } else if let Some(e) = non_functional.get(&sig).filter(|_| generated) {
            Some((*e, MatchKind::Mutable))
        } else {
            view_copies.get(&i).map(|e| (*e, MatchKind::ViewCopy))
        };
        if let Some((entry, kind)) = found {
            out.push(Matched {
                function: i,
                entry,
                kind,
            });
        }
    }
    out
}

/// The view's entry for each `_copy` function without one of its own.
fn view_copy_sources<'d>(
    d: &'d Derivatives,
    natives: &NativeFunctions,
) -> HashMap<usize, &'d DerivativeEntry> {
    let index_of: HashMap<String, usize> = (natives.functions().iter().enumerate())
        .map(|(i, f)| (f.func.to_string(), i))
        .collect();
    let by_name: HashMap<String, &DerivativeEntry> = (d.entries.iter())
        .map(|e| (natives.functions()[e.function].func.name.to_string(), e))
        .collect();
    let own: std::collections::HashSet<usize> = d.entries.iter().map(|e| e.function).collect();
    let mut out = HashMap::new();
    for g in natives.view_groups() {
        let (Some(copy), Some(entry)) = (g.view_copy, by_name.get(&g.view.func.name.to_string()))
        else {
            continue;
        };
        if let Some(&i) = index_of
            .get(&copy.func.to_string())
            .filter(|i| !own.contains(i))
        {
            out.insert(i, *entry);
        }
    }
    out
}

/// The node name a matched function's info uses: its entry's, with `_copy` for a view copy.
pub fn node_name(info: &DifferentiabilityInfo, kind: MatchKind) -> Option<String> {
    let op = info.op.clone()?;
    Some(if kind == MatchKind::ViewCopy {
        format!("{op}_copy")
    } else {
        op
    })
}
