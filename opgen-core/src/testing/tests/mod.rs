//! OpCheck against kernels that are right and kernels with each kind of mistake.

mod autograd;
mod group;
mod views;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::dispatch::{
    Device, DeviceType, DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Layout,
    Registration, ScalarType, Tensor, TensorOptions,
};
use crate::testing::{Check, OpCheck};

/// A vector of `f64` on CPU or Meta, with a version counter.
#[derive(Clone, Debug)]
struct V(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    data: Mutex<Vec<f64>>,
    meta: bool,
    version: AtomicU64,
}

impl V {
    fn new(data: &[f64]) -> V {
        V::with(data.to_vec(), false)
    }
    fn with(data: Vec<f64>, meta: bool) -> V {
        V(Arc::new(Inner {
            data: Mutex::new(data),
            meta,
            version: AtomicU64::new(0),
        }))
    }
    fn data(&self) -> Vec<f64> {
        self.0.data.lock().map(|d| d.clone()).unwrap_or_default()
    }
    fn set(&self, data: Vec<f64>) {
        if let Ok(mut d) = self.0.data.lock() {
            *d = data;
        }
    }
}

impl Tensor for V {
    fn key_set(&self) -> DispatchKeySet {
        if self.0.meta {
            DispatchKey::Meta.into()
        } else {
            DispatchKey::CPU.into()
        }
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![self.data().len() as i64])
    }
    fn strides(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![1])
    }
    fn options(&self) -> Result<TensorOptions, Error> {
        let kind = if self.0.meta {
            DeviceType::Meta
        } else {
            DeviceType::CPU
        };
        Ok(TensorOptions::new()
            .dtype(ScalarType::Double)
            .layout(Layout::Strided)
            .device(Device { kind, index: None }))
    }
    fn empty(sizes: &[i64], _: Option<&[i64]>, options: &TensorOptions) -> Result<V, Error> {
        let n = sizes.iter().product::<i64>().max(0) as usize;
        Ok(V::with(vec![0.0; n], options.is_meta()))
    }
    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        let n = sizes.iter().product::<i64>().max(0) as usize;
        let mut data = self.data();
        data.resize(n, 0.0);
        self.set(data);
        Ok(())
    }
    fn copy_(&mut self, src: &V) -> Result<(), Error> {
        self.set(src.data());
        Ok(())
    }
    fn to_device(&self, device: Device) -> Result<V, Error> {
        Ok(V::with(self.data(), device.kind == DeviceType::Meta))
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.version.load(Ordering::Relaxed))
    }
    fn bump_version(&self) -> Result<(), Error> {
        self.0.version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn is_same(&self, other: &V) -> Result<bool, Error> {
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }
}

fn doubled(a: &V) -> Vec<f64> {
    a.data().iter().map(|x| 2.0 * x).collect()
}

/// `double`, `double_`, `double.out` with CPU kernels as given, and a Meta kernel for
/// `double` whose output has `meta_extra` more elements than the input (0: right).
fn library(
    d: &Dispatcher,
    inplace_bumps: bool,
    out_resizes: bool,
    meta_extra: usize,
) -> Vec<Registration> {
    let lib = d.library("t").unwrap();
    let mut regs = vec![
        lib.def("double(Tensor self) -> Tensor").unwrap(),
        lib.def("double_(Tensor(a!) self) -> Tensor(a!)").unwrap(),
        lib.def("double.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
            .unwrap(),
        lib.def("scale(Tensor self, Tensor other) -> Tensor")
            .unwrap(),
    ];
    regs.push(
        lib.impl_("double", DispatchKey::CPU, |a: &V| V::new(&doubled(a)))
            .unwrap(),
    );
    regs.push(
        lib.impl_("double", DispatchKey::Meta, move |a: &V| {
            V::with(vec![0.0; a.data().len() + meta_extra], true)
        })
        .unwrap(),
    );
    regs.push(
        lib.impl_(
            "double_",
            DispatchKey::CPU,
            move |a: &mut V| -> Result<V, Error> {
                a.set(doubled(a));
                if inplace_bumps {
                    a.bump_version()?;
                }
                Ok(a.clone())
            },
        )
        .unwrap(),
    );
    regs.push(
        lib.impl_(
            "double.out",
            DispatchKey::CPU,
            move |a: &V, out: &mut V| -> Result<V, Error> {
                let mut values = doubled(a);
                if !out_resizes {
                    values.truncate(out.data().len());
                }
                out.set(values);
                out.bump_version()?;
                Ok(out.clone())
            },
        )
        .unwrap(),
    );
    // Writes into `other` without declaring it.
    regs.push(
        lib.impl_(
            "scale",
            DispatchKey::CPU,
            |a: &V, b: &V| -> Result<V, Error> {
                b.set(vec![0.0]);
                b.bump_version()?;
                Ok(a.clone())
            },
        )
        .unwrap(),
    );
    regs
}

fn same(a: &V, b: &V) -> bool {
    a.data() == b.data()
}

#[test]
fn a_right_library_passes_every_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, true, 0);
    for (name, overload, args) in [
        ("t::double", "", vec![IValue::Tensor(V::new(&[1.0, 2.0]))]),
        ("t::double_", "", vec![IValue::Tensor(V::new(&[1.0, 2.0]))]),
        (
            "t::double",
            "out",
            vec![
                IValue::Tensor(V::new(&[1.0, 2.0])),
                IValue::Tensor(V::new(&[])),
            ],
        ),
    ] {
        let op = d.find(name, overload).unwrap();
        let input = args.clone();
        let report = OpCheck::new(&d, &op, args)
            .compare_with(same)
            .typed(|args| {
                let a = args[0].as_tensor().cloned().ok_or("no tensor")?;
                Ok(vec![IValue::Tensor(V::new(&doubled(&a)))])
            })
            .run()
            .unwrap_or_else(|e| panic!("{e}"));
        // Only `double` has a Meta kernel.
        let expected: &[Check] = if name == "t::double" && overload.is_empty() {
            &[Check::Schema, Check::Meta, Check::Typed, Check::Variants]
        } else {
            &[Check::Schema, Check::Typed, Check::Variants]
        };
        assert_eq!(report.passed, expected, "{name}.{overload}: {report:?}");
        // The sample inputs are never modified.
        assert_eq!(input[0].as_tensor().unwrap().data(), [1.0, 2.0]);
    }
    let op = d.find("t::double", "").unwrap();
    let report = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[3.0]))])
        .run()
        .unwrap();
    assert_eq!(report.passed, [Check::Schema, Check::Meta, Check::Variants]);
    assert_eq!(report.variants, ["t::double_", "t::double.out"]);
    assert_eq!(
        report.skipped,
        [
            (Check::Typed, "no typed call given".to_string()),
            (
                Check::Autograd,
                "not asked for (OpCheck::autograd)".to_string()
            )
        ]
    );
}

