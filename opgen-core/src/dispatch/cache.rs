//! The per-operator state of operators declared at compile time: each expansion's table
//! ([`OpTable`]: link entries, caches, static-dispatch setting) and [`OpCache`], the typed
//! handle looked up on an operator's first call and kept.

use std::any::{Any, TypeId, type_name};
use std::fmt;

use super::Dispatcher;
use super::args::short_type_name;
use super::erased::InitOnce;
use super::error::Error;
use super::handle::{OperatorHandle, TypedOperator};
use super::kernel::ArgList;
use super::keyset::DispatchKeySet;
use super::operator::{ArgTuple, Operator, options_at};
use super::registry::entry::LinkEntry;
use super::returns::RetValue;
use super::static_dispatch::StaticOperator;
use super::tensor::Tensor;
use crate::plan::RustType;

/// What the operators of one expansion of `#[native_function]` or
/// `include_native_functions!` share: the expansion's link entries, one cache per entry, and
/// whether the declaring crate enables static dispatch. Each operator's marker names its
/// table and its position in it ([`Operator::Table`], [`Operator::INDEX`]) instead of
/// spelling its schema, settings and cache out, which keeps the per-operator `impl` small
/// (what the compiler checks for every operator of ATen).
///
/// Implemented by the hidden table type of each expansion (`__private::op_table!`).
#[doc(hidden)]
pub trait OpTable: 'static {
    /// The expansion's link entries: the `def` of the operator at `INDEX` is `ENTRIES[INDEX]`.
    const ENTRIES: &'static [LinkEntry];
    /// One cache per entry (entries that declare no marker leave theirs unused).
    const CACHES: &'static [OpCache];
    /// Whether the declaring crate enables its feature `opgen-static-dispatch`.
    const STATIC_DISPATCH: bool;
}

/// The typed handle of the operator with marker `O`.
pub type TypedOf<O> =
    TypedOperator<<O as Operator>::Tensor, <O as Operator>::Args, <O as Operator>::Returns>;

/// The handles of one operator, looked up on first use and kept for the life of the
/// program (a failed lookup is not kept, so an operator registered later is found later):
/// one per [`Operator`], whose methods name the operator.
///
/// The type is the same for every operator (the handle is checked against the operator's
/// signature when it is looked up, and viewed as typed after), so that
/// `include_native_functions!` keeps the caches of all its operators in one `static`
/// array: the compiler evaluates one `static`, not one per operator.
///
/// An empty cache is zero bytes, so that such an array takes no room in the program file.
pub struct OpCache {
    handle: InitOnce<OperatorHandle>,
    statik: InitOnce<Box<dyn Any + Send + Sync>>,
}

/// The static-dispatch state of one operator.
struct StaticState<T, L, R> {
    op: StaticOperator<T, L, R>,
    /// Where the TensorOptions group starts (`None`: no group).
    options: Option<usize>,
}

impl OpCache {
    /// An empty cache.
    pub const fn new() -> Self {
        OpCache {
            handle: InitOnce::new(),
            statik: InitOnce::new(),
        }
    }

    /// The typed handle of operator `O` (whose cache this is): after the first success, one
    /// atomic load.
    #[inline]
    pub fn typed<O: Operator>(&'static self) -> Result<&'static TypedOf<O>, Error> {
        match self.handle.get() {
            Some(op) => Ok(super::erased::typed_view(op)),
            None => self.init::<O, O::Tensor, O::Args, O::Returns>(),
        }
    }

    /// Looks the handle of operator `O` up, checks it against the signature `(T, L, R)` it
    /// is about to be called with, and keeps it.
    #[cold]
    #[inline(never)]
    fn init<O: Operator, T: Tensor, L: ArgTuple<T>, R: RetValue<T>>(
        &'static self,
    ) -> Result<&'static TypedOperator<T, L, R>, Error> {
        let name = O::name();
        // Checked once against the signature used; calls re-check each kernel's.
        let typed = Dispatcher::global()
            .find(name.qualified, name.overload)?
            .typed_families::<T, L, R>()?;
        let op = typed.handle().clone();
        Ok(super::erased::typed_view(self.handle.get_or_init(|| op)))
    }

    /// Calls operator `O`: through the global dispatcher, or with static dispatch the
    /// kernel linked for the arguments' backend (for an operator with TensorOptions, joined
    /// with the backend of its dtype, layout and device, as torchgen's static dispatch;
    /// through the dispatcher, its `BackendSelect` kernel does the same).
    #[inline]
    pub fn call<O: Operator>(
        &'static self,
        args: <O::Args as ArgTuple<O::Tensor>>::Borrowed<'_>,
    ) -> Result<O::Returns, Error> {
        self.call_as::<O, O::Tensor, O::Args, O::Returns>(args)
    }

    /// [`OpCache::call`] with the signature `(T, L, R)` the caller names (a generated call
    /// names its argument and return types, not `O`'s associated types): an error unless it
    /// is the one `O` declares. The comparison is of two constants, decided when the call is
    /// compiled.
    #[inline]
    pub(crate) fn call_as<O: Operator, T: Tensor, L: ArgTuple<T>, R: RetValue<T>>(
        &'static self,
        args: L::Borrowed<'_>,
    ) -> Result<R, Error> {
        if !declares::<O, T, L, R>() {
            return Err(undeclared_signature::<O, T, L, R>());
        }
        if O::STATIC_DISPATCH {
            return self.call_static::<O, T, L, R>(args);
        }
        // The handle matched directly rather than through `typed()`'s `Result`, whose
        // merged discriminant the optimiser would otherwise test on every call.
        match self.handle.get() {
            Some(op) => L::call(super::erased::typed_view(op), args),
            None => self.call_first::<O, T, L, R>(args),
        }
    }

