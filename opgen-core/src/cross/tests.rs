//! Tests of the cross-cutting kernels, with a tensor type that implements the hooks.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    Device, DeviceType, DispatchKey as K, DispatchKeySet, Dispatcher, Error, IValue, Library,
    Registration, Scalar, ScalarType, Stack, Tensor, TensorOptions,
};

/// A test tensor: `i64` values on the CPU or on `PrivateUse1`, shared by its handles.
#[derive(Clone)]
struct XTensor(Arc<Inner>);

struct Inner {
    id: usize,
    device: DeviceType,
    /// Keys besides the backend's (`ADInplaceOrView`).
    extra: DispatchKeySet,
    data: Mutex<Vec<i64>>,
    version: AtomicU64,
    /// The id of the tensor this one is a view of.
    view_of: Mutex<Option<usize>>,
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

impl XTensor {
    fn on(device: DeviceType, extra: &[K], data: &[i64]) -> XTensor {
        XTensor(Arc::new(Inner {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device,
            extra: DispatchKeySet::from_keys(extra),
            data: Mutex::new(data.to_vec()),
            version: AtomicU64::new(0),
            view_of: Mutex::new(None),
        }))
    }

    fn cpu(data: &[i64]) -> XTensor {
        XTensor::on(DeviceType::CPU, &[], data)
    }

    /// Like `self` (device and keys), with other values.
    fn like(&self, data: Vec<i64>) -> XTensor {
        let t = XTensor::on(self.0.device, &[], &data);
        XTensor(Arc::new(Inner {
            extra: self.0.extra,
            ..Arc::into_inner(t.0).expect("new tensor")
        }))
    }

    fn data(&self) -> Vec<i64> {
        self.0.data.lock().expect("lock").clone()
    }

    fn view_of(&self) -> Option<usize> {
        *self.0.view_of.lock().expect("lock")
    }

    fn device(&self) -> DeviceType {
        self.0.device
    }
}

impl std::fmt::Debug for XTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "XTensor({:?} {:?})", self.0.device, self.data())
    }
}

impl Tensor for XTensor {
    fn key_set(&self) -> DispatchKeySet {
        let backend = match self.0.device {
            DeviceType::PrivateUse1 => K::PrivateUse1,
            _ => K::CPU,
        };
        self.0.extra.add(backend)
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![self.0.data.lock().expect("lock").len() as i64])
    }
    fn options(&self) -> Result<TensorOptions, Error> {
        Ok(TensorOptions::new().dtype(ScalarType::Long).device(Device {
            kind: self.0.device,
            index: None,
        }))
    }
    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        let n = sizes.iter().product::<i64>().max(0) as usize;
        self.0.data.lock().expect("lock").resize(n, 0);
        Ok(())
    }
    fn copy_(&mut self, src: &Self) -> Result<(), Error> {
        let values = src.data();
        let mut data = self.0.data.lock().expect("lock");
        if data.len() != values.len() {
            return Err("copy_ between shapes that differ".into());
        }
        *data = values;
        Ok(())
    }
    fn to_device(&self, device: Device) -> Result<Self, Error> {
        if device.kind == self.0.device {
            return Ok(self.clone());
        }
        let t = XTensor::on(device.kind, &[], &self.data());
        Ok(XTensor(Arc::new(Inner {
            extra: self.0.extra,
            ..Arc::into_inner(t.0).expect("new tensor")
        })))
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.version.load(Ordering::Relaxed))
    }
    fn bump_version(&self) -> Result<(), Error> {
        self.0.version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn set_view_of(&self, base: &Self) -> Result<(), Error> {
        *self.0.view_of.lock().expect("lock") = Some(base.0.id);
        Ok(())
    }
    fn is_same(&self, other: &Self) -> Result<bool, Error> {
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }
}

/// A tensor type with no hooks.
#[derive(Clone, Debug)]
struct Bare(DispatchKeySet);

impl Tensor for Bare {
    fn key_set(&self) -> DispatchKeySet {
        self.0
    }
}

const SCHEMAS: [&str; 9] = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "neg(Tensor self) -> Tensor",
    "alias(Tensor(a) self) -> Tensor(a)",
    "unbind(Tensor(a -> *) self) -> Tensor(a)[]",
    "unbind_copy(Tensor self) -> Tensor[]",
    "numel(Tensor self) -> int",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
];

