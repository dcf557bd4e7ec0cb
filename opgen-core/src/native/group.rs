//! Grouping the variants of one operator (SCHEMA.md §3.3) and the group rules R75–R81.

use std::collections::BTreeSet;

use crate::schema::{Rule, SchemaError, SchemaKind};

use super::FnError;
use super::autogen::Bucket;
use super::entry::{NativeFunction, Site};
use super::fields::WHOLE;
use super::file::name_range;
use super::keys::Field;

/// The members of a group, as indices into the function list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GroupIds {
    pub functional: usize,
    pub inplace: Option<usize>,
    pub out: usize,
    pub mutable: Option<usize>,
}

impl GroupIds {
    /// torchgen's member order: functional, out, in-place, mutable.
    pub fn members(&self) -> impl Iterator<Item = usize> {
        [
            Some(self.functional),
            Some(self.out),
            self.inplace,
            self.mutable,
        ]
        .into_iter()
        .flatten()
    }
}

/// A group or a function that belongs to none, in torchgen's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    Function(usize),
    Group(usize),
}

/// Turns signature buckets into groups and ungrouped functions, checking R75–R81.
pub(crate) fn group(
    fs: &[NativeFunction],
    buckets: &[Bucket],
    errors: &mut Vec<FnError>,
) -> (Vec<GroupIds>, Vec<Item>) {
    let mut groups = Vec::new();
    let mut items = Vec::with_capacity(buckets.len());
    for b in buckets {
        let loose =
            |items: &mut Vec<Item>| items.extend(b.members.iter().map(|(_, i)| Item::Function(*i)));
        if b.members.len() == 1 {
            loose(&mut items);
            continue;
        }
        if let Some(s) = b.get(SchemaKind::Scratch) {
            let message = format!(
                "`{}` has `_scratch_` out arguments and cannot be grouped with the other \
                 variants of its operator",
                fs[s].func.name
            );
            let e = SchemaError::new(Rule::MissingFunctional, name_range(&fs[s]), message)
                .with_hint("give it a signature of its own");
            errors.push(FnError::new(s, Site::Value(Field::Func), e));
            loose(&mut items);
            continue;
        }
        let Some(functional) = b.get(SchemaKind::Functional) else {
            let (_, first) = b.members[0];
            let names: Vec<String> = b
                .members
                .iter()
                .map(|(_, i)| format!("`{}`", fs[*i].func.name))
                .collect();
            let e = SchemaError::new(
                Rule::MissingFunctional,
                name_range(&fs[first]),
                format!(
                    "{} share a signature but there is no functional variant",
                    names.join(" and ")
                ),
            )
            .with_hint("add the functional variant (no written arguments, returning the results)");
            errors.push(FnError::new(first, Site::Value(Field::Func), e));
            loose(&mut items);
            continue;
        };
        let Some(out) = b.get(SchemaKind::Out) else {
            loose(&mut items);
            continue;
        };
        let g = GroupIds {
            functional,
            inplace: b.get(SchemaKind::Inplace),
            out,
            mutable: b.get(SchemaKind::Mutable),
        };
        check_group(fs, &g, errors);
        items.push(Item::Group(groups.len()));
        groups.push(g);
    }
    (groups, items)
}

fn fail(
    errors: &mut Vec<FnError>,
    i: usize,
    site: Site,
    rule: Rule,
    range: std::ops::Range<usize>,
    message: String,
    hint: String,
) {
    errors.push(FnError::new(
        i,
        site,
        SchemaError::new(rule, range, message).with_hint(hint),
    ));
}

