//! Round trips of every value type between the typed and the boxed calling conventions.

use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    Complex, Device, Dimname, DispatchKey as K, Generator, IValue, Layout, MemoryFormat, QScheme,
    Scalar, ScalarType, Stack, Storage, Stream, boxed,
};

type Log = Arc<Mutex<Vec<String>>>;

/// Defines `name(Tensor self, <ty> x) -> ()`, with an unboxed CPU kernel and a boxed Tracer
/// kernel that both log `x`, and checks three routes: typed to unboxed, boxed to unboxed
/// (unboxing), typed to boxed (boxing). The first two must log the same Rust value, the
/// third the expected `IValue`.
macro_rules! probe {
    ($d:ident, $lib:ident, $log:ident; $name:literal, $ty:literal, $rust:ty, $value:expr, $ivalue:expr) => {{
        let _def = $lib
            .def(&format!("{}(Tensor self, {} x) -> ()", $name, $ty))
            .unwrap();
        let log = $log.clone();
        let _cpu = $lib
            .impl_($name, K::CPU, move |_: &TestTensor, x: $rust| {
                log.lock().unwrap().push(format!("{x:?}"))
            })
            .unwrap();
        let log = $log.clone();
        let _tracer = $lib
            .impl_(
                $name,
                K::Tracer,
                boxed(move |_, _, stack: &mut Stack<TestTensor>| {
                    let x = stack.pop();
                    stack.pop();
                    log.lock().unwrap().push(format!("{x:?}"));
                    Ok(())
                }),
            )
            .unwrap();
        let op = $d
            .typed::<_, (&TestTensor, $rust), ()>(concat!("test::", $name), "")
            .unwrap();
        op.call(&TestTensor::cpu(0), $value);
        let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(0)), $ivalue]);
        op.handle().call_boxed(&mut stack).unwrap();
        assert!(stack.is_empty(), "{}", $ty);
        op.call(&TestTensor::new(&[K::CPU, K::Tracer], 0), $value);
        let logged = std::mem::take(&mut *$log.lock().unwrap());
        assert_eq!(logged.len(), 3, "{}", $ty);
        assert_eq!(logged[0], logged[1], "{}", $ty);
        assert_eq!(
            logged[2],
            format!("{:?}", Some::<IValue<TestTensor>>($ivalue)),
            "{}",
            $ty
        );
    }};
}