fn on_cpu(t: &XTensor) -> Result<(), Error> {
    match t.device() {
        DeviceType::CPU => Ok(()),
        other => Err(format!("a CPU kernel got a tensor on {other}").into()),
    }
}

fn add_values(a: &XTensor, b: &XTensor, alpha: &Scalar) -> Result<Vec<i64>, Error> {
    on_cpu(a)?;
    on_cpu(b)?;
    let alpha = alpha.to_f64() as i64;
    Ok((a.data().iter().zip(b.data()))
        .map(|(x, y)| x + alpha * y)
        .collect())
}

/// A dispatcher with the `test` operators and their CPU kernels.
fn setup() -> (Dispatcher, Library, Vec<Registration>) {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let mut regs: Vec<Registration> = SCHEMAS.iter().map(|s| lib.def(s).expect("def")).collect();
    let mut add = |r: Result<Registration, Error>| regs.push(r.expect("impl"));
    add(lib.impl_(
        "add.Tensor",
        K::CPU,
        |a: &XTensor, b: &XTensor, alpha: Scalar| Ok::<_, Error>(a.like(add_values(a, b, &alpha)?)),
    ));
    add(lib.impl_(
        "add_.Tensor",
        K::CPU,
        |a: &mut XTensor, b: &XTensor, alpha: Scalar| {
            let values = add_values(a, b, &alpha)?;
            *a.0.data.lock().expect("lock") = values;
            Ok::<_, Error>(a.clone())
        },
    ));
    add(lib.impl_(
        "add.out",
        K::CPU,
        |a: &XTensor, b: &XTensor, alpha: Scalar, out: &mut XTensor| {
            let values = add_values(a, b, &alpha)?;
            out.resize_(&[values.len() as i64])?;
            *out.0.data.lock().expect("lock") = values;
            Ok::<_, Error>(out.clone())
        },
    ));
    add(lib.impl_("neg", K::CPU, |a: &XTensor| {
        on_cpu(a)?;
        Ok::<_, Error>(a.like(a.data().iter().map(|x| -x).collect()))
    }));
    add(lib.impl_("alias", K::CPU, |a: &XTensor| a.like(a.data())));
    add(lib.impl_("unbind", K::CPU, |a: &XTensor| {
        a.data()
            .iter()
            .map(|x| a.like(vec![*x]))
            .collect::<Vec<_>>()
    }));
    add(lib.impl_("unbind_copy", K::CPU, |a: &XTensor| {
        a.data()
            .iter()
            .map(|x| a.like(vec![*x]))
            .collect::<Vec<_>>()
    }));
    add(lib.impl_("numel", K::CPU, |a: &XTensor| a.data().len() as i64));
    add(lib.impl_(
        "_foreach_add_.Scalar",
        K::CPU,
        |ts: &mut [XTensor], s: Scalar| {
            for t in ts {
                let mut data = t.0.data.lock().expect("lock");
                data.iter_mut().for_each(|x| *x += s.to_f64() as i64);
            }
        },
    ));
    (d, lib, regs)
}

/// Calls `op` boxed with `args` (defaults filled) and returns the stack.
fn call(
    d: &Dispatcher,
    op: &str,
    args: Vec<IValue<XTensor>>,
) -> Result<Vec<IValue<XTensor>>, Error> {
    let (name, overload) = op.split_once('.').unwrap_or((op, ""));
    let op = d.find(&format!("test::{name}"), overload)?;
    let mut stack = Stack::from(args);
    op.fill_defaults(&mut stack)?;
    op.call_boxed(&mut stack)?;
    Ok(stack.into_vec())
}

fn tensor(values: &[IValue<XTensor>], i: usize) -> XTensor {
    values[i].as_tensor().expect("a tensor").clone()
}

