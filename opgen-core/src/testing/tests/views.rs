//! View semantics: views that share storage pass; copies, copy-on-write handles and
//! returned inputs fail, each with a message that says so.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::dispatch::{
    Device, DeviceType, DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Layout,
    Registration, ScalarType, Tensor, TensorOptions,
};
use crate::testing::{Check, OpCheck};

/// A vector of `f64` that views share: a storage, an offset and a length, and a version
/// counter shared by the views of one storage (as PyTorch's).
#[derive(Clone, Debug)]
struct S(Arc<Handle>);

#[derive(Debug)]
struct Handle {
    storage: Arc<Mutex<Vec<f64>>>,
    offset: usize,
    len: usize,
    version: Arc<AtomicU64>,
    meta: bool,
}

impl S {
    fn new(data: &[f64]) -> S {
        S::on(data, false)
    }

    /// A new tensor on the CPU or (`meta`) on Meta.
    fn on(data: &[f64], meta: bool) -> S {
        S(Arc::new(Handle {
            storage: Arc::new(Mutex::new(data.to_vec())),
            offset: 0,
            len: data.len(),
            version: Arc::new(AtomicU64::new(0)),
            meta,
        }))
    }

    /// `len` elements from `start`, sharing the storage.
    fn view(&self, start: usize, len: usize) -> S {
        S(Arc::new(Handle {
            storage: self.0.storage.clone(),
            offset: self.0.offset + start,
            len,
            version: self.0.version.clone(),
            meta: self.0.meta,
        }))
    }

    fn values(&self) -> Vec<f64> {
        let data = self.0.storage.lock().map(|d| d.clone()).unwrap_or_default();
        data[self.0.offset..self.0.offset + self.0.len].to_vec()
    }
}

impl Tensor for S {
    fn key_set(&self) -> DispatchKeySet {
        if self.0.meta {
            DispatchKey::Meta.into()
        } else {
            DispatchKey::CPU.into()
        }
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![self.0.len as i64])
    }
    fn strides(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![1])
    }
    fn options(&self) -> Result<TensorOptions, Error> {
        let device = if self.0.meta { META } else { Device::CPU };
        Ok(TensorOptions::new()
            .dtype(ScalarType::Double)
            .layout(Layout::Strided)
            .device(device))
    }
    fn empty(sizes: &[i64], _: Option<&[i64]>, options: &TensorOptions) -> Result<S, Error> {
        let n = sizes.iter().product::<i64>().max(0) as usize;
        Ok(S::on(&vec![0.0; n], options.is_meta()))
    }
    fn to_device(&self, device: Device) -> Result<S, Error> {
        Ok(S::on(&self.values(), device == META))
    }
    fn copy_(&mut self, src: &S) -> Result<(), Error> {
        let values = src.values();
        let mut data = self.0.storage.lock().map_err(|_| Error::from("poisoned"))?;
        data[self.0.offset..self.0.offset + self.0.len].copy_from_slice(&values);
        Ok(())
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.version.load(Ordering::Relaxed))
    }
    fn bump_version(&self) -> Result<(), Error> {
        self.0.version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn is_same(&self, other: &S) -> Result<bool, Error> {
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }
}

const META: Device = Device {
    kind: DeviceType::Meta,
    index: None,
};

fn same(a: &S, b: &S) -> bool {
    a.values() == b.values()
}

/// `narrow2(Tensor(a) self, int start, int length) -> Tensor(a)` with `kernel` at `key`.
fn narrow(d: &Dispatcher, key: DispatchKey, kernel: fn(&S, i64, i64) -> S) -> Vec<Registration> {
    let lib = d.library("t").unwrap();
    vec![
        lib.def("narrow2(Tensor(a) self, int start, int length) -> Tensor(a)")
            .unwrap(),
        lib.impl_("narrow2", key, kernel).unwrap(),
    ]
}

fn view_kernel(s: &S, start: i64, len: i64) -> S {
    s.view(start as usize, len as usize)
}

fn copy_kernel(s: &S, start: i64, len: i64) -> S {
    let (start, len) = (start as usize, len as usize);
    S::on(&s.values()[start..start + len], s.0.meta)
}

fn narrow_inputs() -> Vec<IValue<S>> {
    vec![
        IValue::Tensor(S::new(&[1.0, 2.0, 3.0, 4.0])),
        IValue::Int(1),
        IValue::Int(2),
    ]
}

