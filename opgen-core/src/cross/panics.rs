//! Tensor hooks that panic: after the panic is caught, every cross-cutting kernel and the
//! dispatcher's call path work as before (no state lost, no borrow or guard left behind).
//! [`PTensor`] and [`PanicIn`] serve the structured kernels' tests too.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    Device, DeviceGuard, DeviceType, DispatchKey as K, DispatchKeySet, Dispatcher, Error,
    ExcludeDispatchKeyGuard, IValue, IncludeDispatchKeyGuard, Library, Registration, ScalarType,
    Stack, Tensor, TensorOptions, TypedOperator, current_device, tls,
};

thread_local! {
    /// The hook that panics on this thread, if any (set by [`PanicIn`]).
    static PANIC_IN: Cell<Option<&'static str>> = const { Cell::new(None) };
}

thread_local! {
    /// What `sizes` runs on this thread besides answering (a hook that calls operators).
    static ON_SIZES: RefCell<Option<Box<dyn Fn()>>> = const { RefCell::new(None) };
}

/// While alive, the hook (or kernel) named `hook` panics when it runs on this thread.
pub(crate) struct PanicIn(Option<&'static str>);

impl PanicIn {
    pub(crate) fn new(hook: &'static str) -> PanicIn {
        PanicIn(PANIC_IN.replace(Some(hook)))
    }
}

impl Drop for PanicIn {
    fn drop(&mut self) {
        PANIC_IN.set(self.0);
    }
}

/// Panics if `name` is the hook [`PanicIn`] chose.
pub(crate) fn hook(name: &'static str) {
    if PANIC_IN.get() == Some(name) {
        panic!("the `{name}` hook panicked on purpose");
    }
}

/// Runs `f`, which must panic in the hook `name` (and not fail otherwise).
pub(crate) fn panics_in<R>(name: &'static str, f: impl FnOnce() -> R) {
    let _panic = PanicIn::new(name);
    let Err(payload) = catch_unwind(AssertUnwindSafe(f)) else {
        panic!("expected the `{name}` hook to panic");
    };
    let message = (payload.downcast_ref::<String>().cloned())
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert_eq!(message, format!("the `{name}` hook panicked on purpose"));
}

/// A tensor of `i64` values on the CPU or `PrivateUse1` whose every hook calls [`hook`]
/// with its name before it does anything.
#[derive(Clone)]
pub(crate) struct PTensor(Arc<Inner>);

pub(crate) struct Inner {
    id: usize,
    keys: DispatchKeySet,
    data: Mutex<Vec<i64>>,
    version: AtomicU64,
    view_of: Mutex<Option<usize>>,
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

impl PTensor {
    pub(crate) fn new(keys: &[K], data: &[i64]) -> PTensor {
        PTensor(Arc::new(Inner {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            keys: DispatchKeySet::from_keys(keys),
            data: Mutex::new(data.to_vec()),
            version: AtomicU64::new(0),
            view_of: Mutex::new(None),
        }))
    }

    pub(crate) fn cpu(data: &[i64]) -> PTensor {
        PTensor::new(&[K::CPU], data)
    }

    /// A tensor with `self`'s keys and other values.
    pub(crate) fn like(&self, data: Vec<i64>) -> PTensor {
        let keys: Vec<K> = self.0.keys.iter().collect();
        PTensor::new(&keys, &data)
    }

    pub(crate) fn data(&self) -> Vec<i64> {
        self.0.data.lock().expect("lock").clone()
    }

    pub(crate) fn set_data(&self, data: Vec<i64>) {
        *self.0.data.lock().expect("lock") = data;
    }

    fn device(&self) -> DeviceType {
        match self.0.keys.contains(K::PrivateUse1) {
            true => DeviceType::PrivateUse1,
            false => DeviceType::CPU,
        }
    }
}

impl std::fmt::Debug for PTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PTensor({:?})", self.data())
    }
}