fn message<V>(result: Result<V, Error>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

// ---- tracer ------------------------------------------------------------------------------

#[test]
fn tracer_records_a_short_program() {
    let (d, _lib, _regs) = setup();
    let tracer = install_tracer::<XTensor>(&d, Scope::All).expect("install");
    // `numel` returns no tensor and `_foreach_add_` returns nothing: not traced.
    assert_eq!(
        tracer.operators(),
        [
            "test::add.Tensor",
            "test::add.out",
            "test::add_.Tensor",
            "test::alias",
            "test::neg",
            "test::unbind",
            "test::unbind_copy"
        ]
    );
    let add = d
        .typed::<_, (&XTensor, &XTensor, Scalar), XTensor>("test::add", "Tensor")
        .expect("typed");
    let (x, y) = (XTensor::cpu(&[1, 2]), XTensor::cpu(&[10, 20]));
    let out = XTensor::cpu(&[]);

    let tracing = start_tracing::<XTensor>();
    assert!(is_tracing());
    let z = add.call(&x, &y, Scalar::Int(1));
    call(
        &d,
        "add_.Tensor",
        vec![IValue::Tensor(z.clone()), IValue::Tensor(y.clone())],
    )
    .expect("add_");
    let n = call(&d, "numel", vec![IValue::Tensor(z.clone())]).expect("numel");
    assert_eq!(n[0].as_int(), Some(2));
    let w = tensor(
        &call(&d, "neg", vec![IValue::Tensor(z.clone())]).expect("neg"),
        0,
    );
    call(
        &d,
        "add.out",
        vec![
            IValue::Tensor(w),
            IValue::Tensor(x.clone()),
            IValue::Int(2),
            IValue::Tensor(out.clone()),
        ],
    )
    .expect("add.out");
    call(&d, "unbind", vec![IValue::Tensor(out.clone())]).expect("unbind");
    let trace = tracing.finish();
    assert!(!is_tracing());

    assert_eq!(
        trace.to_string(),
        "graph(%0 : [2], %1 : [2], %5 : [0]):\n  \
         %2 : [2] = test::add.Tensor(%0, %1, alpha=1)\n  \
         %3 : [2] = test::add_.Tensor(%2, %1, alpha=1)\n  \
         %4 : [2] = test::neg(%3)\n  \
         %6 : [2] = test::add.out(%4, %0, alpha=2, out=%5)\n  \
         [%7 : [1], %8 : [1]] = test::unbind(%6)\n"
    );
    // `out` met first as an argument of `add.out` (empty then): an input of the trace.
    assert_eq!(trace.inputs(), [0, 1, 5]);
    assert_eq!(trace.shape(5), Some(&[0][..]));
    assert_eq!(out.data(), [-19, -38]);
    assert_eq!(trace.nodes().len(), 5);

    // Not tracing: nothing is recorded, and calls do not reach the kernels.
    assert_eq!(add.call(&x, &y, Scalar::Int(1)).data(), [11, 22]);
}

#[test]
fn trace_inputs_in_the_callers_order_and_nested_traces() {
    let (d, _lib, _regs) = setup();
    let _tracer = install_tracer::<XTensor>(&d, "test").expect("install");
    let (x, y) = (XTensor::cpu(&[1]), XTensor::cpu(&[2]));
    let outer = start_tracing::<XTensor>();
    assert_eq!(
        (outer.input(&y).ok(), outer.input(&x).ok()),
        (Some(0), Some(1))
    );
    call(&d, "neg", vec![IValue::Tensor(x.clone())]).expect("neg");
    {
        let inner = start_tracing::<XTensor>();
        call(&d, "neg", vec![IValue::Tensor(y.clone())]).expect("neg");
        assert_eq!(
            inner.finish().to_string(),
            "graph(%0 : [1]):\n  %1 : [1] = test::neg(%0)\n"
        );
    }
    call(&d, "neg", vec![IValue::Tensor(y.clone())]).expect("neg");
    assert_eq!(
        outer.trace().expect("trace").to_string(),
        "graph(%0 : [1], %1 : [1]):\n  %2 : [1] = test::neg(%1)\n  %3 : [1] = test::neg(%0)\n"
    );
    drop(outer);
    assert!(!is_tracing());
}

#[test]
fn tracer_without_shapes_and_hook_errors() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _def = lib.def("neg(Tensor self) -> Tensor").expect("def");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &Bare| t.clone())
        .expect("impl");
    let _tracer = install_tracer::<Bare>(&d, "test").expect("install");
    let neg = d
        .typed::<_, (&Bare,), Bare>("test::neg", "")
        .expect("typed");
    let t = Bare(K::CPU.into());
    let tracing = start_tracing::<Bare>();
    let err = neg.try_call(&t).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kernel for `test::neg` failed: the Tracer kernel: tensor type \
         `opgen_core::cross::tests::Bare` does not implement `Tensor::is_same`, which this \
         call needs; implement the hook in its `impl Tensor`"
    );
    drop(tracing);
    // A trace started for another tensor type is an error too, not a panic.
    let _tracing = start_tracing::<XTensor>();
    let err = message(neg.try_call(&t));
    assert!(err.contains("holds another tensor type than"), "{err}");
}

