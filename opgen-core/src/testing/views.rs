//! View semantics: a return the schema marks as a view of an argument (`Tensor(a) self ->
//! Tensor(a)`, an alias annotation without `!`) shares that argument's storage, so a write
//! through either handle shows in the other; and an operator that writes nothing does not
//! hand back one of its arguments as a return.
//!
//! The writes use the `Tensor` hooks `sizes`, `options`, `empty` and `copy_`; the values are
//! compared with [`OpCheck::compare_with`]'s function. A tensor type with copy-on-write
//! storage, whose handles stop sharing data at the first write, fails this check, as views
//! then cannot work.

use crate::dispatch::{DispatchKey, DispatchKeySet, IValue, OperatorHandle, ServedBy, Tensor};
use crate::schema::Schema;

use super::values::{element, full_name, snapshot, tensors_of};
use super::{Check, OpCheck};

/// Which argument each view return is a view of: `(argument, return)` index pairs, for the
/// returns annotated without `!` and the plain-`Tensor` arguments sharing their alias set.
pub(super) fn view_pairs(schema: &Schema) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (r, ret) in schema.returns.iter().enumerate() {
        let Some(alias) = ret.annotation.as_ref().filter(|a| !a.is_write) else {
            continue;
        };
        for (i, arg) in schema.arguments.iter().enumerate() {
            let same_set = arg
                .annotation
                .as_ref()
                .is_some_and(|a| !a.is_write && a.before == alias.before);
            if same_set && arg.ty.is_plain_tensor() {
                pairs.push((i, r));
            }
        }
    }
    pairs
}

/// The composite key whose kernel serves a call with `args`, if the kernel at the highest
/// backend key of the arguments is a `CompositeImplicitAutograd` one: such an operator
/// decomposes into others and may return a copy where the schema allows an alias
/// (`reshape`, `contiguous`), as in PyTorch.
pub(super) fn composite_kernel<T: Tensor>(
    op: &OperatorHandle,
    args: &[IValue<T>],
) -> Option<DispatchKey> {
    let keys =
        (args.iter().flat_map(tensors_of)).fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set());
    let backends: Vec<DispatchKey> = keys.iter().filter(|k| k.is_backend()).collect();
    let backend = DispatchKeySet::from_keys(&backends).highest()?;
    match op.dispatch_table().get(backend) {
        ServedBy::Kernel { key, .. }
            if matches!(
                key,
                DispatchKey::CompositeImplicitAutograd
                    | DispatchKey::CompositeImplicitAutogradNestedTensor
            ) =>
        {
            Some(key)
        }
        _ => None,
    }
}

