//! Kernels derived for a group of operators (SCHEMA.md §5.7, §5.8): out and in-place
//! wrappers for a backend that has only the functional kernel, and the in-place-on-Meta
//! short circuit. [`derived_wrapper`] decides; [`derive_wrappers`] registers.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::Location;
use std::sync::Arc;

use super::meta::structured_error;
use crate::dispatch::kernel::{ErasedKernel, private::Erase};
use crate::dispatch::registry::DefinedOperator;
use crate::dispatch::registry::link::PostLink;
use crate::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, OperatorHandle, Registration, Stack,
    Tensor, boxed,
};
use crate::schema::{Schema, SchemaKind};

/// A wrapper kernel the runtime derives for one member of a group at one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DerivedWrapper {
    /// The out operator calls the functional kernel and copies the result into `out`,
    /// resizing `out` when its shape differs (torchgen's `_copy_from_and_resize`).
    OutFromFunctional,
    /// The in-place operator calls the functional kernel and copies the result into `self`,
    /// never resizing: a result of another shape is an error (torchgen's `_copy_from`).
    InPlaceFromFunctional,
    /// At `Meta`, the in-place operator checks that `self` is a meta tensor and returns it
    /// unchanged (§5.8): an in-place operator keeps `self`'s shape.
    InPlaceMetaShortCircuit,
}

/// What [`derived_wrapper`] needs to know about one member of a group at one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrapperFacts {
    /// The member's kind (only `Inplace` and `Out` members get wrappers).
    pub kind: SchemaKind,
    /// The runtime key.
    pub key: DispatchKey,
    /// The member has a kernel registered at `key` itself.
    pub has_kernel: bool,
    /// The member has a composite kernel (`CompositeExplicitAutograd`,
    /// `CompositeExplicitAutogradNonFunctional`, `CompositeImplicitAutograd`...).
    pub has_composite: bool,
    /// The group's functional operator has a kernel registered at `key` itself.
    pub functional_has_kernel: bool,
    /// The number of the member's returns.
    pub returns: usize,
}

/// The one decision of when a wrapper is derived, used by the runtime's registration
/// ([`derive_wrappers`]) and by `#[native_function]`'s expansion (the docs of an operator
/// defined with kernels):
///
/// * nothing at a key that is not a backend key, or for a member that has its own kernel
///   there or a composite kernel (which serves the key already);
/// * at `Meta`, an in-place member that returns one value: the short circuit (§5.8);
/// * elsewhere, an in-place or out member whose group's functional operator has a kernel
///   at the key: the wrapper that calls it and copies (§5.7). An in-place member without
///   returns (a tensor-list operator) cannot be derived.
///
/// ```
/// use opgen_core::dispatch::DispatchKey;
/// use opgen_core::schema::SchemaKind;
/// use opgen_core::structured::{derived_wrapper, DerivedWrapper, WrapperFacts};
/// let facts = WrapperFacts {
///     kind: SchemaKind::Out,
///     key: DispatchKey::PrivateUse1,
///     has_kernel: false,
///     has_composite: false,
///     functional_has_kernel: true,
///     returns: 1,
/// };
/// assert_eq!(derived_wrapper(&facts), Some(DerivedWrapper::OutFromFunctional));
/// assert_eq!(derived_wrapper(&WrapperFacts { has_kernel: true, ..facts }), None);
/// let inplace_meta = WrapperFacts { kind: SchemaKind::Inplace, key: DispatchKey::Meta, functional_has_kernel: false, ..facts };
/// assert_eq!(derived_wrapper(&inplace_meta), Some(DerivedWrapper::InPlaceMetaShortCircuit));
/// ```
pub fn derived_wrapper(facts: &WrapperFacts) -> Option<DerivedWrapper> {
    if !derives_at(facts.key) || facts.has_kernel || facts.has_composite {
        return None;
    }
    match facts.kind {
        SchemaKind::Inplace if facts.key == DispatchKey::Meta && facts.returns == 1 => {
            Some(DerivedWrapper::InPlaceMetaShortCircuit)
        }
        SchemaKind::Inplace if facts.functional_has_kernel && facts.returns > 0 => {
            Some(DerivedWrapper::InPlaceFromFunctional)
        }
        SchemaKind::Out if facts.functional_has_kernel => Some(DerivedWrapper::OutFromFunctional),
        _ => None,
    }
}

/// Whether wrappers are derived at `key`: a backend key, or `ZeroTensor` (a functionality
/// in c10, but it holds kernels as a backend does).
fn derives_at(key: DispatchKey) -> bool {
    key.is_backend() || key == DispatchKey::ZeroTensor
}

