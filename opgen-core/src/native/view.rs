//! View groups (SCHEMA.md §3.3): a view operator with its in-place view and its `_copy`
//! variant, paired by view signature; rules R82 and R83.

use std::borrow::Cow;

use crate::schema::{Rule, Schema, SchemaError, SchemaKind};

use super::autogen::Bucket;
use super::entry::{NativeFunction, Site};
use super::file::name_range;
use super::keys::Field;
use super::{FnError, FxHashMap};

/// The members of a view group, as indices into the function list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ViewIds {
    pub view: usize,
    pub view_inplace: Option<usize>,
    pub view_copy: Option<usize>,
}

/// How a function takes part in view grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    View,
    InplaceView,
    Other(SchemaKind),
}

#[derive(Default)]
struct ViewBucket {
    members: Vec<(Role, usize)>,
}

impl ViewBucket {
    fn get(&self, role: Role) -> Option<usize> {
        self.members
            .iter()
            .find(|(r, _)| *r == role)
            .map(|(_, i)| *i)
    }
}

/// Each function's view signature. It differs from the signature only for base names
/// ending in `_copy` or `_scatter` (§3.2), so the others borrow their group bucket's.
fn view_signatures<'a>(fs: &[NativeFunction], buckets: &'a [Bucket]) -> Vec<Cow<'a, Schema>> {
    let mut sigs: Vec<Option<Cow<'a, Schema>>> = vec![None; fs.len()];
    for b in buckets {
        for &(_, i) in &b.members {
            let base = &fs[i].func.name.name.base;
            sigs[i] = Some(if base.ends_with("_copy") || base.ends_with("_scatter") {
                Cow::Owned(fs[i].func.view_signature())
            } else {
                Cow::Borrowed(&b.signature)
            });
        }
    }
    sigs.into_iter()
        .zip(fs)
        .map(|(s, f)| s.unwrap_or_else(|| Cow::Owned(f.func.view_signature())))
        .collect()
}

/// Groups every view operator with its in-place view and copy variants (R82, R83).
pub(crate) fn view_groups(
    fs: &[NativeFunction],
    buckets: &[Bucket],
    errors: &mut Vec<FnError>,
) -> Vec<ViewIds> {
    let sigs = view_signatures(fs, buckets);
    let mut index: FxHashMap<&Schema, usize> = FxHashMap::default();
    let mut buckets: Vec<ViewBucket> = Vec::new();
    let func = Site::Value(Field::Func);
    for (i, f) in fs.iter().enumerate() {
        let role = match (f.is_view_op(), f.func.name.name.inplace) {
            (true, true) => {
                if !f.has_tag("inplace_view") {
                    let e = SchemaError::new(
                        Rule::MissingInplaceViewTag,
                        name_range(f),
                        format!(
                            "in-place view operator `{}` has no `inplace_view` tag",
                            f.func.name
                        ),
                    )
                    .with_hint("add `tags: inplace_view`");
                    errors.push(FnError::new(i, func, e));
                }
                Role::InplaceView
            }
            (true, false) => Role::View,
            (false, _) => Role::Other(f.func.kind()),
        };
        let b = *index.entry(&*sigs[i]).or_insert_with(|| {
            buckets.push(ViewBucket::default());
            buckets.len() - 1
        });
        if let Some(other) = buckets[b].get(role) {
            let e = SchemaError::new(
                Rule::ViewCopy,
                name_range(f),
                format!(
                    "`{}` and `{}` have the same view signature and role",
                    fs[other].func.name, f.func.name
                ),
            )
            .with_hint("change the arguments of one of them");
            errors.push(FnError::new(i, func, e));
            continue;
        }
        buckets[b].members.push((role, i));
    }
    let mut groups = Vec::new();
    for b in &buckets {
        let Some(view) = b.get(Role::View) else {
            continue;
        };
        let g = ViewIds {
            view,
            view_inplace: b.get(Role::InplaceView),
            view_copy: b.get(Role::Other(SchemaKind::Functional)),
        };
        check_view_group(fs, &g, errors);
        groups.push(g);
    }
    groups
}

/// Whether torchgen expects a `{base}_copy` operator for this view operator.
fn needs_view_copy(f: &NativeFunction) -> bool {
    f.is_view_op()
        && !f.has_composite_implicit_kernel()
        && !f.has_tag("inplace_view")
        && !f.func.name.name.base.ends_with("_inverse")
}

fn check_view_group(fs: &[NativeFunction], g: &ViewIds, errors: &mut Vec<FnError>) {
    let view = &fs[g.view];
    let func = Site::Value(Field::Func);
    let mut fail = |i: usize, message: String, hint: String| {
        let e = SchemaError::new(Rule::ViewCopy, name_range(&fs[i]), message).with_hint(hint);
        errors.push(FnError::new(i, func, e));
    };
    match g.view_copy {
        None if needs_view_copy(view) => {
            let copy = match &view.func.name.overload {
                Some(o) => format!("{}_copy.{o}", view.func.name.name.base),
                None => format!("{}_copy", view.func.name.name.base),
            };
            fail(
                g.view,
                format!(
                    "`{}` aliases its inputs but there is no copy variant `{copy}`",
                    view.func.name
                ),
                format!(
                    "add `{copy}` with the same arguments (no alias annotations) and `tags: view_copy`"
                ),
            );
        }
        None => {}
        Some(c) => {
            let copy = &fs[c];
            let base = &copy.func.name.name.base;
            if !base.ends_with("_copy") && !base.ends_with("_scatter") {
                fail(
                    c,
                    format!(
                        "`{}` pairs with view `{}` but is not named `{}_copy`",
                        copy.func.name, view.func.name, view.func.name.name.base
                    ),
                    "rename the copy variant, or change its arguments".into(),
                );
            } else if !copy.has_tag("view_copy") {
                fail(
                    c,
                    format!(
                        "`{}` is the copy variant of view `{}` but has no `view_copy` tag",
                        copy.func.name, view.func.name
                    ),
                    "add `tags: view_copy`".into(),
                );
            }
        }
    }
    if let Some(ip) = g.view_inplace {
        let inplace = &fs[ip];
        let pairs = [
            (
                view.has_composite_implicit_kernel(),
                inplace.has_composite_implicit_kernel(),
                "CompositeImplicitAutograd",
            ),
            (
                view.has_composite_implicit_nested_tensor_kernel(),
                inplace.has_composite_implicit_nested_tensor_kernel(),
                "CompositeImplicitAutogradNestedTensor",
            ),
        ];
        for (v, i, key) in pairs {
            if v && !i {
                fail(
                    ip,
                    format!(
                        "view `{}` has a `{key}` kernel but its in-place view `{}` does not",
                        view.func.name, inplace.func.name
                    ),
                    format!("give both a `{key}` kernel, or neither"),
                );
            }
        }
    }
}