impl Tensor for PTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0.keys
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        hook("sizes");
        ON_SIZES.with_borrow(|f| f.as_ref().map(|f| f()));
        Ok(vec![self.data().len() as i64])
    }
    fn options(&self) -> Result<TensorOptions, Error> {
        hook("options");
        let device = Device {
            kind: self.device(),
            index: None,
        };
        Ok(TensorOptions::new().dtype(ScalarType::Long).device(device))
    }
    fn empty(sizes: &[i64], _: Option<&[i64]>, options: &TensorOptions) -> Result<Self, Error> {
        hook("empty");
        let n = sizes.iter().product::<i64>().max(0) as usize;
        let backend = match options.device_or_default().kind {
            DeviceType::PrivateUse1 => K::PrivateUse1,
            _ => K::CPU,
        };
        Ok(PTensor::new(&[backend], &vec![0; n]))
    }
    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        hook("resize_");
        let n = sizes.iter().product::<i64>().max(0) as usize;
        self.0.data.lock().expect("lock").resize(n, 0);
        Ok(())
    }
    fn copy_(&mut self, src: &Self) -> Result<(), Error> {
        hook("copy_");
        self.set_data(src.data());
        Ok(())
    }
    fn to_device(&self, device: Device) -> Result<Self, Error> {
        hook("to_device");
        let backend = match device.kind {
            DeviceType::PrivateUse1 => K::PrivateUse1,
            _ => K::CPU,
        };
        let mut keys: Vec<K> = (self.0.keys.iter())
            .filter(|k| !matches!(k, K::CPU | K::PrivateUse1))
            .collect();
        keys.push(backend);
        Ok(PTensor::new(&keys, &self.data()))
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.version.load(Ordering::Relaxed))
    }
    fn bump_version(&self) -> Result<(), Error> {
        hook("bump_version");
        self.0.version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn set_view_of(&self, base: &Self) -> Result<(), Error> {
        hook("set_view_of");
        *self.0.view_of.lock().expect("lock") = Some(base.0.id);
        Ok(())
    }
    fn is_same(&self, other: &Self) -> Result<bool, Error> {
        hook("is_same");
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }
}