#[test]
fn tracer_key_on_a_tensor_without_a_trace_goes_below() {
    let (d, _lib, _regs) = setup();
    let _tracer = install_tracer::<XTensor>(&d, Scope::All).expect("install");
    let x = XTensor::on(DeviceType::CPU, &[K::Tracer], &[3]);
    let y = tensor(&call(&d, "neg", vec![IValue::Tensor(x)]).expect("neg"), 0);
    assert_eq!(y.data(), [-3]);
}

#[test]
fn refresh_covers_later_operators_and_drop_undoes() {
    let (d, lib, _regs) = setup();
    let mut tracer = install_tracer::<XTensor>(&d, "test").expect("install");
    let _def = lib.def("abs(Tensor self) -> Tensor").expect("def");
    let _cpu = lib
        .impl_("abs", K::CPU, |t: &XTensor| t.clone())
        .expect("impl");
    assert!(!tracer.operators().contains(&"test::abs".to_string()));
    assert_eq!(tracer.refresh().ok(), Some(1));
    assert_eq!(tracer.refresh().ok(), Some(0));
    let abs = d.find("test::abs", "").expect("abs");
    assert!(abs.keys_with_kernels().contains(&K::Tracer));
    drop(tracer);
    assert!(!abs.keys_with_kernels().contains(&K::Tracer));
    // Only the dispatcher's own default fallthroughs are left: the tracer added none.
    assert_eq!(d.fallbacks(), Dispatcher::new().fallbacks());
    // Another namespace is out of scope; a hand-written Tracer kernel is left alone.
    let other = d.library("other").expect("namespace");
    let _def = other.def("f(Tensor self) -> Tensor").expect("def");
    let _own = lib
        .impl_("neg", K::Tracer, |t: &XTensor| t.clone())
        .expect("impl");
    let tracer = install_tracer::<XTensor>(&d, "test").expect("install");
    assert!(
        !tracer
            .operators()
            .iter()
            .any(|o| o == "other::f" || o == "test::neg")
    );
}

// ---- ADInplaceOrView --------------------------------------------------------------------

fn with_view_key(data: &[i64]) -> XTensor {
    XTensor::on(DeviceType::CPU, &[K::ADInplaceOrView], data)
}

#[test]
fn versions_bump_exactly_for_written_arguments() {
    let (d, _lib, _regs) = setup();
    let views = install_inplace_or_view::<XTensor>(&d, "test").expect("install");
    assert_eq!(
        views.operators(),
        [
            "test::_foreach_add_.Scalar",
            "test::add.out",
            "test::add_.Tensor",
            "test::alias",
            "test::unbind"
        ]
    );
    let (x, y, out) = (
        with_view_key(&[1, 2]),
        with_view_key(&[3, 4]),
        with_view_key(&[]),
    );
    let versions = |ts: &[&XTensor]| {
        ts.iter()
            .map(|t| t.version().expect("version"))
            .collect::<Vec<_>>()
    };

    // Functional: no kernel, the fallthrough fallback skips the key.
    let z = tensor(
        &call(
            &d,
            "add.Tensor",
            vec![IValue::Tensor(x.clone()), IValue::Tensor(y.clone())],
        )
        .expect("add"),
        0,
    );
    assert_eq!((z.data(), versions(&[&x, &y])), (vec![4, 6], vec![0, 0]));
    // In-place through a typed handle: `self` only.
    let add_ = d
        .typed::<_, (&mut XTensor, &XTensor, Scalar), XTensor>("test::add_", "Tensor")
        .expect("typed");
    let mut x_mut = x.clone();
    let r = add_.call(&mut x_mut, &y, Scalar::Int(1));
    assert!(r.is_same(&x).expect("is_same"));
    assert_eq!((x.data(), versions(&[&x, &y])), (vec![4, 6], vec![1, 0]));
    // Out: the out argument only.
    call(
        &d,
        "add.out",
        vec![
            IValue::Tensor(x.clone()),
            IValue::Tensor(y.clone()),
            IValue::Int(1),
            IValue::Tensor(out.clone()),
        ],
    )
    .expect("add.out");
    assert_eq!(
        (out.data(), versions(&[&x, &y, &out])),
        (vec![7, 10], vec![1, 0, 1])
    );
    // A written list: each element once.
    let list = IValue::TensorList(Arc::new(vec![x.clone(), y.clone()]));
    call(&d, "_foreach_add_.Scalar", vec![list, IValue::Int(1)]).expect("foreach");
    assert_eq!(versions(&[&x, &y, &out]), [2, 1, 1]);
    // Reading does not bump.
    call(&d, "numel", vec![IValue::Tensor(x.clone())]).expect("numel");
    assert_eq!(versions(&[&x, &y, &out]), [2, 1, 1]);
}

