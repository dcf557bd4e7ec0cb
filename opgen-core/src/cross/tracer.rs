//! The tracer: a kernel at the `Tracer` key that records each call (operator, inputs,
//! outputs) in a thread-local [`Trace`], then runs the rest of the stack below the key.

use std::any::{Any, type_name};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;

use super::trace::{Trace, TraceNode, TraceValue, constant_text};
use super::{HookError, Installed, Scope, args_base, has_own_kernel, hook_error, schema_of};
use crate::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, ExcludeDispatchKeyGuard, IValue,
    IncludeDispatchKeyGuard, OperatorHandle, Registration, Stack, Tensor, boxed,
};
use crate::schema::{BaseType, Schema};

/// Registers the tracer's kernel at `Tracer` for every traceable operator of `dispatcher`
/// in `scope`; the other operators skip the key by the dispatcher's default fallthrough
/// fallback at `Tracer` (or by whatever fallback replaces it).
///
/// As torchgen's tracing kernels, operators without tensor-like returns or with a `Storage`
/// argument are not traced. In-place and out operators are recorded under their own names,
/// their outputs as new values (later uses of the written tensor refer to the new value).
///
/// The kernels record only while a trace is being recorded on the calling thread
/// ([`start_tracing`]), which adds `Tracer` to the thread's included keys: tensors need not
/// carry the key, and calls made when no trace is being recorded never reach the kernels.
/// A call that reaches one anyway (a tensor that carries `Tracer`) goes straight below it.
///
/// ```
/// use opgen_core::cross::{install_tracer, start_tracing};
/// # use opgen_core::dispatch::*;
/// # #[derive(Clone)] struct MyTensor(std::sync::Arc<()>);
/// # impl Tensor for MyTensor {
/// #     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
/// #     fn is_same(&self, other: &Self) -> Result<bool, Error> { Ok(std::sync::Arc::ptr_eq(&self.0, &other.0)) }
/// # }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let _def = lib.def("neg(Tensor self) -> Tensor")?;
/// let _cpu = lib.impl_("neg", DispatchKey::CPU, |_t: &MyTensor| MyTensor(Default::default()))?;
/// let _tracer = install_tracer::<MyTensor>(&d, "demo")?;
/// let neg = d.typed::<_, (&MyTensor,), MyTensor>("demo::neg", "")?;
///
/// let x = MyTensor(Default::default());
/// let tracing = start_tracing::<MyTensor>();
/// let y = neg.call(&x);
/// let _z = neg.call(&y);
/// let trace = tracing.finish();
/// assert_eq!(trace.to_string(), "graph(%0):\n  %1 = demo::neg(%0)\n  %2 = demo::neg(%1)\n");
/// # Ok::<(), Error>(())
/// ```
pub fn install_tracer<T: Tensor>(
    dispatcher: &Dispatcher,
    scope: impl Into<Scope>,
) -> Result<Installed, Error> {
    let mut installed = Installed::new(
        DispatchKey::Tracer.name(),
        dispatcher,
        scope.into(),
        Some(register::<T>),
    );
    installed.refresh()?;
    Ok(installed)
}

/// Whether torchgen would trace an operator of this schema.
fn is_traced(schema: &Schema) -> bool {
    schema.has_tensor_like_return()
        && !(schema.arguments.iter()).any(|a| a.ty.base() == Some(BaseType::Storage))
}

fn register<T: Tensor>(
    dispatcher: &Dispatcher,
    op: &OperatorHandle,
    _scope: &Scope,
) -> Result<Option<Registration>, Error> {
    let Some(schema) = op.schema() else {
        return Ok(None);
    };
    if !is_traced(&schema) || has_own_kernel(op, DispatchKey::Tracer) {
        return Ok(None);
    }
    let lib = dispatcher.impls(op.namespace());
    let name = op.to_string();
    lib.impl_(&name, DispatchKey::Tracer, boxed(trace_kernel::<T>))
        .map(Some)
}