/// What a derived kernel is built from.
pub(crate) struct Derivation {
    pub(crate) wrapper: DerivedWrapper,
    /// The group's functional operator (`None` for the short circuit).
    pub(crate) functional: Option<OperatorHandle>,
    /// The key the kernel is registered at, where it calls the functional kernel.
    pub(crate) key: DispatchKey,
}

/// Makes the derived kernel `request` (a [`Derivation`]) asks for, for tensor type `T`:
/// every kernel carries this function for its tensor type (`dispatch::kernel::DeriveFn`,
/// through `crate::derive_kernel`), so that wrappers can be derived for any `T`.
pub(crate) fn derive_kernel<T: Tensor>(request: Box<dyn std::any::Any>) -> Option<ErasedKernel> {
    let Derivation {
        wrapper,
        functional,
        key,
    } = *request.downcast::<Derivation>().ok()?;
    let kernel = boxed(move |op: &OperatorHandle, _ks, stack: &mut Stack<T>| {
        let schema = op.schema().ok_or_else(|| Error::internal("no schema"))?;
        let base = (stack.len())
            .checked_sub(schema.arguments.len())
            .ok_or_else(|| Error::internal("a derived kernel's stack is short"))?;
        let operator = op.to_string();
        let functional = functional.as_ref();
        match (wrapper, functional) {
            (DerivedWrapper::OutFromFunctional, Some(functional)) => {
                let outs = stack.split_off(base + schema.out_start());
                functional.redispatch_boxed(DispatchKeySet::from_key(key), stack)?;
                let results = stack.split_off(base);
                let returned = !schema.returns.is_empty();
                for (out, result) in outs.into_iter().zip(results) {
                    let (Some(mut out), Some(result)) = (out.into_tensor(), result.into_tensor())
                    else {
                        return Err(structured_error(
                            &operator,
                            key,
                            "an out wrapper derived from the functional kernel copies tensors only"
                                .into(),
                        ));
                    };
                    let sizes = result.sizes()?;
                    if out.sizes()? != sizes {
                        out.resize_(&sizes)?;
                    }
                    out.copy_(&result)?;
                    if returned {
                        stack.push(IValue::Tensor(out));
                    }
                }
                Ok(())
            }
            (DerivedWrapper::InPlaceFromFunctional, Some(functional)) => {
                let target = self_tensor(stack, base, &schema)?;
                functional.redispatch_boxed(DispatchKeySet::from_key(key), stack)?;
                let results = stack.split_off(base);
                let (Some(mut target), Some(result)) = (
                    target,
                    results.into_iter().next().and_then(IValue::into_tensor),
                ) else {
                    return Err(structured_error(
                        &operator,
                        key,
                        "an in-place wrapper derived from the functional kernel needs a tensor `self` and result"
                            .into(),
                    ));
                };
                let (have, got) = (target.sizes()?, result.sizes()?);
                if have != got {
                    return Err(structured_error(
                        &operator,
                        key,
                        format!(
                            "Bad in-place call: input tensor size {have:?} and output tensor size {got:?} should match"
                        ),
                    ));
                }
                target.copy_(&result)?;
                stack.push(IValue::Tensor(target));
                Ok(())
            }
            (DerivedWrapper::InPlaceMetaShortCircuit, _) => {
                let target = self_tensor(stack, base, &schema)?;
                let _args = stack.split_off(base);
                match target {
                    Some(target) if target.key_set().contains(DispatchKey::Meta) => {
                        stack.push(IValue::Tensor(target));
                        Ok(())
                    }
                    _ => Err(structured_error(
                        &operator,
                        key,
                        "Cannot inplace into non-meta tensor with meta tensor argument".into(),
                    )),
                }
            }
            (_, None) => Err(Error::internal("a derived wrapper without its functional")),
        }
    });
    Some(boxed_erase(kernel))
}

fn boxed_erase<T: Tensor, K: Erase<T, crate::dispatch::BoxedKernel>>(kernel: K) -> ErasedKernel {
    kernel.erase(Arc::from(""))
}

/// The `self` argument's tensor, if the schema has one.
fn self_tensor<T: Tensor>(
    stack: &Stack<T>,
    base: usize,
    schema: &crate::schema::Schema,
) -> Result<Option<T>, Error> {
    let index = schema.self_index().unwrap_or(0);
    Ok(stack.get(base + index).and_then(IValue::as_tensor).cloned())
}