#[test]
fn view_outputs_are_marked() {
    let (d, _lib, _regs) = setup();
    let _views = install_inplace_or_view::<XTensor>(&d, Scope::All).expect("install");
    let x = with_view_key(&[5, 6]);
    let a = tensor(
        &call(&d, "alias", vec![IValue::Tensor(x.clone())]).expect("alias"),
        0,
    );
    assert_eq!((a.view_of(), a.version().ok()), (Some(x.0.id), Some(0)));
    let parts = call(&d, "unbind", vec![IValue::Tensor(x.clone())]).expect("unbind");
    let IValue::TensorList(parts) = &parts[0] else {
        panic!("a list")
    };
    assert!(parts.iter().all(|p| p.view_of() == Some(x.0.id)));
    // Not views: a new tensor from a functional operator.
    let n = tensor(
        &call(&d, "neg", vec![IValue::Tensor(x.clone())]).expect("neg"),
        0,
    );
    assert_eq!((n.view_of(), x.view_of()), (None, None));
}

#[test]
fn decompositions_get_no_inplace_or_view_kernel() {
    // A CompositeImplicitAutograd operator with a view return may return a new tensor (as
    // `reshape` does when it cannot view): torchgen gives it no ADInplaceOrView kernel.
    let (d, lib, _regs) = setup();
    let _def = lib.def("flat(Tensor(a) self) -> Tensor(a)").expect("def");
    let _cia = lib
        .impl_("flat", K::CompositeImplicitAutograd, |a: &XTensor| {
            a.like(a.data())
        })
        .expect("impl");
    let views = install_inplace_or_view::<XTensor>(&d, "test").expect("install");
    assert!(!views.operators().iter().any(|o| o == "test::flat"));
    let x = with_view_key(&[1, 2]);
    let f = tensor(
        &call(&d, "flat", vec![IValue::Tensor(x.clone())]).expect("flat"),
        0,
    );
    assert_eq!(f.view_of(), None);
}

#[test]
fn inplace_or_view_hook_errors_name_operator_and_hook() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _def = lib
        .def("relu_(Tensor(a!) self) -> Tensor(a!)")
        .expect("def");
    let _cpu = lib
        .impl_("relu_", K::CPU, |t: &mut Bare| t.clone())
        .expect("impl");
    let _views = install_inplace_or_view::<Bare>(&d, "test").expect("install");
    let relu_ = d
        .typed::<_, (&mut Bare,), Bare>("test::relu_", "")
        .expect("typed");
    let mut t = Bare(DispatchKeySet::from_keys(&[K::CPU, K::ADInplaceOrView]));
    assert_eq!(
        message(relu_.try_call(&mut t)),
        "kernel for `test::relu_` failed: the ADInplaceOrView kernel: tensor type \
         `opgen_core::cross::tests::Bare` does not implement `Tensor::bump_version`, which \
         this call needs; implement the hook in its `impl Tensor`"
    );
    // The hook's own error is the source, so callers can match on it.
    let err = relu_.try_call(&mut t).unwrap_err();
    let source = std::error::Error::source(&err).and_then(std::error::Error::source);
    let hook = source
        .and_then(|s| s.downcast_ref::<Error>())
        .map(Error::kind);
    assert!(matches!(
        hook,
        Some(crate::dispatch::ErrorKind::Unsupported {
            hook: "bump_version",
            ..
        })
    ));
}