type Unary = TypedOperator<PTensor, (&'static PTensor,), PTensor>;
type Binary = TypedOperator<PTensor, (&'static PTensor, &'static PTensor), PTensor>;
type InPlace = TypedOperator<PTensor, (&'static mut PTensor, &'static PTensor), PTensor>;

/// `neg`, `add`, `add_` and `alias` with CPU kernels, which call [`hook`] with `"kernel"`.
struct Ops {
    d: Dispatcher,
    _lib: Library,
    _regs: Vec<Registration>,
    neg: Unary,
    add: Binary,
    add_: InPlace,
    alias: Unary,
}

fn ops() -> Ops {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let defs = [
        "neg(Tensor self) -> Tensor",
        "add(Tensor self, Tensor other) -> Tensor",
        "add_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
        "alias(Tensor(a) self) -> Tensor(a)",
    ];
    let mut regs: Vec<Registration> = defs.iter().map(|s| lib.def(s).expect("def")).collect();
    let sum = |a: &PTensor, b: &PTensor| -> Vec<i64> {
        a.data().iter().zip(b.data()).map(|(x, y)| x + y).collect()
    };
    let kernels = [
        lib.impl_("neg", K::CPU, |a: &PTensor| {
            hook("kernel");
            a.like(a.data().iter().map(|x| -x).collect())
        }),
        lib.impl_("add", K::CPU, move |a: &PTensor, b: &PTensor| {
            hook("kernel");
            a.like(sum(a, b))
        }),
        lib.impl_("add_", K::CPU, move |a: &mut PTensor, b: &PTensor| {
            hook("kernel");
            a.set_data(sum(a, b));
            a.clone()
        }),
        lib.impl_("alias", K::CPU, |a: &PTensor| {
            hook("kernel");
            a.like(a.data())
        }),
    ];
    regs.extend(kernels.into_iter().map(|r| r.expect("impl")));
    Ops {
        neg: d.typed::<_, (&PTensor,), _>("test::neg", "").expect("neg"),
        add: (d.typed::<_, (&PTensor, &PTensor), _>("test::add", "")).expect("add"),
        add_: (d.typed::<_, (&mut PTensor, &PTensor), _>("test::add_", "")).expect("add_"),
        alias: d
            .typed::<_, (&PTensor,), _>("test::alias", "")
            .expect("alias"),
        d,
        _lib: lib,
        _regs: regs,
    }
}

/// The thread's dispatch state that a call must leave as it found it.
fn thread_state() -> (DispatchKeySet, DispatchKeySet, Option<Device>, bool) {
    (
        tls::included(),
        tls::excluded(),
        current_device(),
        is_tracing(),
    )
}

#[test]
fn tracer_keeps_recording_after_a_hook_panics() {
    let ops = ops();
    let _tracer = install_tracer::<PTensor>(&ops.d, Scope::All).expect("install");
    let x = PTensor::cpu(&[1, 2]);
    let tracing = start_tracing::<PTensor>();
    let before = thread_state();
    let y = ops.neg.call(&x);
    // While an input is numbered, while an output is, and in the kernel below the tracer.
    panics_in("is_same", || ops.neg.try_call(&y));
    panics_in("sizes", || ops.neg.try_call(&x));
    panics_in("kernel", || ops.add.try_call(&x, &y));
    panics_in("is_same", || tracing.input(&y));
    assert_eq!(thread_state(), before);
    let z = ops.add.call(&y, &x);
    assert_eq!(tracing.input(&z).expect("numbered"), 2);
    // A trace nested in this one, ended by a panic: the enclosing trace records again.
    panics_in("kernel", || {
        let _inner = start_tracing::<PTensor>();
        ops.neg.try_call(&z)
    });
    assert_eq!(thread_state(), before);
    let _w = ops.neg.call(&z);
    assert_eq!(
        tracing.finish().to_string(),
        "graph(%0 : [2]):\n  \
         %1 : [2] = test::neg(%0)\n  \
         %2 : [2] = test::add(%1, %0)\n  \
         %3 : [2] = test::neg(%2)\n"
    );
    assert!(!is_tracing());
}

#[test]
fn nested_traces_survive_a_panic_in_the_inner_one() {
    let ops = ops();
    let _tracer = install_tracer::<PTensor>(&ops.d, Scope::All).expect("install");
    let x = PTensor::cpu(&[3]);
    let outer = start_tracing::<PTensor>();
    let y = ops.neg.call(&x);
    let inner = start_tracing::<PTensor>();
    let z = ops.neg.call(&y);
    panics_in("is_same", || ops.neg.try_call(&z));
    panics_in("sizes", || inner.input(&x));
    assert_eq!(
        inner.finish().to_string(),
        "graph(%0 : [1]):\n  %1 : [1] = test::neg(%0)\n"
    );
    let _w = ops.neg.call(&z);
    assert_eq!(
        outer.finish().to_string(),
        "graph(%0 : [1], %2 : [1]):\n  %1 : [1] = test::neg(%0)\n  %3 : [1] = test::neg(%2)\n"
    );
}

/// A hook that calls an operator while the tracer numbers a tensor: the call is not
/// recorded, and it succeeds (it does not meet the trace's state taken out).
#[test]
fn operators_called_by_hooks_are_not_traced() {
    let ops = Arc::new(ops());
    let _tracer = install_tracer::<PTensor>(&ops.d, Scope::All).expect("install");
    type Results = Vec<Result<Vec<i64>, String>>;
    let results: Arc<Mutex<Results>> = Arc::default();
    let (inner_ops, log) = (ops.clone(), results.clone());
    ON_SIZES.set(Some(Box::new(move || {
        let result = inner_ops.neg.try_call(&PTensor::cpu(&[5]));
        let result = result.map(|t| t.data()).map_err(|e| e.to_string());
        log.lock().expect("lock").push(result);
    })));
    let tracing = start_tracing::<PTensor>();
    let x = PTensor::cpu(&[1]);
    let _y = ops.neg.call(&x);
    let trace = tracing.finish();
    ON_SIZES.set(None);
    assert_eq!(*results.lock().expect("lock"), [Ok(vec![-5]), Ok(vec![-5])]);
    assert_eq!(
        trace.to_string(),
        "graph(%0 : [1]):\n  %1 : [1] = test::neg(%0)\n"
    );
}

#[test]
fn inplace_or_view_works_after_a_hook_panics() {
    let ops = ops();
    let _views = install_inplace_or_view::<PTensor>(&ops.d, Scope::All).expect("install");
    let keys = [K::CPU, K::ADInplaceOrView];
    let (mut x, y) = (PTensor::new(&keys, &[1, 2]), PTensor::new(&keys, &[10, 20]));
    let before = thread_state();
    panics_in("bump_version", || ops.add_.try_call(&mut x, &y));
    panics_in("kernel", || ops.add_.try_call(&mut x, &y));
    panics_in("set_view_of", || ops.alias.try_call(&x));
    assert_eq!(thread_state(), before);
    // The first call wrote before its hook panicked; the version counts the calls that
    // finished.
    assert_eq!((x.data(), x.version().ok()), (vec![11, 22], Some(0)));
    ops.add_.call(&mut x, &y);
    assert_eq!((x.data(), x.version().ok()), (vec![21, 42], Some(1)));
    let view = ops.alias.call(&x);
    assert_eq!(*view.0.view_of.lock().expect("lock"), Some(x.0.id));
}

#[test]
fn cpu_fallback_works_after_a_hook_panics() {
    let ops = ops();
    let _fallback =
        install_cpu_fallback::<PTensor>(&ops.d, K::PrivateUse1, Scope::All).expect("install");
    let pu1 = |data: &[i64]| PTensor::new(&[K::PrivateUse1], data);
    let (mut x, y) = (pu1(&[1, 2]), pu1(&[10, 20]));
    let before = thread_state();
    panics_in("options", || ops.add.try_call(&x, &y));
    panics_in("to_device", || ops.add.try_call(&x, &y));
    panics_in("kernel", || ops.add.try_call(&x, &y));
    panics_in("copy_", || ops.add_.try_call(&mut x, &y));
    assert_eq!(thread_state(), before);
    assert_eq!(x.data(), [1, 2], "the failed copy back left `x` as it was");
    let z = ops.add.call(&x, &y);
    assert_eq!(
        (z.device(), z.data()),
        (DeviceType::PrivateUse1, vec![11, 22])
    );
    ops.add_.call(&mut x, &y);
    assert_eq!(
        (x.device(), x.data()),
        (DeviceType::PrivateUse1, vec![11, 22])
    );
}

/// Thread-local key sets and the current device are as before after a kernel panics inside
/// guards and redispatch, and the dispatcher takes registrations and calls.
#[test]
fn the_call_path_keeps_no_state_from_a_panic() {
    let ops = ops();
    let lib = ops.d.impls("test");
    let neg = ops.neg.clone();
    let _autograd = lib
        .impl_(
            "neg",
            K::AutogradCPU,
            move |ks: DispatchKeySet, a: &PTensor| {
                let _exclude = ExcludeDispatchKeyGuard::new(K::ADInplaceOrView);
                let _include = IncludeDispatchKeyGuard::new(K::Tracer);
                let _device = DeviceGuard::new("cuda:1".parse().expect("device"));
                neg.try_redispatch(ks.below(K::AutogradCPU), a)
            },
        )
        .expect("impl");
    let x = PTensor::new(&[K::CPU, K::AutogradCPU], &[4]);
    let before = thread_state();
    panics_in("kernel", || ops.neg.try_call(&x));
    assert_eq!(thread_state(), before);
    assert_eq!(ops.neg.call(&x).data(), [-4]);

    // Registration, lookup and calls go on (a lock left poisoned would fail them).
    let _meta = lib
        .impl_("neg", K::Meta, |a: &PTensor| a.clone())
        .expect("impl");
    let neg = ops.d.find("test::neg", "").expect("find");
    let mut stack = Stack::from(vec![IValue::Tensor(PTensor::new(&[K::Meta], &[1]))]);
    neg.call_boxed(&mut stack).expect("call");
    assert_eq!(stack[0].as_tensor().map(PTensor::data), Some(vec![1]));
}