/// Registers every wrapper [`derived_wrapper`] asks for in `dispatcher`: operators are
/// grouped by their grouping signature (SCHEMA.md §3.2, [`crate::schema::Schema::signature`]),
/// and each in-place or out member gets the wrappers its group's kernels call for.
/// [`Dispatcher::global`] runs it after all link-time registrations; a program that
/// builds its own dispatcher calls it once its kernels are registered. Calling it again
/// registers nothing new (the wrappers count as the members' kernels).
///
/// ```
/// use opgen_core::dispatch::*;
/// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let _defs = [
///     lib.def("neg(Tensor self) -> Tensor")?,
///     lib.def("neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")?,
/// ];
/// let _cpu = lib.impl_("neg", DispatchKey::PrivateUse1, |t: &MyTensor| t.clone())?;
/// let (registrations, errors) = opgen_core::structured::derive_wrappers(&d);
/// assert!(errors.is_empty());
/// assert_eq!(registrations.len(), 1); // neg.out at PrivateUse1
/// # Ok::<(), Error>(())
/// ```
#[track_caller]
pub fn derive_wrappers(dispatcher: &Dispatcher) -> (Vec<Registration>, Vec<Error>) {
    let site = Location::caller();
    let mut registrations = Vec::new();
    let mut errors = Vec::new();
    for (namespace, members) in groups_with_kernels(dispatcher) {
        let kernels: Vec<Vec<(DispatchKey, Arc<ErasedKernel>)>> = (members.iter())
            .map(|(op, _, _)| dispatcher.kernels_of(&op.full_name))
            .collect();
        let functional = (members.iter()).position(|(_, kind, _)| *kind == SchemaKind::Functional);
        let functional_keys: BTreeSet<DispatchKey> = functional
            .and_then(|i| kernels.get(i))
            .map(|ks| ks.iter().map(|(k, _)| *k).collect())
            .unwrap_or_default();
        // Any kernel of the group knows the tensor type.
        let any_derive = kernels.iter().flatten().find_map(|(_, k)| k.derive);
        let lib = dispatcher.impls(&namespace);
        for (i, (op, kind, returns)) in members.iter().enumerate() {
            if !matches!(kind, SchemaKind::Inplace | SchemaKind::Out) {
                continue;
            }
            let own = kernels.get(i).map_or(&[][..], Vec::as_slice);
            let has_composite = own.iter().any(|(k, _)| k.is_composite());
            let candidates = functional_keys.iter().copied().chain([DispatchKey::Meta]);
            for key in candidates.collect::<BTreeSet<_>>() {
                let facts = WrapperFacts {
                    kind: *kind,
                    key,
                    has_kernel: own.iter().any(|(k, _)| *k == key),
                    has_composite,
                    functional_has_kernel: functional_keys.contains(&key),
                    returns: *returns,
                };
                let Some(wrapper) = derived_wrapper(&facts) else {
                    continue;
                };
                let derive = match wrapper {
                    DerivedWrapper::InPlaceMetaShortCircuit => any_derive,
                    _ => functional
                        .and_then(|f| kernels.get(f))
                        .and_then(|ks| ks.iter().find(|(k, _)| *k == key))
                        .and_then(|(_, k)| k.derive),
                };
                let Some(derive) = derive else { continue };
                // The wrapper calls the functional operator through a handle of it.
                let functional_op = functional
                    .and_then(|f| members.get(f))
                    .and_then(|(f, _, _)| dispatcher.find(&f.full_name, "").ok());
                let Some(kernel) = derive(Box::new(Derivation {
                    wrapper,
                    functional: functional_op,
                    key,
                })) else {
                    errors.push(Error::internal(format!(
                        "no kernel derived for `{}` at {key:?}",
                        op.full_name
                    )));
                    continue;
                };
                match lib.impl_erased(&op.full_name, key, kernel, site) {
                    Ok(r) => registrations.push(r),
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    (registrations, errors)
}

/// The groups (SCHEMA.md §3.2) in which some operator has a kernel, with their namespace,
/// by namespace and base name, leaving out those that cannot derive a wrapper. Only the
/// schemas of these groups' members are parsed (a group's members share its base name: `add`,
/// `add_`, `__and__`, `__iand__`), and no table is built, so that thousands of operators
/// defined without kernels, or with only kernels at keys that derive nothing (the generated
/// `BackendSelect` kernels of factory functions), cost nothing here.
fn groups_with_kernels(dispatcher: &Dispatcher) -> Vec<(String, Vec<Member>)> {
    // Each base name, with whether one of its operators has a kernel at a backend key.
    let mut bases: BTreeMap<(String, String), bool> = BTreeMap::new();
    for (namespace, op, keys) in dispatcher.defined_with_kernels() {
        // A name the parser rejects has no schema, hence no group.
        let Ok(name) = crate::schema::parse_operator_name(&op) else {
            continue;
        };
        let at_backend = keys.into_iter().any(derives_at);
        *bases
            .entry((namespace, name.name.base.to_string()))
            .or_default() |= at_backend;
    }
    let mut groups = Vec::new();
    for ((namespace, base), at_backend) in bases {
        let inplace = [
            format!("{namespace}::{base}_"),
            format!("{namespace}::__i{base}__"),
        ];
        // Without a kernel at a backend key, the only wrapper is an in-place member's
        // short circuit at `Meta`: a base without in-place operators derives nothing.
        if !at_backend && !inplace.iter().any(|name| dispatcher.has_overloads(name)) {
            continue;
        }
        let [inplace, dunder_inplace] = inplace;
        let names = [
            format!("{namespace}::{base}"),
            inplace,
            format!("{namespace}::__{base}__"),
            dunder_inplace,
        ];
        // The base name's operators, by grouping signature.
        let mut by_signature: Vec<(Schema, Vec<Member>)> = Vec::new();
        for op in names.iter().flat_map(|name| dispatcher.overloads_of(name)) {
            let signature = op.schema.signature();
            let (kind, returns) = (op.schema.kind(), op.schema.returns.len());
            let member = (op, kind, returns);
            match by_signature.iter_mut().find(|(s, _)| *s == signature) {
                Some((_, members)) => members.push(member),
                None => by_signature.push((signature, vec![member])),
            }
        }
        groups.extend(
            by_signature
                .into_iter()
                .map(|(_, members)| (namespace.clone(), members)),
        );
    }
    groups
}

/// Derives the wrappers once every link-time entry is registered: a post-link step of
/// [`Dispatcher::global`] (and of the private dispatchers of static dispatch), listed at the
/// crate root.
pub(crate) const DERIVE_WRAPPERS: PostLink = PostLink {
    run: |dispatcher| derive_wrappers(dispatcher),
};

/// One operator of a group: its name and schema, kind and number of returns.
type Member = (DefinedOperator, SchemaKind, usize);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cross::panics::PTensor;
    use crate::dispatch::operator::NameScan;
    use crate::dispatch::{DispatchKey as K, Library};

    /// `def`s as the link step makes them: only the name is read until the operator is
    /// needed.
    fn def_lazily(lib: &Library, schemas: &[&'static str]) -> Vec<Registration> {
        (schemas.iter())
            .map(|&text| {
                (lib.def_static((text, NameScan::of(text)), None, None, Location::caller()))
                    .expect("def")
            })
            .collect()
    }

    #[test]
    fn kernels_at_keys_that_derive_nothing_leave_their_groups_unparsed() {
        let d = Dispatcher::new();
        let lib = d.fragment("t");
        let _defs = def_lazily(
            &lib,
            &[
                "zeros(int[] size, *, ScalarType? dtype=None) -> Tensor",
                "zeros.out(int[] size, *, Tensor(a!) out) -> Tensor(a!)",
                "fill(Tensor self) -> Tensor",
                "fill_(Tensor(a!) self) -> Tensor(a!)",
            ],
        );
        // What generated `BackendSelect` kernels are: kernels at a key that is no backend.
        let _zeros = (lib.impl_(
            "zeros",
            K::BackendSelect,
            |_: &[i64], _: Option<crate::dispatch::ScalarType>| PTensor::cpu(&[0]),
        ))
        .expect("kernel");
        let _fill = (lib.impl_("fill", K::BackendSelect, |t: &PTensor| t.clone())).expect("kernel");
        let (wrappers, errors) = derive_wrappers(&d);
        assert!(errors.is_empty(), "{errors:?}");
        // `fill_` still gets its short circuit at `Meta` (§5.8), as before the filter...
        let fill_ = d.find("t::fill_", "").expect("fill_");
        assert!(fill_.keys_with_kernels().contains(&K::Meta));
        assert_eq!(wrappers.len(), 1);
        // ... while `zeros`'s group, without in-place members, was left alone: the schema
        // of `zeros.out` (no kernel checked against it) is still unparsed.
        assert_eq!(d.inner.is_parsed("t::zeros.out", ""), None);
        assert_eq!(d.inner.is_parsed("t::zeros", "out"), Some(false));
        assert_eq!(d.inner.is_parsed("t::fill_", ""), Some(true));
    }
}