#[test]
fn a_view_that_shares_storage_passes() {
    let d = Dispatcher::new();
    let _r = narrow(&d, DispatchKey::CPU, view_kernel);
    let op = d.find("t::narrow2", "").unwrap();
    let report = OpCheck::new(&d, &op, narrow_inputs())
        .compare_with(same)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.passed, [Check::Schema]);
    assert_eq!(report.unchecked, []);
}

#[test]
fn a_view_operator_returning_a_copy_fails_the_schema_check() {
    let d = Dispatcher::new();
    let _r = narrow(&d, DispatchKey::CPU, copy_kernel);
    let op = d.find("t::narrow2", "").unwrap();
    let err = OpCheck::new(&d, &op, narrow_inputs())
        .compare_with(same)
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Schema);
    assert_eq!(
        err.message,
        "return 0 is a view of `self` by the schema (`Tensor(a)`), but a write through it did \
         not change `self`: the kernel returned a tensor with its own storage (a copy, or a \
         handle that copies on write); return a view that shares `self`'s storage"
    );
}

#[test]
fn a_view_that_does_not_see_writes_to_its_base_fails() {
    // A handle that shares the base's storage until the base is written: the base's
    // `copy_` below replaces its storage (copy-on-write on the base side).
    #[derive(Clone, Debug)]
    struct Cow(Arc<Mutex<Arc<Vec<f64>>>>);
    impl Cow {
        fn new(v: &[f64]) -> Cow {
            Cow(Arc::new(Mutex::new(Arc::new(v.to_vec()))))
        }
        fn values(&self) -> Vec<f64> {
            self.0.lock().map(|d| d.to_vec()).unwrap_or_default()
        }
    }
    impl Tensor for Cow {
        fn key_set(&self) -> DispatchKeySet {
            DispatchKey::CPU.into()
        }
        fn sizes(&self) -> Result<Vec<i64>, Error> {
            Ok(vec![self.values().len() as i64])
        }
        fn strides(&self) -> Result<Vec<i64>, Error> {
            Ok(vec![1])
        }
        fn options(&self) -> Result<TensorOptions, Error> {
            Ok(TensorOptions::new()
                .dtype(ScalarType::Double)
                .device(Device::CPU))
        }
        fn empty(sizes: &[i64], _: Option<&[i64]>, _: &TensorOptions) -> Result<Cow, Error> {
            Ok(Cow::new(&vec![
                0.0;
                sizes.iter().product::<i64>().max(0) as usize
            ]))
        }
        /// Writes in place when the data is its own, else gives the handle a new buffer.
        fn copy_(&mut self, src: &Cow) -> Result<(), Error> {
            let values = src.values();
            let mut data = self.0.lock().map_err(|_| Error::from("poisoned"))?;
            *Arc::make_mut(&mut data) = values;
            Ok(())
        }
        fn version(&self) -> Result<u64, Error> {
            Ok(0)
        }
        fn is_same(&self, other: &Cow) -> Result<bool, Error> {
            Ok(Arc::ptr_eq(&self.0, &other.0))
        }
    }
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    // The "view" shares the buffer: a write through it lands in the buffer both hold.
    let _r = [
        lib.def("alias2(Tensor(a) self) -> Tensor(a)").unwrap(),
        lib.impl_("alias2", DispatchKey::CPU, |s: &Cow| {
            let data = s.0.lock().map(|d| d.clone()).unwrap_or_default();
            Cow(Arc::new(Mutex::new(data)))
        })
        .unwrap(),
    ];
    let op = d.find("t::alias2", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(Cow::new(&[1.0, 2.0]))])
        .compare_with(|a: &Cow, b: &Cow| a.values() == b.values())
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Schema);
    assert!(
        err.message
            .contains("but a write through it did not change `self`"),
        "{}",
        err.message
    );
}

#[test]
fn every_element_of_a_list_of_views_is_checked() {
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("halves(Tensor(a) self) -> Tensor(a)[]").unwrap(),
        // The second half is a copy.
        lib.impl_("halves", DispatchKey::CPU, |s: &S| -> Vec<S> {
            let n = s.0.len / 2;
            vec![s.view(0, n), S::new(&s.values()[n..])]
        })
        .unwrap(),
    ];
    let op = d.find("t::halves", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(S::new(&[1.0, 2.0, 3.0, 4.0]))])
        .compare_with(same)
        .run()
        .unwrap_err();
    assert!(
        err.message
            .starts_with("return 0[1] is a view of `self` by the schema (`Tensor(a)`)"),
        "{}",
        err.message
    );
}