impl<T: Tensor> OpCheck<'_, T> {
    /// Checks that every view return of a call of `op` shares its base's storage; parts that
    /// cannot be checked go to `unchecked`.
    pub(super) fn check_views(
        &self,
        op: &OperatorHandle,
        schema: &Schema,
        args: &[IValue<T>],
        outputs: &[IValue<T>],
        unchecked: &mut Vec<(Check, String)>,
    ) -> Result<(), String> {
        let pairs = view_pairs(schema);
        if pairs.is_empty() {
            return Ok(());
        }
        let name = full_name(op);
        if let Some(key) = composite_kernel(op, args) {
            unchecked.push((
                Check::Schema,
                format!(
                    "the views of `{name}`: its {key} kernel may return a copy where the schema \
                     allows a view, as PyTorch's composite operators do"
                ),
            ));
            return Ok(());
        }
        let Some(same) = &self.compare else {
            unchecked.push((
                Check::Schema,
                format!(
                    "the views of `{name}`: seeing that a write through a view reaches its base \
                     needs `compare_with`"
                ),
            ));
            return Ok(());
        };
        let at_hand: Vec<T> = args.iter().chain(outputs).flat_map(tensors_of).collect();
        for (i, r) in pairs {
            let Some(IValue::Tensor(base)) = args.get(i) else {
                continue;
            };
            let outs = outputs.get(r).map(tensors_of).unwrap_or_default();
            for (j, out) in outs.iter().enumerate() {
                let view = View {
                    return_place: element(&format!("return {r}"), j, outs.len()),
                    base_name: &schema.arguments[i].name,
                    annotation: schema.returns[r]
                        .annotation
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                };
                if let Some(why) = view.check(base, out, &at_hand, same.as_ref())? {
                    unchecked.push((
                        Check::Schema,
                        format!("{} of `{name}`: {why}", view.return_place),
                    ));
                }
            }
        }
        Ok(())
    }

    /// An operator that writes nothing does not return one of its arguments itself
    /// (PyTorch's schema check: operators below autograd do not return their inputs).
    pub(super) fn check_no_input_returned(
        &self,
        op: &OperatorHandle,
        schema: &Schema,
        args: &[IValue<T>],
        outputs: &[IValue<T>],
        unchecked: &mut Vec<(Check, String)>,
    ) -> Result<(), String> {
        if schema.arguments.iter().any(|a| a.is_write()) || composite_kernel(op, args).is_some() {
            return Ok(());
        }
        for (r, out) in outputs.iter().enumerate() {
            for (j, t) in tensors_of(out).iter().enumerate() {
                for (i, arg) in args.iter().enumerate() {
                    for input in tensors_of(arg) {
                        match t.is_same(&input) {
                            Ok(false) => {}
                            Ok(true) => {
                                let what =
                                    element(&format!("return {r}"), j, tensors_of(out).len());
                                let arg_name =
                                    schema.arguments.get(i).map_or("?", |a| a.name.as_str());
                                return Err(format!(
                                    "Dispatcher operators below autograd are not allowed to \
                                     directly return inputs: {what} is the argument `{arg_name}` \
                                     itself; return a new tensor (or a view, if the schema says \
                                     so with an alias annotation such as `Tensor(a)`)"
                                ));
                            }
                            Err(e) => {
                                unchecked.push((
                                    Check::Schema,
                                    format!("whether `{}` returns an input: {e}", full_name(op)),
                                ));
                                return Ok(());
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// One view return and its base, for messages.
struct View<'s> {
    return_place: String,
    base_name: &'s str,
    annotation: String,
}

impl View<'_> {
    /// Writes a value that differs from the view's through the view, expects the base to
    /// change, writes the base's old values back and expects the view's old values back.
    /// `Ok(Some(why))` when no value at hand differs from the view's.
    fn check<T: Tensor>(
        &self,
        base: &T,
        out: &T,
        at_hand: &[T],
        same: &dyn Fn(&T, &T) -> bool,
    ) -> Result<Option<String>, String> {
        let hook = |e: crate::dispatch::Error| {
            format!(
                "the view check writes through {} with the `Tensor` hooks `sizes`, `options`, \
                 `empty` and `copy_`: {e}",
                self.return_place
            )
        };
        let sizes = out.sizes().map_err(hook)?;
        if sizes.iter().product::<i64>() == 0 {
            return Ok(Some("it has no elements, so no write can show".into()));
        }
        let (out_was, base_was) = (snapshot(out).map_err(hook)?, snapshot(base).map_err(hook)?);
        let Some(other) = different_values(out, &out_was, &sizes, at_hand, same).map_err(hook)?
        else {
            return Ok(Some(
                "every tensor at hand has its values, so no write can show; give sample inputs \
                 with varied values"
                    .into(),
            ));
        };
        let (what, base_name, ann) = (&self.return_place, self.base_name, &self.annotation);
        out.clone().copy_(&other).map_err(hook)?;
        if same(base, &base_was) {
            return Err(format!(
                "{what} is a view of `{base_name}` by the schema (`Tensor({ann})`), but a write \
                 through it did not change `{base_name}`: the kernel returned a tensor with its \
                 own storage (a copy, or a handle that copies on write); return a view that \
                 shares `{base_name}`'s storage"
            ));
        }
        base.clone().copy_(&base_was).map_err(hook)?;
        if !same(out, &out_was) {
            return Err(format!(
                "{what} is a view of `{base_name}` by the schema (`Tensor({ann})`), but a write \
                 to `{base_name}` did not show in it: the two handles do not share storage \
                 (a copy-on-write tensor type breaks views)"
            ));
        }
        Ok(None)
    }
}

/// A new tensor of the view's sizes and dtype whose values differ from `was` (the view's):
/// an empty tensor, or a copy of a tensor at hand of that shape.
fn different_values<T: Tensor>(
    out: &T,
    was: &T,
    sizes: &[i64],
    at_hand: &[T],
    same: &dyn Fn(&T, &T) -> bool,
) -> Result<Option<T>, crate::dispatch::Error> {
    let options = out.options()?;
    let empty = T::empty(sizes, None, &options)?;
    if !same(&empty, was) {
        return Ok(Some(empty));
    }
    for t in at_hand {
        if t.sizes()? != sizes || t.options()?.dtype_or_default() != options.dtype_or_default() {
            continue;
        }
        let copy = snapshot(t)?;
        if !same(&copy, was) {
            return Ok(Some(copy));
        }
    }
    Ok(None)
}