    /// [`OpCache::call_as`] before the handle is cached: looks it up, then calls.
    #[cold]
    #[inline(never)]
    fn call_first<O: Operator, T: Tensor, L: ArgTuple<T>, R: RetValue<T>>(
        &'static self,
        args: L::Borrowed<'_>,
    ) -> Result<R, Error> {
        L::call(self.init::<O, T, L, R>()?, args)
    }

    /// Redispatches operator `O` (always through the global dispatcher): one atomic load
    /// of the cached handle, then the typed redispatch.
    #[inline]
    pub(crate) fn redispatch<O: Operator>(
        &'static self,
        ks: DispatchKeySet,
        args: <O::Args as ArgTuple<O::Tensor>>::Borrowed<'_>,
    ) -> Result<O::Returns, Error> {
        match self.handle.get() {
            Some(op) => <O::Args as ArgTuple<O::Tensor>>::redispatch(
                super::erased::typed_view(op),
                ks,
                args,
            ),
            None => self.redispatch_first::<O>(ks, args),
        }
    }

    /// [`OpCache::redispatch`] before the handle is cached: looks it up, then redispatches.
    #[cold]
    #[inline(never)]
    fn redispatch_first<O: Operator>(
        &'static self,
        ks: DispatchKeySet,
        args: <O::Args as ArgTuple<O::Tensor>>::Borrowed<'_>,
    ) -> Result<O::Returns, Error> {
        let op = self.init::<O, O::Tensor, O::Args, O::Returns>()?;
        <O::Args as ArgTuple<O::Tensor>>::redispatch(op, ks, args)
    }

    fn call_static<O: Operator, T: Tensor, L: ArgTuple<T>, R: RetValue<T>>(
        &'static self,
        args: L::Borrowed<'_>,
    ) -> Result<R, Error> {
        let state = self.static_state::<O, T, L, R>()?;
        let op = &state.op;
        let extra = match state.options {
            Some(start) => {
                let devices = L::device_args(&args);
                let (dtype, layout, device) = options_at(&devices, start);
                super::device::backend_select_keys(
                    op.name(),
                    DispatchKeySet::EMPTY,
                    false,
                    dtype,
                    layout,
                    device,
                )?
            }
            None => DispatchKeySet::EMPTY,
        };
        L::call_static(op, extra, args)
    }

    /// The statically dispatched operator, built on the first success.
    fn static_state<O: Operator, T: Tensor, L: ArgTuple<T>, R: RetValue<T>>(
        &'static self,
    ) -> Result<&'static StaticState<T, L, R>, Error> {
        let state = match self.statik.get() {
            Some(state) => state,
            None => {
                let name = O::name();
                let op = StaticOperator::<T, L, R>::build(
                    name.qualified,
                    name.overload,
                    super::registry::entry::link_entries(),
                    &super::registry::entry::DEFERRED,
                )?;
                let options = crate::schema::parse_schema(O::SCHEMA)
                    .ok()
                    .and_then(|s| s.tensor_options_start());
                self.statik
                    .get_or_init(|| Box::new(StaticState { op, options }))
            }
        };
        state.downcast_ref::<StaticState<T, L, R>>().ok_or_else(|| {
            Error::internal(format!(
                "the cache of `{}` holds another operator's static dispatch",
                O::name().operator
            ))
        })
    }
}

/// Whether `(T, L, R)` is the signature operator `O` declares (its tensor type, argument
/// families and returns).
#[inline(always)]
fn declares<O: Operator, T: Tensor, L: ArgList<T>, R: RetValue<T>>() -> bool {
    TypeId::of::<(T, L, R)>() == TypeId::of::<(O::Tensor, O::Args, O::Returns)>()
}

/// The error of a call of operator `O` with a signature `(T, L, R)` other than the one it
/// declares: the dispatcher's wrong-signature error when the schema rejects `(T, L, R)`,
/// else one naming both signatures.
#[cold]
#[inline(never)]
fn undeclared_signature<O: Operator, T: Tensor, L: ArgList<T>, R: RetValue<T>>() -> Error {
    let name = O::name();
    let checked = Dispatcher::global()
        .find(name.qualified, name.overload)
        .and_then(|op| op.typed_families::<T, L, R>());
    if let Err(error) = checked {
        return error;
    }
    let show = |tensor: &str, types: Vec<RustType>, ret: RustType| {
        let tensor = short_type_name(tensor);
        let types: Vec<String> = (types.iter())
            .map(|t| t.display_with(&tensor).to_string())
            .collect();
        format!("({}) -> {}", types.join(", "), ret.display_with(&tensor))
    };
    Error::internal(format!(
        "`{}` was called as `{}`, but its marker `{}` declares `{}`",
        name.operator,
        show(type_name::<T>(), L::rust_types(), R::rust_type()),
        type_name::<O>(),
        show(
            type_name::<O::Tensor>(),
            O::Args::rust_types(),
            O::Returns::rust_type()
        ),
    ))
}

impl Default for OpCache {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for OpCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OpCache(looked up: {})", self.handle.get().is_some())
    }
}