#[test]
fn views_are_listed_as_unchecked_without_a_comparison() {
    let d = Dispatcher::new();
    let _r = narrow(&d, DispatchKey::CPU, copy_kernel);
    let op = d.find("t::narrow2", "").unwrap();
    let report = OpCheck::new(&d, &op, narrow_inputs()).run().unwrap();
    assert_eq!(
        report.unchecked,
        [(
            Check::Schema,
            "the views of `t::narrow2`: seeing that a write through a view reaches its base \
             needs `compare_with`"
                .to_string()
        )]
    );
}

#[test]
fn a_composite_implicit_kernel_may_return_a_copy() {
    let d = Dispatcher::new();
    let _r = narrow(&d, DispatchKey::CompositeImplicitAutograd, copy_kernel);
    let op = d.find("t::narrow2", "").unwrap();
    let report = OpCheck::new(&d, &op, narrow_inputs())
        .compare_with(same)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.passed, [Check::Schema, Check::Meta]);
    assert_eq!(report.unchecked.len(), 1);
    assert!(
        report.unchecked[0]
            .1
            .contains("CompositeImplicitAutograd kernel may return a copy"),
        "{:?}",
        report.unchecked
    );
}

#[test]
fn values_that_cannot_show_a_write_are_listed_not_failed() {
    let d = Dispatcher::new();
    let _r = narrow(&d, DispatchKey::CPU, copy_kernel);
    let op = d.find("t::narrow2", "").unwrap();
    // All zeros, as an empty tensor of this type: no write can show.
    let inputs = vec![
        IValue::Tensor(S::new(&[0.0; 4])),
        IValue::Int(0),
        IValue::Int(2),
    ];
    let report = OpCheck::new(&d, &op, inputs)
        .compare_with(same)
        .run()
        .unwrap();
    assert!(
        report.unchecked[0]
            .1
            .starts_with("return 0 of `t::narrow2`: every tensor at hand"),
        "{:?}",
        report.unchecked
    );
}

#[test]
fn an_operator_that_returns_its_input_fails_with_pytorchs_words() {
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("ident(Tensor self) -> Tensor").unwrap(),
        lib.impl_("ident", DispatchKey::CPU, |s: &S| s.clone())
            .unwrap(),
    ];
    let op = d.find("t::ident", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(S::new(&[1.0]))])
        .run()
        .unwrap_err();
    assert_eq!(err.check, Check::Schema);
    assert!(
        err.message.starts_with(
            "Dispatcher operators below autograd are not allowed to directly return inputs: \
             return 0 is the argument `self` itself"
        ),
        "{}",
        err.message
    );
}

#[test]
fn a_missing_hook_is_named_in_the_failure() {
    #[derive(Clone)]
    struct NoCopy;
    impl Tensor for NoCopy {
        fn key_set(&self) -> DispatchKeySet {
            DispatchKey::CPU.into()
        }
        fn sizes(&self) -> Result<Vec<i64>, Error> {
            Ok(vec![1])
        }
        fn strides(&self) -> Result<Vec<i64>, Error> {
            Ok(vec![1])
        }
        fn options(&self) -> Result<TensorOptions, Error> {
            Ok(TensorOptions::new())
        }
        fn empty(_: &[i64], _: Option<&[i64]>, _: &TensorOptions) -> Result<NoCopy, Error> {
            Ok(NoCopy)
        }
    }
    let d = Dispatcher::new();
    let lib = d.library("t").unwrap();
    let _r = [
        lib.def("alias2(Tensor(a) self) -> Tensor(a)").unwrap(),
        lib.impl_("alias2", DispatchKey::CPU, |s: &NoCopy| s.clone())
            .unwrap(),
    ];
    let op = d.find("t::alias2", "").unwrap();
    let err = OpCheck::new(&d, &op, vec![IValue::Tensor(NoCopy)])
        .compare_with(|_: &NoCopy, _: &NoCopy| true)
        .run()
        .unwrap_err();
    assert!(
        err.message.contains("does not implement `Tensor::copy_`"),
        "{}",
        err.message
    );
}