// ---- CPU fallback -----------------------------------------------------------------------

fn pu1(data: &[i64]) -> XTensor {
    XTensor::on(DeviceType::PrivateUse1, &[], data)
}

#[test]
fn cpu_fallback_runs_functional_operators_on_the_cpu() {
    let (d, _lib, _regs) = setup();
    let fallback =
        install_cpu_fallback::<XTensor>(&d, K::PrivateUse1, Scope::All).expect("install");
    assert_eq!(fallback.feature(), "PrivateUse1");
    let (x, y) = (pu1(&[1, 2]), pu1(&[10, 20]));
    let z = tensor(
        &call(
            &d,
            "add.Tensor",
            vec![
                IValue::Tensor(x.clone()),
                IValue::Tensor(y.clone()),
                IValue::Int(3),
            ],
        )
        .expect("add"),
        0,
    );
    assert_eq!(
        (z.device(), z.data()),
        (DeviceType::PrivateUse1, vec![31, 62])
    );
    let parts = call(&d, "unbind_copy", vec![IValue::Tensor(x.clone())]).expect("unbind_copy");
    let IValue::TensorList(parts) = &parts[0] else {
        panic!("a list")
    };
    assert!(parts.iter().all(|p| p.device() == DeviceType::PrivateUse1));
    // Non-tensor returns come back as they are.
    assert_eq!(
        call(&d, "numel", vec![IValue::Tensor(x)]).expect("numel")[0].as_int(),
        Some(2)
    );
}

#[test]
fn cpu_fallback_refuses_view_operators() {
    let (d, _lib, _regs) = setup();
    let _fallback =
        install_cpu_fallback::<XTensor>(&d, K::PrivateUse1, Scope::All).expect("install");
    let x = pu1(&[1, 2]);
    for op in ["alias", "unbind"] {
        let err = message(call(&d, op, vec![IValue::Tensor(x.clone())]));
        assert!(
            err.contains(&format!(
                "the CPU fallback of `PrivateUse1` cannot run `test::{op}`: it appears to be a view operator"
            )),
            "{err}"
        );
        assert!(
            err.contains("view operators need a kernel on the backend"),
            "{err}"
        );
    }
    // A kernel of its own at the key serves the view; the fallback is not involved.
    let lib = d.impls("test");
    let _view = lib
        .impl_("alias", K::PrivateUse1, |a: &XTensor| a.clone())
        .expect("impl");
    let r = tensor(
        &call(&d, "alias", vec![IValue::Tensor(x.clone())]).expect("alias"),
        0,
    );
    assert!(r.is_same(&x).expect("is_same"));
}

#[test]
fn cpu_fallback_copies_written_arguments_back() {
    let (d, _lib, _regs) = setup();
    let _fallback = install_cpu_fallback::<XTensor>(&d, K::PrivateUse1, "test").expect("install");
    let (x, y) = (pu1(&[1, 2]), pu1(&[10, 20]));
    // In-place: `self` is updated, and the return is the original handle.
    let r = call(
        &d,
        "add_.Tensor",
        vec![IValue::Tensor(x.clone()), IValue::Tensor(y.clone())],
    )
    .expect("add_");
    assert!(tensor(&r, 0).is_same(&x).expect("is_same"));
    assert_eq!(
        (x.device(), x.data(), y.data()),
        (DeviceType::PrivateUse1, vec![11, 22], vec![10, 20])
    );
    // Out, with an out argument of the wrong size: resized, then copied into.
    let out = pu1(&[0]);
    let r = call(
        &d,
        "add.out",
        vec![
            IValue::Tensor(x.clone()),
            IValue::Tensor(y.clone()),
            IValue::Int(1),
            IValue::Tensor(out.clone()),
        ],
    )
    .expect("out");
    assert!(tensor(&r, 0).is_same(&out).expect("is_same"));
    assert_eq!(
        (out.device(), out.data()),
        (DeviceType::PrivateUse1, vec![21, 42])
    );
    // A written list.
    let list = IValue::TensorList(Arc::new(vec![x.clone(), y.clone()]));
    call(&d, "_foreach_add_.Scalar", vec![list, IValue::Int(1)]).expect("foreach");
    assert_eq!((x.data(), y.data()), (vec![12, 23], vec![11, 21]));
}