#[test]
fn every_argument_type_round_trips() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let log: Log = Arc::default();
    let t = TestTensor::cpu(4);
    let g = Generator::new(7u32);
    let s = Storage::new(vec![1u8]);
    let device: Device = "cuda:1".parse().unwrap();
    let stream = Stream { device, id: 3 };
    probe!(d, lib, log; "int", "int", i64, 5, IValue::Int(5));
    probe!(d, lib, log; "symint", "SymInt", i64, -3, IValue::Int(-3));
    probe!(d, lib, log; "int_opt", "int?", Option<i64>, Some(2), IValue::Int(2));
    probe!(d, lib, log; "int_none", "SymInt?", Option<i64>, None, IValue::None);
    probe!(d, lib, log; "int_list", "int[]", &[i64], &[1, 2][..], IValue::IntList(Arc::new(vec![1, 2])));
    probe!(d, lib, log; "symint_2", "SymInt[2]", &[i64], &[3, 4][..], IValue::IntList(Arc::new(vec![3, 4])));
    probe!(d, lib, log; "int_list_opt", "int[1]?", Option<&[i64]>, Some(&[7][..]), IValue::IntList(Arc::new(vec![7])));
    probe!(d, lib, log; "float", "float", f64, 1.5, IValue::Float(1.5));
    probe!(d, lib, log; "float_opt", "float?", Option<f64>, None, IValue::None);
    probe!(d, lib, log; "float_list", "float[]", &[f64], &[0.5][..], IValue::FloatList(Arc::new(vec![0.5])));
    probe!(d, lib, log; "float_list_opt", "float[]?", Option<&[f64]>, Some(&[1.0][..]), IValue::FloatList(Arc::new(vec![1.0])));
    probe!(d, lib, log; "bool", "bool", bool, true, IValue::Bool(true));
    probe!(d, lib, log; "symbool", "SymBool", bool, false, IValue::Bool(false));
    probe!(d, lib, log; "bool_opt", "bool?", Option<bool>, Some(false), IValue::Bool(false));
    probe!(d, lib, log; "bool_3", "bool[3]", [bool; 3], [true, false, true], IValue::BoolList(Arc::new(vec![true, false, true])));
    probe!(d, lib, log; "str", "str", &str, "hi", IValue::from("hi"));
    probe!(d, lib, log; "str_opt", "str?", Option<&str>, Some("x"), IValue::from("x"));
    probe!(d, lib, log; "scalar", "Scalar", Scalar, Scalar::Float(2.5), IValue::Float(2.5));
    probe!(d, lib, log; "scalar_opt", "Scalar?", Option<Scalar>, Some(Scalar::Bool(true)), IValue::Bool(true));
    probe!(d, lib, log; "scalar_list", "Scalar[]", &[Scalar], &[Scalar::Int(1)][..], IValue::ScalarList(Arc::new(vec![Scalar::Int(1)])));
    probe!(d, lib, log; "dtype", "ScalarType", ScalarType, ScalarType::Half, IValue::ScalarType(ScalarType::Half));
    probe!(d, lib, log; "dtype_opt", "ScalarType?", Option<ScalarType>, Some(ScalarType::Long), IValue::ScalarType(ScalarType::Long));
    probe!(d, lib, log; "layout", "Layout?", Option<Layout>, Some(Layout::Strided), IValue::Layout(Layout::Strided));
    probe!(d, lib, log; "device", "Device", Device, device, IValue::Device(device));
    probe!(d, lib, log; "device_opt", "Device?", Option<Device>, Some(Device::CPU), IValue::Device(Device::CPU));
    probe!(d, lib, log; "device_index", "DeviceIndex", i8, 3, IValue::Int(3));
    probe!(d, lib, log; "memory_format", "MemoryFormat?", Option<MemoryFormat>, Some(MemoryFormat::ChannelsLast),
        IValue::MemoryFormat(MemoryFormat::ChannelsLast));
    probe!(d, lib, log; "qscheme", "QScheme", QScheme, QScheme::PerTensorAffine, IValue::QScheme(QScheme::PerTensorAffine));
    probe!(d, lib, log; "generator", "Generator?", Option<Generator>, Some(g.clone()), IValue::Generator(g.clone()));
    probe!(d, lib, log; "storage", "Storage", Storage, s.clone(), IValue::Storage(s.clone()));
    probe!(d, lib, log; "stream", "Stream", Stream, stream, IValue::Stream(Arc::new(stream)));
    probe!(d, lib, log; "tensor", "Tensor", &TestTensor, &t, IValue::Tensor(t.clone()));
    probe!(d, lib, log; "tensor_opt", "Tensor?", Option<&TestTensor>, Some(&t), IValue::Tensor(t.clone()));
    probe!(d, lib, log; "tensor_list", "Tensor[]", &[TestTensor], &[t.clone()][..], IValue::TensorList(Arc::new(vec![t.clone()])));
    probe!(d, lib, log; "tensor_opt_list", "Tensor?[]", &[Option<TestTensor>], &[None, Some(t.clone())][..],
        IValue::OptionalTensorList(Arc::new(vec![None, Some(t.clone())])));
    probe!(d, lib, log; "tensor_mut", "Tensor(a!)", &mut TestTensor, &mut t.clone(), IValue::Tensor(t.clone()));
    probe!(d, lib, log; "tensor_mut_opt", "Tensor(a!)?", Option<&mut TestTensor>, None, IValue::None);
    probe!(d, lib, log; "tensor_mut_list", "Tensor(a!)[]", &mut [TestTensor], &mut [t.clone()][..],
        IValue::TensorList(Arc::new(vec![t.clone()])));
}

/// Defines `name(Tensor self, <arg> x) -> <ret>` echoing `x`, and checks the result of
/// typed to unboxed, boxed to unboxed, and typed to boxed calls.
macro_rules! echo {
    ($d:ident, $lib:ident; $name:literal, $arg:literal -> $ret:literal, $arg_rust:ty => $ret_rust:ty,
     |$x:ident| $body:expr, $value:expr, $expected:expr, $ivalue:expr) => {{
        let _def = $lib
            .def(&format!("{}(Tensor self, {} x) -> {}", $name, $arg, $ret))
            .unwrap();
        let _cpu = $lib
            .impl_(
                $name,
                K::CPU,
                |_: &TestTensor, $x: $arg_rust| -> $ret_rust { $body },
            )
            .unwrap();
        let _tracer = $lib
            .impl_(
                $name,
                K::Tracer,
                boxed(|_, _, stack: &mut Stack<TestTensor>| {
                    let x = stack.pop().unwrap_or(IValue::None);
                    stack.pop();
                    stack.push(match x {
                        IValue::TensorList(v) if $ret == "(Tensor, Tensor)" => {
                            v.iter().for_each(|t| stack.push(IValue::Tensor(t.clone())));
                            return Ok(());
                        }
                        x => x,
                    });
                    Ok(())
                }),
            )
            .unwrap();
        let op = $d
            .typed::<_, (&TestTensor, $arg_rust), $ret_rust>(concat!("test::", $name), "")
            .unwrap();
        assert_eq!(op.call(&TestTensor::cpu(0), $value), $expected, "{}", $ret);
        let mut stack = Stack::from(vec![
            IValue::Tensor(TestTensor::cpu(0)),
            IValue::from($ivalue),
        ]);
        op.handle().call_boxed(&mut stack).unwrap();
        let traced = TestTensor::new(&[K::CPU, K::Tracer], 0);
        assert_eq!(op.call(&traced, $value), $expected, "{}", $ret);
        stack
    }};
}