fn trace_kernel<T: Tensor>(
    op: &OperatorHandle,
    ks: DispatchKeySet,
    stack: &mut Stack<T>,
) -> Result<(), Error> {
    let below = ks.below(DispatchKey::Tracer);
    if DEPTH.get() == 0 {
        return op.redispatch_boxed(below, stack);
    }
    let schema = schema_of(op)?;
    let base = args_base(op, schema.arguments.len(), stack)?;
    let inputs = with_state::<T, _>(|state| {
        (schema.arguments.iter().zip(&stack[base..]))
            .map(|(arg, value)| {
                let name = arg.kwarg_only.then(|| arg.name.to_string());
                Ok((name, state.record_input(value)?))
            })
            .collect::<Result<Vec<_>, Error>>()
    })?;
    {
        // Calls the kernels below make are not part of the trace (PyTorch pauses tracing).
        let _pause = ExcludeDispatchKeyGuard::new(DispatchKey::Tracer);
        op.redispatch_boxed(below, stack)?;
    }
    let returns = stack.get(base..).unwrap_or_default();
    with_state::<T, _>(|state| {
        let outputs = (returns.iter())
            .map(|value| state.record_output(value))
            .collect::<Result<Vec<_>, Error>>()?;
        state.trace.nodes.push(TraceNode {
            operator: op.to_string(),
            inputs,
            outputs,
        });
        Ok(())
    })
}

/// The state of one trace being recorded: the trace, and the latest number of each tensor
/// it has met (clones of the handles, compared with [`Tensor::is_same`]; they keep the
/// tensors alive until the trace ends, as PyTorch's tracer does).
struct State<T> {
    trace: Trace,
    values: Vec<(T, usize)>,
}

