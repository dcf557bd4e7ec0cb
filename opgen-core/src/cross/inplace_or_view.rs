//! In-place-or-view kernels: after an operator that writes its arguments, bump their
//! version counters; after a view operator, mark its outputs as views of their base.

use std::sync::Arc;

use super::{Installed, Scope, args_base, has_own_kernel, hook_error};
use crate::autograd;
use crate::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, OperatorHandle, Registration, Stack,
    Tensor, boxed,
};
use crate::schema::Schema;

const FEATURE: &str = "ADInplaceOrView";

/// Registers a kernel at `ADInplaceOrView` for every operator of `dispatcher` in `scope` that
/// writes an argument (an `(a!)` annotation: in-place, out and mutable operators) or returns
/// a view (a return with an annotation without `!`, e.g. `Tensor(a) self -> Tensor(a)`); the
/// other operators skip the key at no cost, by the dispatcher's default fallthrough fallback
/// at `ADInplaceOrView` (or by whatever fallback replaces it). Operators served only by a
/// `CompositeImplicitAutograd` kernel get none (as in torchgen): the operators their kernel
/// calls do the bookkeeping.
///
/// The kernel runs the rest of the stack below the key, then calls
/// [`Tensor::bump_version`] once on every tensor passed to a written argument (`Tensor(a!)`,
/// `Tensor(a!)?`, `Tensor(a!)[]`), and [`Tensor::set_view_of`] on every tensor of a view
/// return (`Tensor(a)`, `Tensor(a)[]`) with the argument of the same alias set as base. An
/// operator that both writes and views (`transpose_`) only bumps versions. The kernel runs
/// for tensors whose key set has `ADInplaceOrView` (PyTorch gives it to every tensor that is
/// not an inference tensor).
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
/// use opgen_core::cross::install_inplace_or_view;
/// # use opgen_core::dispatch::*;
/// #[derive(Clone)]
/// struct MyTensor(Arc<AtomicU64>);
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet {
///         DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::ADInplaceOrView])
///     }
///     fn version(&self) -> Result<u64, Error> { Ok(self.0.load(Ordering::Relaxed)) }
///     fn bump_version(&self) -> Result<(), Error> { self.0.fetch_add(1, Ordering::Relaxed); Ok(()) }
/// }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let _def = lib.def("neg_(Tensor(a!) self) -> Tensor(a!)")?;
/// let _cpu = lib.impl_("neg_", DispatchKey::CPU, |t: &mut MyTensor| t.clone())?;
/// let _views = install_inplace_or_view::<MyTensor>(&d, "demo")?;
/// let mut t = MyTensor(Arc::default());
/// d.typed::<_, (&mut MyTensor,), MyTensor>("demo::neg_", "")?.call(&mut t);
/// assert_eq!(t.version()?, 1);
/// # Ok::<(), Error>(())
/// ```
pub fn install_inplace_or_view<T: Tensor>(
    dispatcher: &Dispatcher,
    scope: impl Into<Scope>,
) -> Result<Installed, Error> {
    let mut installed = Installed::new(FEATURE, dispatcher, scope.into(), Some(register::<T>));
    installed.refresh()?;
    Ok(installed)
}

/// What the kernel of one operator does, from its schema.
#[derive(Debug, Default, PartialEq, Eq)]
struct Plan {
    /// The positions of the written arguments.
    written: Vec<usize>,
    /// For each view return: its position and the position of its base argument.
    views: Vec<(usize, usize)>,
}

impl Plan {
    fn new(schema: &Schema) -> Plan {
        let written: Vec<usize> = (schema.arguments.iter().enumerate())
            .filter(|(_, a)| a.is_write())
            .map(|(i, _)| i)
            .collect();
        // An operator that writes its base and returns it (`transpose_`) is in-place.
        let views = if written.is_empty() {
            (schema.returns.iter().enumerate())
                .filter_map(|(j, r)| {
                    let alias = r.annotation.as_ref().filter(|a| !a.is_write)?;
                    let base = (schema.arguments.iter()).position(|a| {
                        a.annotation
                            .as_ref()
                            .is_some_and(|b| b.before == alias.before)
                    })?;
                    Some((j, base))
                })
                .collect()
        } else {
            Vec::new()
        };
        Plan { written, views }
    }

    fn applies(&self) -> bool {
        !self.written.is_empty() || !self.views.is_empty()
    }
}

fn register<T: Tensor>(
    dispatcher: &Dispatcher,
    op: &OperatorHandle,
    _scope: &Scope,
) -> Result<Option<Registration>, Error> {
    let Some(schema) = op.schema() else {
        return Ok(None);
    };
    let plan = Plan::new(&schema);
    if !plan.applies() || has_own_kernel(op, DispatchKey::ADInplaceOrView) || is_decomposed(op) {
        return Ok(None);
    }
    let (plan, num_args) = (Arc::new(plan), schema.arguments.len());
    let kernel = boxed(move |op: &OperatorHandle, ks, stack: &mut Stack<T>| {
        inplace_or_view::<T>(&plan, num_args, op, ks, stack)
    });
    let lib = dispatcher.impls(op.namespace());
    lib.impl_(&op.to_string(), DispatchKey::ADInplaceOrView, kernel)
        .map(Some)
}

/// Whether `op` runs only as a `CompositeImplicitAutograd` decomposition (no explicit
/// composite kernel): torchgen generates no ADInplaceOrView kernel for such operators
/// (`use_derived`), because the operators they call do the bookkeeping, and a `Tensor(a)`
/// return of theirs may be a new tensor (`reshape` copies when it cannot view).
fn is_decomposed(op: &OperatorHandle) -> bool {
    let keys = op.keys_with_kernels();
    keys.contains(&DispatchKey::CompositeImplicitAutograd)
        && !keys.contains(&DispatchKey::CompositeExplicitAutograd)
        && !keys.contains(&DispatchKey::CompositeExplicitAutogradNonFunctional)
}

fn inplace_or_view<T: Tensor>(
    plan: &Plan,
    num_args: usize,
    op: &OperatorHandle,
    ks: DispatchKeySet,
    stack: &mut Stack<T>,
) -> Result<(), Error> {
    let base = args_base(op, num_args, stack)?;
    // The handles share the tensors the kernels below write (a tensor type is a handle).
    let mut written = Vec::new();
    for &i in &plan.written {
        if let Some(value) = stack.get(base + i) {
            tensors_of(value, &mut |t| written.push(t.clone()));
        }
    }
    // Refused before anything is written (c10 refuses it when bumping, after the write).
    for tensor in &written {
        autograd::check_inplace_update(tensor).map_err(|e| in_op(e, op))?;
    }
    let bases: Vec<(usize, Option<T>)> = (plan.views.iter())
        .map(|&(j, i)| (j, stack.get(base + i).and_then(IValue::as_tensor).cloned()))
        .collect();
    // In inference mode the Autograd kernel, which records views, does not run: they are
    // recorded here (c10's `as_view` in this kernel).
    let record_views = autograd::is_inference_mode_enabled();
    op.redispatch_boxed(ks.below(DispatchKey::ADInplaceOrView), stack)?;
    for tensor in &written {
        autograd::bump_version(tensor).map_err(hook_error(FEATURE))?;
    }
    for (j, view_base) in bases {
        // A view of an inference tensor is no view: it has no version counter to share.
        let Some(view_base) = view_base.filter(|b| !b.is_inference()) else {
            continue;
        };
        let Some(output) = stack.get(base + j) else {
            continue;
        };
        let mut result = Ok(());
        tensors_of(output, &mut |view| {
            if result.is_ok() {
                result = view.set_view_of(&view_base);
            }
            if record_views {
                autograd::record_inference_view(&view_base, view);
            }
        });
        result.map_err(hook_error(FEATURE))?;
    }
    Ok(())
}

/// An autograd error of the call of `op`.
fn in_op(e: Error, op: &OperatorHandle) -> Error {
    match autograd::as_autograd_error(&e) {
        Some(ae) => ae.clone().in_context(op.to_string()).into(),
        None => e,
    }
}

/// Calls `f` on every tensor a value holds.
fn tensors_of<T>(value: &IValue<T>, f: &mut impl FnMut(&T)) {
    match value {
        IValue::Tensor(t) => f(t),
        IValue::TensorList(ts) => ts.iter().for_each(f),
        IValue::OptionalTensorList(ts) => ts.iter().flatten().for_each(f),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_schema;

    fn plan(schema: &str) -> Plan {
        Plan::new(&parse_schema(schema).expect("valid schema"))
    }

    #[test]
    fn plans_follow_the_annotations() {
        let inplace =
            plan("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
        assert_eq!((inplace.written, inplace.views), (vec![0], vec![]));
        let out = plan(
            "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
        );
        assert_eq!(out.written, [3, 4]);
        let view = plan("view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
        assert_eq!((view.written, view.views), (vec![], vec![(0, 0)]));
        let unbind = plan("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]");
        assert_eq!(unbind.views, [(0, 0)]);
        let transpose_ = plan("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)");
        assert_eq!((transpose_.written, transpose_.views), (vec![0], vec![]));
        assert!(
            !plan("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor").applies()
        );
        let foreach = plan("_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()");
        assert_eq!(foreach.written, [0]);
    }
}