#[test]
fn every_return_type_round_trips() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let t = TestTensor::cpu(3);
    let one = |s: Stack<TestTensor>| s.into_vec();
    let ret = echo!(d, lib; "int", "int" -> "int", i64 => i64, |x| x, 4, 4, IValue::Int(4));
    assert_eq!(one(ret), [IValue::Int(4)]);
    let ret =
        echo!(d, lib; "symint", "SymInt" -> "SymInt", i64 => i64, |x| x, -4, -4, IValue::Int(-4));
    assert_eq!(one(ret), [IValue::Int(-4)]);
    let ret = echo!(d, lib; "float", "float" -> "float", f64 => f64, |x| x, 0.25, 0.25, IValue::Float(0.25));
    assert_eq!(one(ret), [IValue::Float(0.25)]);
    let ret = echo!(d, lib; "bool", "bool" -> "SymBool", bool => bool, |x| x, true, true, IValue::Bool(true));
    assert_eq!(one(ret), [IValue::Bool(true)]);
    let ret = echo!(d, lib; "scalar", "Scalar" -> "Scalar", Scalar => Scalar, |x| x, Scalar::Int(2), Scalar::Int(2),
        IValue::Complex(Arc::new(Complex { re: 1.0, im: 2.0 })));
    assert_eq!(
        one(ret),
        [IValue::Complex(Arc::new(Complex { re: 1.0, im: 2.0 }))]
    );
    let ret = echo!(d, lib; "dtype", "ScalarType" -> "ScalarType", ScalarType => ScalarType, |x| x, ScalarType::Bool,
        ScalarType::Bool, IValue::ScalarType(ScalarType::Int));
    assert_eq!(one(ret), [IValue::ScalarType(ScalarType::Int)]);
    let ret = echo!(d, lib; "qscheme", "QScheme" -> "QScheme", QScheme => QScheme, |x| x, QScheme::PerChannelAffine,
        QScheme::PerChannelAffine, IValue::QScheme(QScheme::PerChannelSymmetric));
    assert_eq!(one(ret), [IValue::QScheme(QScheme::PerChannelSymmetric)]);
    let ret = echo!(d, lib; "tensor", "Tensor" -> "Tensor", &TestTensor => TestTensor, |x| x.clone(), &t, t.clone(),
        IValue::Tensor(t.clone()));
    assert_eq!(one(ret), [IValue::Tensor(t.clone())]);
    let ret = echo!(d, lib; "tensor_opt", "Tensor?" -> "Tensor?", Option<&TestTensor> => Option<TestTensor>,
        |x| x.cloned(), None, None, IValue::Tensor(t.clone()));
    assert_eq!(one(ret), [IValue::Tensor(t.clone())]);
    let ret = echo!(d, lib; "tensor_list", "Tensor[]" -> "Tensor[]", &[TestTensor] => Vec<TestTensor>,
        |x| x.to_vec(), &[t.clone()][..], vec![t.clone()], IValue::TensorList(Arc::new(vec![])));
    assert_eq!(one(ret), [IValue::TensorList(Arc::new(vec![]))]);
    let pair = vec![t.clone(), TestTensor::cpu(5)];
    let ret = echo!(d, lib; "pair", "Tensor[]" -> "(Tensor, Tensor)", &[TestTensor] => (TestTensor, TestTensor),
        |x| (x[0].clone(), x[1].clone()), &pair[..], (pair[0].clone(), pair[1].clone()), IValue::TensorList(Arc::new(pair.clone())));
    assert_eq!(
        one(ret),
        [
            IValue::Tensor(pair[0].clone()),
            IValue::Tensor(pair[1].clone())
        ]
    );
}

#[test]
fn values_without_a_schema_type_pass_through_boxed_calls() {
    let (d, lib, _def) = setup("any(Tensor self, int x) -> int");
    let _cpu = lib.impl_(
        "any",
        K::CPU,
        boxed(|_, _, stack: &mut Stack<TestTensor>| {
            let x = stack.pop();
            stack.pop();
            stack.extend(x);
            Ok(())
        }),
    );
    let op = d.find("test::any", "").unwrap();
    let t = TestTensor::cpu(1);
    let cuda = TestTensor::new(&[K::CUDA], 1);
    for value in [
        IValue::Dimname(Dimname::new("batch")),
        IValue::Complex(Arc::new(Complex { re: 0.0, im: 1.0 })),
        IValue::Tuple(Arc::new(vec![IValue::Int(1), IValue::Tensor(t.clone())])),
    ] {
        let mut stack = Stack::from(vec![IValue::Tensor(t.clone()), value.clone()]);
        op.call_boxed(&mut stack).unwrap();
        assert_eq!(stack.into_vec(), [value]);
    }
    let tuple: IValue<TestTensor> =
        IValue::Tuple(Arc::new(vec![IValue::Tensor(cuda), IValue::None]));
    assert_eq!(tuple.key_set(), DispatchKeySet::from_key(K::CUDA));
    assert_eq!(IValue::<TestTensor>::from(Some(2i64)), IValue::Int(2));
    assert_eq!(IValue::<TestTensor>::from(None::<i64>), IValue::None);
}