fn check_group(fs: &[NativeFunction], g: &GroupIds, errors: &mut Vec<FnError>) {
    let out = &fs[g.out];
    let functional = &fs[g.functional];
    let func = Site::Value(Field::Func);
    for i in g.members() {
        let f = &fs[i];
        if f.part_of_structured_group() != out.structured {
            let (msg, hint) = if out.structured {
                (
                    format!(
                        "`{}` is structured but its variant `{}` is neither `structured` nor a `structured_delegate`",
                        out.func.name, f.func.name
                    ),
                    format!(
                        "add `structured_delegate: {}` to `{}`",
                        out.func.name, f.func.name
                    ),
                )
            } else {
                (
                    format!(
                        "`{}` is part of a structured family but its out variant `{}` is not `structured: True`",
                        f.func.name, out.func.name
                    ),
                    format!(
                        "add `structured: True` to `{}`, or drop the structured fields",
                        out.func.name
                    ),
                )
            };
            fail(
                errors,
                i,
                func,
                Rule::MixedStructured,
                name_range(f),
                msg,
                hint,
            );
        }
        if f.namespace != functional.namespace {
            fail(
                errors,
                i,
                func,
                Rule::NamespaceMismatch,
                name_range(f),
                format!(
                    "`{}` is in namespace `{}` but its functional variant `{}` is in `{}`",
                    f.func.name, f.namespace, functional.func.name, functional.namespace
                ),
                "put all variants of an operator in one namespace".into(),
            );
        }
    }
    if g.mutable.is_some() && !functional.func.name.name.functional_overload {
        let base = &functional.func.name.name.base;
        fail(
            errors,
            g.functional,
            func,
            Rule::MutableNeedsFunctionalSuffix,
            name_range(functional),
            format!(
                "`{}` is the functional variant of a mutable operator but is not named `{base}_functional`",
                functional.func.name
            ),
            format!("rename it to `{base}_functional`, or let torchgen generate it with `autogen`"),
        );
    }
    if out.structured {
        check_structured(fs, g, errors);
    }
    check_autogen(fs, g, errors);
}

/// R76, R77.
fn check_structured(fs: &[NativeFunction], g: &GroupIds, errors: &mut Vec<FnError>) {
    let out = &fs[g.out];
    if out.has_composite_implicit_kernel() || out.has_composite_implicit_nested_tensor_kernel() {
        let message = format!(
            "structured out variant `{}` has a composite-implicit kernel",
            out.func.name
        );
        let hint = "structured kernels cannot be `CompositeImplicitAutograd`; use backend keys \
                    or `CompositeExplicitAutograd`";
        let site = Site::Value(Field::Dispatch);
        fail(
            errors,
            g.out,
            site,
            Rule::StructuredComposite,
            WHOLE,
            message,
            hint.into(),
        );
    }
    for i in [Some(g.functional), g.inplace].into_iter().flatten() {
        let f = &fs[i];
        if f.structured_delegate.as_ref() != Some(&out.func.name)
            && let Some(d) = &f.structured_delegate
        {
            fail(
                errors,
                i,
                Site::Value(Field::StructuredDelegate),
                Rule::WrongDelegate,
                WHOLE,
                format!(
                    "`{}` delegates to `{d}` but its group's out variant is `{}`",
                    f.func.name, out.func.name
                ),
                format!("write `structured_delegate: {}`", out.func.name),
            );
        }
    }
}

/// R78: the members' `autogen` names are exactly the generated members.
fn check_autogen(fs: &[NativeFunction], g: &GroupIds, errors: &mut Vec<FnError>) {
    let generated: BTreeSet<String> = g
        .members()
        .filter(|i| fs[*i].is_generated)
        .map(|i| fs[i].func.name.full_name())
        .collect();
    let listed: BTreeSet<String> = g
        .members()
        .flat_map(|i| fs[i].autogen.iter().map(|n| n.full_name()))
        .collect();
    if generated == listed {
        return;
    }
    let join = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
    let (want, have) = (join(&generated), join(&listed));
    let with_autogen = g
        .members()
        .find(|i| !fs[*i].is_generated && !fs[*i].autogen.is_empty());
    match with_autogen {
        Some(i) if generated.is_empty() => fail(
            errors,
            i,
            Site::Value(Field::Autogen),
            Rule::AutogenMismatch,
            WHOLE,
            format!("`autogen: {have}` names variants that are not generated for this group"),
            "remove the `autogen` field; the group already has all its variants".into(),
        ),
        Some(i) => fail(
            errors,
            i,
            Site::Value(Field::Autogen),
            Rule::AutogenMismatch,
            WHOLE,
            format!("`autogen` lists `{have}` but the generated variants are `{want}`"),
            format!("write `autogen: {want}`"),
        ),
        None => {
            // The entry torchgen generates from (§3.4's base member) is where `autogen` goes.
            let base = [g.mutable, g.inplace, Some(g.out), Some(g.functional)];
            let i = base
                .into_iter()
                .flatten()
                .find(|i| !fs[*i].is_generated)
                .unwrap_or(g.out);
            fail(
                errors,
                i,
                Site::Value(Field::Func),
                Rule::AutogenMismatch,
                name_range(&fs[i]),
                format!(
                    "`{want}` would be generated for `{}` but no entry lists it in `autogen`",
                    fs[i].func.name
                ),
                format!(
                    "add `autogen: {want}` to the entry of `{}`",
                    fs[i].func.name
                ),
            );
        }
    }
}
