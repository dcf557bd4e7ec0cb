//! The translation figures of a whole `derivatives.yaml`: how many entries parse, how many
//! translate, and what blocks the rest, by frequency.

use std::collections::BTreeMap;

use super::types::Ty;
use super::{ApiIndex, Blocker, Options, Scope, translate};
use crate::formula::parse_formula;
use crate::native::NativeFunctions;
use crate::native::derivatives::{Derivatives, DifferentiabilityInfo};
use crate::plan::rust_ident;

/// The scope of an entry's formulas: its arguments, the values its node saves, its returns,
/// the output gradients, `grad_input_mask`, `retain_variables` (and `i` in `_foreach_`
/// operators); for forward formulas, `x_p` and `x_t` of tensor arguments too.
pub fn scope_for(info: &DifferentiabilityInfo, forward: bool) -> Scope {
    let mut scope = Scope::default();
    let schema = &info.func;
    // A `_foreach_` formula is written for one element: `self_p` is a tensor of the list.
    let foreach = schema.name.name.base.starts_with("_foreach_");
    for a in &schema.arguments {
        scope.add(&a.name, &rust_ident(&a.name), Ty::of_arg(&a.ty));
        if forward && a.ty.is_tensor_like() {
            let ty = match Ty::of_arg(&a.ty) {
                Ty::TensorList if foreach => Ty::Tensor,
                Ty::OptTensorList if foreach => Ty::OptTensor,
                other => other,
            };
            scope.add(
                &format!("{}_p", a.name),
                &format!("{}_p", rust_ident(&a.name)),
                ty.clone(),
            );
            scope.add(
                &format!("{}_t", a.name),
                &format!("{}_t", rust_ident(&a.name)),
                ty,
            );
        }
    }
    if schema.has_tensor_options() {
        scope.add("options", "options", Ty::Options);
    }
    for s in info.all_saved_inputs.iter().chain(&info.all_saved_outputs) {
        scope.add(&s.name, &rust_ident(&s.name), Ty::of_saved(&s.ty));
    }
    let names = crate::native::derivatives::return_names(schema);
    for (name, r) in names.iter().zip(&schema.returns) {
        let name = if name == "self" {
            "result"
        } else {
            name.as_str()
        };
        scope.add(name, &rust_ident(name), Ty::of_arg(&r.ty));
        if let Some(n) = &r.name {
            scope.add(&format!("grad_{n}"), &format!("grad_{n}"), Ty::OptTensor);
        }
    }
    scope.add("grad", "grad", Ty::Tensor);
    scope.add("grads", "grads", Ty::OptTensorList);
    scope.add("grad_input_mask", "grad_input_mask", Ty::BoolList);
    scope.add("retain_variables", "retain_variables", Ty::Bool);
    if foreach {
        scope.add("i", "i", Ty::Int);
    }
    if forward {
        scope.add("original_self_p", "original_self_p", Ty::Tensor);
        scope.add("original_self_t", "original_self_t", Ty::Tensor);
    }
    scope
}

/// One blocker and how many formulas it blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockerCount {
    /// The blocker, as text (`missing function `foo` (2 arguments)`, with arities merged
    /// for missing functions: `missing function `foo``).
    pub what: String,
    /// The formulas it blocks.
    pub formulas: usize,
}

/// The figures of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryReport {
    /// The entry's schema.
    pub name: String,
    /// Every formula parses (as written, and as torchgen rewrites it).
    pub parses: bool,
    /// Every backward formula translates.
    pub backward_translates: bool,
    /// Every forward formula translates too.
    pub all_translate: bool,
    /// What blocks its backward formulas (as [`BlockerCount::what`]), each once.
    pub backward_blockers: Vec<String>,
    /// What blocks its forward formulas, each once.
    pub forward_blockers: Vec<String>,
}

/// The figures of a whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusReport {
    /// The entries.
    pub entries: Vec<EntryReport>,
    /// Backward formulas, and how many translate.
    pub backward_formulas: (usize, usize),
    /// Forward formulas, and how many translate.
    pub forward_formulas: (usize, usize),
    /// What blocks the rest, most frequent first.
    pub blockers: Vec<BlockerCount>,
}