#[test]
fn cpu_fallback_with_a_device_argument_and_errors() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _def = lib
        .def("full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor")
        .expect("def");
    let _cpu = lib
        .impl_(
            "full",
            K::CPU,
            |size: &[i64],
             fill: Scalar,
             _: Option<ScalarType>,
             _: Option<crate::dispatch::Layout>,
             device: Option<Device>,
             _: Option<bool>| {
                assert_eq!(device, Some(Device::CPU));
                XTensor::cpu(&vec![
                    fill.to_f64() as i64;
                    size.iter().product::<i64>() as usize
                ])
            },
        )
        .expect("impl");
    let _fallback = install_cpu_fallback::<XTensor>(&d, K::PrivateUse1, "test").expect("install");
    let full = d.find("test::full", "").expect("full");
    let pu1_device = Device {
        kind: DeviceType::PrivateUse1,
        index: Some(0),
    };
    let mut stack = Stack::from(vec![IValue::from(vec![2i64]), IValue::Int(7)]);
    full.fill_defaults(&mut stack).expect("defaults");
    stack[4] = IValue::Device(pu1_device);
    // A factory has no tensor argument: the device argument selects the key.
    let _include = crate::dispatch::IncludeDispatchKeyGuard::new(K::PrivateUse1);
    full.call_boxed(&mut stack).expect("full");
    let t = tensor(&stack, 0);
    assert_eq!(
        (t.device(), t.data()),
        (DeviceType::PrivateUse1, vec![7, 7])
    );

    // A second fallback at the key is an error; another namespace is not served.
    assert!(
        message(install_cpu_fallback::<XTensor>(
            &d,
            K::PrivateUse1,
            Scope::All
        ))
        .contains("fallback")
    );
    let other = d.library("other").expect("namespace");
    let _neg = other.def("neg(Tensor self) -> Tensor").expect("def");
    let mut stack = Stack::from(vec![IValue::Tensor(pu1(&[1]))]);
    assert!(
        message(
            d.find("other::neg", "")
                .expect("neg")
                .call_boxed(&mut stack)
        )
        .starts_with("Could not run 'other::neg' with arguments from the 'PrivateUse1' backend.")
    );
}

#[test]
fn cpu_fallback_hook_errors_name_operator_and_hook() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _def = lib.def("neg(Tensor self) -> Tensor").expect("def");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &Bare| t.clone())
        .expect("impl");
    let _fallback = install_cpu_fallback::<Bare>(&d, K::PrivateUse1, Scope::All).expect("install");
    let neg = d
        .typed::<_, (&Bare,), Bare>("test::neg", "")
        .expect("typed");
    assert_eq!(
        message(neg.try_call(&Bare(K::PrivateUse1.into()))),
        "kernel for `test::neg` failed: the CPU fallback kernel: tensor type \
         `opgen_core::cross::tests::Bare` does not implement `Tensor::options`, which this \
         call needs; implement the hook in its `impl Tensor`"
    );
}

#[test]
fn features_compose() {
    let (d, _lib, _regs) = setup();
    let _tracer = install_tracer::<XTensor>(&d, Scope::All).expect("tracer");
    let _views = install_inplace_or_view::<XTensor>(&d, Scope::All).expect("views");
    let _fallback =
        install_cpu_fallback::<XTensor>(&d, K::PrivateUse1, Scope::All).expect("fallback");
    let x = XTensor::on(DeviceType::PrivateUse1, &[K::ADInplaceOrView], &[1, 2]);
    let y = pu1(&[1, 1]);
    let tracing = start_tracing::<XTensor>();
    call(
        &d,
        "add_.Tensor",
        vec![IValue::Tensor(x.clone()), IValue::Tensor(y.clone())],
    )
    .expect("add_");
    let trace = tracing.finish();
    assert_eq!(
        trace.to_string(),
        "graph(%0 : [2], %1 : [2]):\n  %2 : [2] = test::add_.Tensor(%0, %1, alpha=1)\n"
    );
    assert_eq!(
        (x.data(), x.version().ok(), x.device()),
        (vec![2, 3], Some(1), DeviceType::PrivateUse1)
    );
}