impl<T: Tensor> State<T> {
    fn find(&self, tensor: &T) -> Result<Option<usize>, Error> {
        for (i, (known, _)) in self.values.iter().enumerate().rev() {
            if known.is_same(tensor).map_err(hook_error("Tracer"))? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// The number of an input tensor; a tensor met for the first time is a trace input.
    fn number_input(&mut self, tensor: &T) -> Result<usize, Error> {
        if let Some(i) = self.find(tensor)? {
            return Ok(self.values[i].1);
        }
        let n = self.trace.new_value(tensor.sizes().ok());
        self.trace.inputs.push(n);
        self.values.push((tensor.clone(), n));
        Ok(n)
    }

    /// A new number for an output tensor, which later inputs refer to.
    fn number_output(&mut self, tensor: &T) -> Result<usize, Error> {
        let n = self.trace.new_value(tensor.sizes().ok());
        match self.find(tensor)? {
            Some(i) => self.values[i].1 = n,
            None => self.values.push((tensor.clone(), n)),
        }
        Ok(n)
    }

    fn record_input(&mut self, value: &IValue<T>) -> Result<TraceValue, Error> {
        self.record(value, Self::number_input)
    }

    fn record_output(&mut self, value: &IValue<T>) -> Result<TraceValue, Error> {
        self.record(value, Self::number_output)
    }

    fn record(
        &mut self,
        value: &IValue<T>,
        number: fn(&mut Self, &T) -> Result<usize, Error>,
    ) -> Result<TraceValue, Error> {
        Ok(match value {
            IValue::Tensor(t) => TraceValue::Tensor(number(self, t)?),
            IValue::None => TraceValue::None,
            IValue::TensorList(ts) => TraceValue::List(
                (ts.iter())
                    .map(|t| Ok(TraceValue::Tensor(number(self, t)?)))
                    .collect::<Result<_, Error>>()?,
            ),
            IValue::OptionalTensorList(ts) => TraceValue::List(
                (ts.iter())
                    .map(|t| match t {
                        Some(t) => Ok(TraceValue::Tensor(number(self, t)?)),
                        None => Ok(TraceValue::None),
                    })
                    .collect::<Result<_, Error>>()?,
            ),
            other => TraceValue::Constant(constant_text(other)),
        })
    }
}

thread_local! {
    /// The traces being recorded on this thread, innermost last (each a `State<T>`).
    static STATES: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
    /// How many traces are being recorded (the length of `STATES`, kept by the guards): the
    /// kernels' one check when none is.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` on the innermost trace, which must record tensors of type `T`.
fn with_state<T: Tensor, R>(f: impl FnOnce(&mut State<T>) -> Result<R, Error>) -> Result<R, Error> {
    let level = STATES
        .with_borrow(Vec::len)
        .checked_sub(1)
        .ok_or_else(no_trace)?;
    let mut taken = Taken::at(level)?;
    match taken.state::<T>() {
        Some(state) => f(state),
        None => Err(wrong_tensor_type::<T>()),
    }
}

/// The state of the trace at `level`, taken out of `STATES` while the tensor hooks run on it
/// (`is_same`, `sizes`), and put back when dropped, also when a hook panics: the trace then
/// records on, without the call that failed.
///
/// While it is out, its slot holds a placeholder, so that the other levels keep their
/// places, and tracing is paused (`Tracer` excluded): operators a hook calls are not
/// recorded, and cannot reach a tracer kernel that would find the state missing.
struct Taken {
    level: usize,
    state: Option<Box<dyn Any>>,
    _pause: ExcludeDispatchKeyGuard,
}

impl Taken {
    fn at(level: usize) -> Result<Taken, Error> {
        let placeholder: Box<dyn Any> = Box::new(());
        let state = STATES
            .with_borrow_mut(|states| {
                (states.get_mut(level)).map(|slot| std::mem::replace(slot, placeholder))
            })
            .ok_or_else(no_trace)?;
        Ok(Taken {
            level,
            state: Some(state),
            _pause: ExcludeDispatchKeyGuard::new(DispatchKey::Tracer),
        })
    }

    fn state<T: Tensor>(&mut self) -> Option<&mut State<T>> {
        self.state.as_mut()?.downcast_mut()
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        let Some(state) = self.state.take() else {
            return;
        };
        // A state whose trace ended meanwhile is dropped after the borrow ends: dropping
        // tensors runs the user's code, which must not meet a borrowed list.
        let _unplaced = STATES.with_borrow_mut(|states| match states.get_mut(self.level) {
            Some(slot) => {
                *slot = state;
                None
            }
            None => Some(state),
        });
    }
}

#[cold]
fn no_trace() -> Error {
    Error::internal("the tracer's kernel ran while no trace was being recorded")
}

#[cold]
fn wrong_tensor_type<T>() -> Error {
    Error::kernel(HookError {
        feature: "Tracer",
        source: Error::from(format!(
            "the trace being recorded holds another tensor type than `{}`; start it with \
             `start_tracing::<{}>()`",
            type_name::<T>(),
            type_name::<T>()
        )),
    })
}

/// Whether a trace is being recorded on this thread.
///
/// ```
/// # #[derive(Clone)] struct MyTensor;
/// # impl opgen_core::Tensor for MyTensor { fn key_set(&self) -> opgen_core::DispatchKeySet { Default::default() } }
/// use opgen_core::cross::{is_tracing, start_tracing};
/// assert!(!is_tracing());
/// let guard = start_tracing::<MyTensor>();
/// assert!(is_tracing());
/// drop(guard);
/// assert!(!is_tracing());
/// ```
pub fn is_tracing() -> bool {
    DEPTH.get() > 0
}

/// Starts recording a trace of the calls this thread makes with tensors of type `T`, until
/// the guard is finished or dropped. While it lives, `Tracer` is in the thread's included
/// keys, so every call reaches the tracer's kernels ([`install_tracer`]). Traces nest: a new
/// one records until it ends, then the enclosing one records again.
pub fn start_tracing<T: Tensor>() -> TracingGuard<T> {
    let level = STATES.with_borrow_mut(|states| {
        states.push(Box::new(State::<T> {
            trace: Trace::default(),
            values: Vec::new(),
        }));
        states.len() - 1
    });
    DEPTH.set(level + 1);
    TracingGuard {
        level,
        _include: IncludeDispatchKeyGuard::new(DispatchKey::Tracer),
        _tensor: PhantomData,
    }
}

/// A trace being recorded on this thread (see [`start_tracing`]). Dropping it discards the
/// trace; [`TracingGuard::finish`] returns it.
///
/// ```
/// # use std::sync::Arc;
/// # use opgen_core::cross::*;
/// # use opgen_core::dispatch::*;
/// # #[derive(Clone)] struct MyTensor(Arc<Vec<i64>>);
/// # impl Tensor for MyTensor {
/// #     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
/// #     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![self.0.len() as i64]) }
/// #     fn is_same(&self, other: &Self) -> Result<bool, Error> { Ok(Arc::ptr_eq(&self.0, &other.0)) }
/// # }
/// # let d = Dispatcher::new();
/// # let lib = d.library("demo")?;
/// # let _def = lib.def("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")?;
/// # let _cpu = lib.impl_("add", DispatchKey::CPU, |a: &MyTensor, _: &MyTensor, _: Scalar| MyTensor(Arc::new(a.0.to_vec())))?;
/// # let _tracer = install_tracer::<MyTensor>(&d, "demo")?;
/// # let add = d.typed::<_, (&MyTensor, &MyTensor, Scalar), MyTensor>("demo::add", "")?;
/// let (x, y) = (MyTensor(Arc::new(vec![1])), MyTensor(Arc::new(vec![2])));
/// let tracing = start_tracing::<MyTensor>();
/// tracing.input(&y)?; // `y` is %0, whatever the order of use
/// add.call(&x, &y, Scalar::Int(1));
/// assert_eq!(tracing.trace()?.nodes().len(), 1);
/// assert_eq!(
///     tracing.finish().to_string(),
///     "graph(%0 : [1], %1 : [1]):\n  %2 : [1] = demo::add(%1, %0, alpha=1)\n"
/// );
/// # Ok::<(), Error>(())
/// ```
#[must_use = "the trace is recorded only while the guard lives"]
pub struct TracingGuard<T: Tensor> {
    level: usize,
    _include: IncludeDispatchKeyGuard,
    _tensor: PhantomData<fn(T)>,
}

impl<T: Tensor> TracingGuard<T> {
    /// Numbers `tensor` as the next input of the trace (if the trace has not met it yet), so
    /// that inputs are numbered in the caller's order rather than by first use.
    pub fn input(&self, tensor: &T) -> Result<usize, Error> {
        self.with_own(|state| state.number_input(tensor))
    }

    /// The trace recorded so far.
    pub fn trace(&self) -> Result<Trace, Error> {
        self.with_own(|state| Ok(state.trace.clone()))
    }

    /// Stops recording and returns the trace.
    pub fn finish(self) -> Trace {
        let ended = end_traces(self.level);
        let state = ended.into_iter().next();
        (state.and_then(|s| s.downcast::<State<T>>().ok())).map_or_else(Trace::default, |s| s.trace)
    }

    fn with_own<R>(&self, f: impl FnOnce(&mut State<T>) -> Result<R, Error>) -> Result<R, Error> {
        let mut taken = Taken::at(self.level)?;
        match taken.state::<T>() {
            Some(state) => f(state),
            None => Err(no_trace()),
        }
    }
}

/// Removes the traces from `level` up (a trace, and those nested in it that are still
/// recording) and returns them, to be dropped after the list's borrow ends.
fn end_traces(level: usize) -> Vec<Box<dyn Any>> {
    STATES.with_borrow_mut(|states| {
        let ended = states.split_off(level.min(states.len()));
        DEPTH.set(states.len());
        ended
    })
}

impl<T: Tensor> Drop for TracingGuard<T> {
    fn drop(&mut self) {
        drop(end_traces(self.level));
    }
}

impl<T: Tensor> fmt::Debug for TracingGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TracingGuard")
            .field("level", &self.level)
            .finish()
    }
}