impl CorpusReport {
    /// Entries whose formulas all parse.
    pub fn parse(&self) -> usize {
        self.entries.iter().filter(|e| e.parses).count()
    }

    /// Entries whose backward formulas all translate.
    pub fn translate_backward(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.backward_translates)
            .count()
    }

    /// Entries whose formulas all translate, forward ones included.
    pub fn translate_all(&self) -> usize {
        self.entries.iter().filter(|e| e.all_translate).count()
    }

    /// For each blocker, the entries whose backward formulas it alone keeps from
    /// translating (what resolving it gains), most first.
    pub fn sole_blockers(&self) -> Vec<BlockerCount> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &self.entries {
            if let [only] = e.backward_blockers.as_slice() {
                *counts.entry(only).or_insert(0) += 1;
            }
        }
        let mut out: Vec<BlockerCount> = (counts.into_iter())
            .map(|(what, formulas)| BlockerCount {
                what: what.to_string(),
                formulas,
            })
            .collect();
        out.sort_by(|a, b| b.formulas.cmp(&a.formulas).then(a.what.cmp(&b.what)));
        out
    }
}

fn blocker_key(b: &Blocker) -> String {
    match b {
        Blocker::MissingFunction { name, .. } => format!("missing function `{name}`"),
        other => other.to_string(),
    }
}

/// Parses and translates every formula of `d` against the API of `natives`.
pub fn corpus_report(d: &Derivatives, natives: &NativeFunctions) -> CorpusReport {
    let api = ApiIndex::new(natives);
    let options = Options::default();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let (mut backward, mut forward) = ((0, 0), (0, 0));
    let mut entries = Vec::new();
    for entry in &d.entries {
        let mut report = EntryReport {
            name: entry.name.clone(),
            parses: true,
            backward_translates: true,
            all_translate: true,
            backward_blockers: Vec::new(),
            forward_blockers: Vec::new(),
        };
        for (_, info) in &entry.infos {
            let texts = (info
                .derivatives
                .iter()
                .map(|d| (d.formula.as_str(), d.original_formula.as_str(), false)))
            .chain(
                info.forward_derivatives
                    .iter()
                    .map(|f| (f.formula.as_str(), f.formula.as_str(), true)),
            );
            for (text, original, is_forward) in texts {
                let tally = if is_forward {
                    &mut forward
                } else {
                    &mut backward
                };
                tally.0 += 1;
                let (Ok(expr), Ok(_)) = (parse_formula(text), parse_formula(original)) else {
                    report.parses = false;
                    let list = if is_forward {
                        &mut report.forward_blockers
                    } else {
                        &mut report.backward_blockers
                    };
                    list.push("does not parse".to_string());
                    report.all_translate = false;
                    report.backward_translates &= is_forward;
                    continue;
                };
                match translate(&expr, &scope_for(info, is_forward), &api, &options) {
                    Ok(_) => tally.1 += 1,
                    Err(blockers) => {
                        report.all_translate = false;
                        report.backward_translates &= is_forward;
                        let mut seen: Vec<String> = blockers.iter().map(blocker_key).collect();
                        seen.sort();
                        seen.dedup();
                        for key in seen {
                            *counts.entry(key.clone()).or_insert(0) += 1;
                            let list = if is_forward {
                                &mut report.forward_blockers
                            } else {
                                &mut report.backward_blockers
                            };
                            if !list.contains(&key) {
                                list.push(key);
                            }
                        }
                    }
                }
            }
        }
        entries.push(report);
    }
    let mut blockers: Vec<BlockerCount> = (counts.into_iter())
        .map(|(what, formulas)| BlockerCount { what, formulas })
        .collect();
    blockers.sort_by(|a, b| b.formulas.cmp(&a.formulas).then(a.what.cmp(&b.what)));
    CorpusReport {
        entries,
        backward_formulas: backward,
        forward_formulas: forward,
        blockers,
    }
}