#[test]
fn a_write_without_a_version_bump_fails_the_schema_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, false, true, 0);
    let op = d.find("t::double_", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[1.0]))])
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Schema);
    assert_eq!(
        err.to_string(),
        "opcheck `t::double_` failed the schema check: argument `self` is written by the schema \
         (`Tensor(a!) self`) but its version counter did not change (the kernel, or an \
         ADInplaceOrView kernel, must bump it)"
    );
}

#[test]
fn an_undeclared_write_fails_the_schema_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, true, 0);
    let op = d.find("t::scale", "").unwrap();
    let err = OpCheck::new(
        &d,
        &op,
        vec![
            IValue::Tensor(V::new(&[1.0])),
            IValue::Tensor(V::new(&[2.0])),
        ],
    )
    .run()
    .unwrap_err();
    assert_eq!(
        err.message,
        "argument `other` is not marked written in the schema, but its version counter changed \
         from 0 to 1; mark it `Tensor(a!)` or do not write it"
    );
}

#[test]
fn a_wrong_meta_kernel_fails_the_meta_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, true, 3);
    let op = d.find("t::double", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[1.0, 2.0]))])
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Meta);
    assert_eq!(
        err.message,
        "output 0.0: Meta gives sizes [5] and dtype Double, the real kernel sizes [2] and dtype \
         Double"
    );
}

#[test]
fn an_out_kernel_that_does_not_resize_fails_the_variants_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, false, 0);
    let op = d.find("t::double", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[1.0, 2.0]))])
        .compare_with(same)
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Variants);
    assert_eq!(
        err.message,
        "output 0.0: `t::double.out` gives sizes [0] and dtype Double, `t::double` sizes [2] and \
         dtype Double"
    );
}

#[test]
fn a_typed_call_that_disagrees_fails_the_typed_check() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, true, 0);
    let op = d.find("t::double", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[1.0]))])
        .compare_with(same)
        .typed(Ok)
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Typed);
    assert_eq!(
        err.message,
        "output 0.0: `typed` and `boxed` give different values"
    );
}

#[test]
fn a_tensor_type_without_hooks_gets_an_error_not_a_panic() {
    #[derive(Clone)]
    struct Bare;
    impl Tensor for Bare {
        fn key_set(&self) -> DispatchKeySet {
            DispatchKey::CPU.into()
        }
    }
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("id(Tensor self) -> Tensor").unwrap(),
        lib.impl_("id", DispatchKey::CPU, |a: &Bare| a.clone())
            .unwrap(),
    ];
    let op = d.find("t::id", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(Bare)])
        .run()
        .unwrap_err();
    assert!(
        err.message.contains("does not implement `Tensor::sizes`"),
        "{err}"
    );
}

#[test]
fn a_meta_kernel_returning_real_tensors_fails_the_meta_check() {
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("id(Tensor self) -> Tensor").unwrap(),
        lib.impl_("id", DispatchKey::CPU, |a: &V| V::new(&a.data()))
            .unwrap(),
        lib.impl_("id", DispatchKey::Meta, |a: &V| V::new(&a.data()))
            .unwrap(),
    ];
    let op = d.find("t::id", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(V::new(&[1.0]))])
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Meta);
    assert_eq!(
        err.message,
        "output 0.0 of the call on Meta is not a Meta tensor"
    );
}

#[test]
fn a_factory_without_a_device_argument_skips_the_meta_check() {
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("seven() -> int").unwrap(),
        lib.impl_::<V, _>("seven", DispatchKey::CompositeExplicitAutograd, || 7i64)
            .unwrap(),
        lib.impl_::<V, _>("seven", DispatchKey::Meta, || 7i64)
            .unwrap(),
    ];
    let _include =
        crate::dispatch::IncludeDispatchKeyGuard::new(DispatchKeySet::from(DispatchKey::CPU));
    let op = d.find("t::seven", "").unwrap();
    let report = OpCheck::<V>::new(&d, &op, vec![]).run().unwrap();
    assert_eq!(
        report.skipped[0],
        (
            Check::Meta,
            "no tensor inputs and no `device` argument to ask for Meta".to_string()
        )
    );
}
