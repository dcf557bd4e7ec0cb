//! The registration functions generated code calls: a kernel at a key (with the device
//! check and guard of its operator at device-guarded keys), and an operator's generated
//! `BackendSelect` kernel. Both are generic over the kernel or the operator's marker, so an
//! expansion only names them.

use std::marker::PhantomData;
use std::sync::OnceLock;

use crate::dispatch::device::{backend_select_keys, impl_guarded};
use crate::dispatch::{
    DispatchKey, DispatchKeySet, Error, IValue, Library, Operator, OperatorHandle, Registration,
    Site, Stack, Tensor, TupleCall, boxed,
};
use crate::schema::parse_schema;

/// Registers `kernel` for the operator `name` (`add.Tensor`, in `lib`'s namespace) at `key`:
/// what every generated registration calls. At a device-guarded key
/// ([`DispatchKey::is_device_guarded`]: the CUDA-like and XPU-like keys) the kernel runs
/// inside the device check and guard its operator's `def` asks for (`device_check`,
/// `device_guard`), computed from the schema when it registers (torchgen's registration
/// wrappers; the dispatcher's `device` module does it): one mechanism for kernels whose
/// schema is written, attached with `op =`, or structured.
pub fn impl_kernel<T: Tensor, M, K: TupleCall<T, M>>(
    lib: &Library,
    name: &str,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<Registration, Error> {
    impl_guarded(lib, name, key, kernel, std::any::type_name::<K>(), site)
}

/// [`impl_kernel`] for the operator with marker `O`, whose argument families and returns
/// the kernel must have.
pub fn impl_kernel_of<O, M, K>(
    lib: &Library,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<Registration, Error>
where
    O: Operator,
    K: TupleCall<O::Tensor, M, Args = O::Args, Value = O::Returns>,
{
    impl_kernel(lib, O::name().full, key, kernel, site)
}

/// [`impl_kernel`] for the operator with marker `O`, for a kernel attached by path
/// (`op = aten::add`): its types are checked against `O`'s at compile time, each where it
/// is written ([`check_param`](super::check_param) and the others), and not again by this
/// bound, so that a mismatch is reported once, at the kernel's parameter.
pub fn impl_kernel_by_path<O, M, K>(
    lib: &Library,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<Registration, Error>
where
    O: Operator,
    K: TupleCall<O::Tensor, M>,
{
    impl_kernel(lib, O::name().full, key, kernel, site)
}

/// A kernel attached by path to the operator with marker `O`, on its way to registration:
/// the expansion calls `(&&ByPath::<O, _>::new(kernel)).register(lib, key, site)` with
/// [`RegisterByPath`] and [`RegisterUnfit`] in scope. Method resolution picks
/// [`RegisterByPath`] (which registers) for every kernel the dispatcher can store, and
/// [`RegisterUnfit`] for one it cannot (a parameter or return type that is no schema type),
/// which the compile-time checks report at that parameter: the registration then adds no
/// second error in terms of opgen's internal traits.
pub struct ByPath<O, K> {
    kernel: K,
    operator: PhantomData<O>,
}

impl<O, K> ByPath<O, K> {
    /// Wraps `kernel`.
    pub const fn new(kernel: K) -> ByPath<O, K> {
        ByPath {
            kernel,
            operator: PhantomData,
        }
    }
}

/// The registration of a kernel attached by path that the dispatcher can store.
pub trait RegisterByPath<M> {
    /// Registers the kernel at `key` ([`impl_kernel_by_path`]).
    fn register(&self, lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error>;
}

impl<O: Operator, K: TupleCall<O::Tensor, M> + Copy, M> RegisterByPath<M> for &ByPath<O, K> {
    fn register(&self, lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
        impl_kernel_by_path::<O, M, K>(lib, key, self.kernel, site)
    }
}

/// The registration of a kernel attached by path that the dispatcher cannot store, whose
/// compile-time checks failed: never built (a failed check stops the compilation before
/// code is generated), and an internal error at link time if it ever is. (Not a `const`
/// panic: an optimised build evaluates such a constant even where nothing calls it.)
pub trait RegisterUnfit {
    /// Never registers: the kernel does not fit its operator.
    fn register(&self, lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error>;
}

impl<O: Operator, K> RegisterUnfit for ByPath<O, K> {
    fn register(&self, _: &Library, _: DispatchKey, _: Site) -> Result<Registration, Error> {
        Err(Error::internal(format!(
            "a kernel attached by path to `{}` passed the compile-time checks but is no \
             kernel of its operator; please report it",
            O::name().full
        )))
    }
}

/// [`impl_kernel_of`] for a kernel the expansion writes, named `name` in dumps, warnings
/// and errors instead of by its Rust type: an adapter wrapped around the user's kernel (one
/// that returns `()` where the schema returns the arguments it writes; named by the
/// kernel's path), or a generated Autograd kernel (named as torchgen names its
/// `VariableType` function, `VariableType::mul_Tensor`).
///
/// # Errors
/// As [`Library::impl_`](crate::dispatch::Library::impl_).
pub fn impl_named_of<O, M, K>(
    lib: &Library,
    key: DispatchKey,
    kernel: K,
    name: &'static str,
    site: Site,
) -> Result<Registration, Error>
where
    O: Operator,
    K: TupleCall<O::Tensor, M, Args = O::Args, Value = O::Returns>,
{
    impl_guarded(lib, O::name().full, key, kernel, name, site)
}

/// Registers the generated `BackendSelect` kernel of the operator with marker `O` (a schema
/// with TensorOptions, but for `*_like` and `new_*`: torchgen's `RegisterBackendSelect.cpp`):
/// it computes the backend key of `dtype`, `layout` and `device`, joins the keys of the
/// tensor arguments below `BackendSelect`, and redispatches the operator it was called for.
///
/// The kernel is boxed and the same for every operator of a tensor type (the operator's
/// facts are data it holds): generated code instantiates nothing per factory, which keeps
/// the code a crate declaring the whole of ATen links small (a typed call boxes its
/// arguments at this key). Registering looks nothing up and parses nothing: the schema's
/// facts are read on the kernel's first call, so that linking thousands of factories stays
/// cheap.
pub fn backend_select<O: Operator>(lib: &Library, site: Site) -> Result<Registration, Error> {
    let name = O::name();
    register_backend_select::<O::Tensor>(lib, name, O::SCHEMA, site)
}

/// Registers the boxed `BackendSelect` kernel of the operator `name` with schema `schema`.
fn register_backend_select<T: Tensor>(
    lib: &Library,
    name: crate::dispatch::OperatorName,
    schema: &'static str,
    site: Site,
) -> Result<Registration, Error> {
    let operator = name.operator;
    let facts: OnceLock<Option<OptionsFacts>> = OnceLock::new();
    let kernel = boxed(
        move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<T>| {
            let Some(facts) = *facts.get_or_init(|| OptionsFacts::of(schema)) else {
                return Err(Error::internal(format!(
                    "a BackendSelect kernel for `{operator}`, whose schema has no TensorOptions"
                )));
            };
            let args = stack
                .len()
                .checked_sub(facts.arity)
                .and_then(|base| stack.get(base..));
            let Some(args) = args else {
                return Err(Error::internal(format!(
                    "the BackendSelect kernel of `{operator}` got fewer arguments than its schema's"
                )));
            };
            let dtype = match args.get(facts.start) {
                Some(IValue::ScalarType(d)) => Some(*d),
                _ => None,
            };
            let layout = match args.get(facts.start + 1) {
                Some(IValue::Layout(l)) => Some(*l),
                _ => None,
            };
            let device = match args.get(facts.start + 2) {
                Some(IValue::Device(d)) => Some(*d),
                _ => None,
            };
            let ks = backend_select_keys(operator, ks, facts.has_tensors, dtype, layout, device)?;
            op.redispatch_boxed(ks, stack)
        },
    );
    lib.impl_at(name.full, DispatchKey::BackendSelect, kernel, site)
}

/// What a `BackendSelect` kernel reads off its operator's schema.
#[derive(Clone, Copy)]
struct OptionsFacts {
    /// Where the TensorOptions group (`dtype`, `layout`, `device`, `pin_memory`) starts.
    start: usize,
    /// Whether any argument is tensor-like (their keys join the options' backend).
    has_tensors: bool,
    /// How many arguments the schema has (the kernel's values at the top of the stack).
    arity: usize,
}

impl OptionsFacts {
    fn of(schema: &str) -> Option<OptionsFacts> {
        let schema = parse_schema(schema).ok()?;
        Some(OptionsFacts {
            start: schema.tensor_options_start()?,
            has_tensors: schema.arguments.iter().any(|a| a.ty.is_tensor_like()),
            arity: schema.arguments.len(),
        })
    }
}
