//! Round trips of every value type between the typed and the boxed calling conventions.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    Complex, Device, Dimname, DispatchKey as K, Generator, IValue, Layout, MemoryFormat, QScheme,
    Scalar, ScalarType, Stack, Storage, Stream, ValueList, boxed,
};
use crate::schema::{Schema, parse_schema};

type Log = Arc<Mutex<Vec<String>>>;

/// Defines `name(Tensor self, <ty> x) -> ()`, with an unboxed CPU kernel and a boxed Tracer
/// kernel that both log `x`, and checks three routes: typed to unboxed, boxed to unboxed
/// (unboxing), typed to boxed (boxing). The first two must log the same Rust value, the
/// third the expected `IValue`.
macro_rules! probe {
    ($d:ident, $lib:ident, $log:ident, $probed:ident; $name:literal, $ty:literal, $rust:ty, $value:expr, $ivalue:expr) => {{
        $probed.push($ty);
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
    let mut probed: Vec<&str> = Vec::new();
    let t = TestTensor::cpu(4);
    let g = Generator::new(7u32);
    let s = Storage::new(vec![1u8]);
    let device: Device = "cuda:1".parse().unwrap();
    let stream = Stream { device, id: 3 };
    probe!(d, lib, log, probed; "int", "int", i64, 5, IValue::Int(5));
    probe!(d, lib, log, probed; "symint", "SymInt", i64, -3, IValue::Int(-3));
    probe!(d, lib, log, probed; "int_opt", "int?", Option<i64>, Some(2), IValue::Int(2));
    probe!(d, lib, log, probed; "int_none", "SymInt?", Option<i64>, None, IValue::None);
    probe!(d, lib, log, probed; "int_list", "int[]", &[i64], &[1, 2][..], IValue::IntList(Arc::new(vec![1, 2])));
    probe!(d, lib, log, probed; "symint_2", "SymInt[2]", &[i64], &[3, 4][..], IValue::IntList(Arc::new(vec![3, 4])));
    probe!(d, lib, log, probed; "int_list_opt", "int[1]?", Option<&[i64]>, Some(&[7][..]), IValue::IntList(Arc::new(vec![7])));
    probe!(d, lib, log, probed; "float", "float", f64, 1.5, IValue::Float(1.5));
    probe!(d, lib, log, probed; "float_opt", "float?", Option<f64>, None, IValue::None);
    probe!(d, lib, log, probed; "float_list", "float[]", &[f64], &[0.5][..], IValue::FloatList(Arc::new(vec![0.5])));
    probe!(d, lib, log, probed; "float_list_opt", "float[]?", Option<&[f64]>, Some(&[1.0][..]), IValue::FloatList(Arc::new(vec![1.0])));
    probe!(d, lib, log, probed; "bool", "bool", bool, true, IValue::Bool(true));
    probe!(d, lib, log, probed; "symbool", "SymBool", bool, false, IValue::Bool(false));
    probe!(d, lib, log, probed; "bool_opt", "bool?", Option<bool>, Some(false), IValue::Bool(false));
    probe!(d, lib, log, probed; "bool_3", "bool[3]", [bool; 3], [true, false, true], IValue::BoolList(Arc::new(vec![true, false, true])));
    probe!(d, lib, log, probed; "str", "str", &str, "hi", IValue::from("hi"));
    probe!(d, lib, log, probed; "str_opt", "str?", Option<&str>, Some("x"), IValue::from("x"));
    probe!(d, lib, log, probed; "scalar", "Scalar", Scalar, Scalar::Float(2.5), IValue::Float(2.5));
    probe!(d, lib, log, probed; "scalar_opt", "Scalar?", Option<Scalar>, Some(Scalar::Bool(true)), IValue::Bool(true));
    probe!(d, lib, log, probed; "scalar_list", "Scalar[]", &[Scalar], &[Scalar::Int(1)][..], IValue::ScalarList(Arc::new(vec![Scalar::Int(1)])));
    probe!(d, lib, log, probed; "dtype", "ScalarType", ScalarType, ScalarType::Half, IValue::ScalarType(ScalarType::Half));
    probe!(d, lib, log, probed; "dtype_opt", "ScalarType?", Option<ScalarType>, Some(ScalarType::Long), IValue::ScalarType(ScalarType::Long));
    probe!(d, lib, log, probed; "layout", "Layout?", Option<Layout>, Some(Layout::Strided), IValue::Layout(Layout::Strided));
    probe!(d, lib, log, probed; "device", "Device", Device, device, IValue::Device(device));
    probe!(d, lib, log, probed; "device_opt", "Device?", Option<Device>, Some(Device::CPU), IValue::Device(Device::CPU));
    probe!(d, lib, log, probed; "device_index", "DeviceIndex", i8, 3, IValue::Int(3));
    probe!(d, lib, log, probed; "memory_format", "MemoryFormat?", Option<MemoryFormat>, Some(MemoryFormat::ChannelsLast),
        IValue::MemoryFormat(MemoryFormat::ChannelsLast));
    probe!(d, lib, log, probed; "qscheme", "QScheme", QScheme, QScheme::PerTensorAffine, IValue::QScheme(QScheme::PerTensorAffine));
    probe!(d, lib, log, probed; "generator", "Generator?", Option<Generator>, Some(g.clone()), IValue::Generator(g.clone()));
    probe!(d, lib, log, probed; "storage", "Storage", Storage, s.clone(), IValue::Storage(s.clone()));
    probe!(d, lib, log, probed; "stream", "Stream", Stream, stream, IValue::Stream(Arc::new(stream)));
    probe!(d, lib, log, probed; "tensor", "Tensor", &TestTensor, &t, IValue::Tensor(t.clone()));
    probe!(d, lib, log, probed; "tensor_opt", "Tensor?", Option<&TestTensor>, Some(&t), IValue::Tensor(t.clone()));
    probe!(d, lib, log, probed; "tensor_list", "Tensor[]", &[TestTensor], &[t.clone()][..], IValue::TensorList(Arc::new(vec![t.clone()])));
    probe!(d, lib, log, probed; "tensor_opt_list", "Tensor?[]", &[Option<TestTensor>], &[None, Some(t.clone())][..],
        IValue::OptionalTensorList(Arc::new(vec![None, Some(t.clone())])));
    probe!(d, lib, log, probed; "tensor_mut", "Tensor(a!)", &mut TestTensor, &mut t.clone(), IValue::Tensor(t.clone()));
    probe!(d, lib, log, probed; "tensor_mut_opt", "Tensor(a!)?", Option<&mut TestTensor>, None, IValue::None);
    probe!(d, lib, log, probed; "tensor_mut_list", "Tensor(a!)[]", &mut [TestTensor], &mut [t.clone()][..],
        IValue::TensorList(Arc::new(vec![t.clone()])));
    probe!(d, lib, log, probed; "ints_0", "SymInt[]", &[i64], &[][..], IValue::IntList(Arc::default()));
    probe!(d, lib, log, probed; "ints_1", "SymInt[1]", &[i64], &[1][..], IValue::from(vec![1i64]));
    probe!(d, lib, log, probed; "ints_2", "SymInt[3]", &[i64], &[1, 2, 3][..], IValue::from(vec![1i64, 2, 3]));
    probe!(d, lib, log, probed; "ints_3", "SymInt[4]", &[i64], &[1, 2, 3, 4][..], IValue::from(vec![1i64, 2, 3, 4]));
    probe!(d, lib, log, probed; "ints_4", "SymInt[5]", &[i64], &[5; 5][..], IValue::from(vec![5i64; 5]));
    probe!(d, lib, log, probed; "ints_5", "SymInt[6]", &[i64], &[6; 6][..], IValue::from(vec![6i64; 6]));
    probe!(d, lib, log, probed; "ints_6", "SymInt[1]?", Option<&[i64]>, None, IValue::None);
    probe!(d, lib, log, probed; "ints_7", "SymInt[]?", Option<&[i64]>, Some(&[-1][..]), IValue::from(vec![-1i64]));
    probe!(d, lib, log, probed; "ints_8", "int[1]", &[i64], &[0][..], IValue::from(vec![0i64]));
    probe!(d, lib, log, probed; "ints_9", "int[2]", &[i64], &[0, 1][..], IValue::from(vec![0i64, 1]));
    probe!(d, lib, log, probed; "ints_10", "int[3]", &[i64], &[0, 1, 2][..], IValue::from(vec![0i64, 1, 2]));
    probe!(d, lib, log, probed; "ints_11", "int[2]?", Option<&[i64]>, Some(&[2, 2][..]), IValue::from(vec![2i64, 2]));
    probe!(d, lib, log, probed; "ints_12", "int[]?", Option<&[i64]>, None, IValue::None);
    let strings = || vec!["a".to_string(), "b c".to_string()];
    probe!(d, lib, log, probed; "str_list", "str[]", &[String], &strings()[..], IValue::from(strings()));
    probe!(d, lib, log, probed; "str_list_opt", "str[]?", Option<&[String]>, None, IValue::None);
    probe!(d, lib, log, probed; "str_opt_list", "str?[]", &[Option<String>], &[None, Some("x".to_string())][..],
        IValue::from(vec![None, Some("x".to_string())]));
    probe!(d, lib, log, probed; "int_opt_list", "int?[]", &[Option<i64>], &[Some(1), None][..],
        IValue::List(Arc::new(ValueList::OptionalInt(vec![Some(1), None]))));
    probe!(d, lib, log, probed; "symint_opt_list", "SymInt?[]", &[Option<i64>], &[None][..], IValue::from(vec![None::<i64>]));
    probe!(d, lib, log, probed; "float_opt_list", "float?[]", &[Option<f64>], &[Some(0.5), None][..],
        IValue::from(vec![Some(0.5), None]));
    probe!(d, lib, log, probed; "bool_opt_list", "bool?[]", &[Option<bool>], &[Some(true)][..], IValue::from(vec![Some(true)]));
    probe!(d, lib, log, probed; "scalar_opt_list", "Scalar?[]", &[Option<Scalar>], &[Some(Scalar::Int(3)), None][..],
        IValue::from(vec![Some(Scalar::Int(3)), None]));
    probe!(d, lib, log, probed; "scalar_list_opt", "Scalar[]?", Option<&[Scalar]>, Some(&[Scalar::Float(1.5)][..]),
        IValue::ScalarList(Arc::new(vec![Scalar::Float(1.5)])));
    probe!(d, lib, log, probed; "symbool_list", "SymBool[]", &[bool], &[true, false][..], IValue::BoolList(Arc::new(vec![true, false])));
    probe!(d, lib, log, probed; "symbool_opt", "SymBool?", Option<bool>, None, IValue::None);
    probe!(d, lib, log, probed; "float_2", "float[2]", &[f64], &[1.0, 2.0][..], IValue::from(vec![1.0, 2.0]));
    probe!(d, lib, log, probed; "dim_vector", "DimVector", &[i64], &[0, 2][..], IValue::from(vec![0i64, 2]));
    probe!(d, lib, log, probed; "device_index_opt", "DeviceIndex?", Option<i8>, Some(-1), IValue::Int(-1));
    probe!(d, lib, log, probed; "device_index_list", "DeviceIndex[]", &[i8], &[0, 1][..],
        IValue::List(Arc::new(ValueList::DeviceIndex(vec![0, 1]))));
    probe!(d, lib, log, probed; "dtype_list", "ScalarType[]", &[ScalarType], &[ScalarType::Float][..],
        IValue::from(vec![ScalarType::Float]));
    probe!(d, lib, log, probed; "dtype_opt_list", "ScalarType?[]", &[Option<ScalarType>], &[None, Some(ScalarType::Bool)][..],
        IValue::from(vec![None, Some(ScalarType::Bool)]));
    probe!(d, lib, log, probed; "layout_plain", "Layout", Layout, Layout::SparseCsr, IValue::Layout(Layout::SparseCsr));
    probe!(d, lib, log, probed; "layout_list", "Layout[]", &[Layout], &[Layout::Strided][..], IValue::from(vec![Layout::Strided]));
    probe!(d, lib, log, probed; "device_list", "Device[]", &[Device], &[device, Device::CPU][..], IValue::from(vec![device, Device::CPU]));
    probe!(d, lib, log, probed; "device_opt_list", "Device?[]", &[Option<Device>], &[None][..], IValue::from(vec![None::<Device>]));
    probe!(d, lib, log, probed; "memory_format_plain", "MemoryFormat", MemoryFormat, MemoryFormat::Preserve,
        IValue::MemoryFormat(MemoryFormat::Preserve));
    probe!(d, lib, log, probed; "memory_format_list", "MemoryFormat[]", &[MemoryFormat], &[MemoryFormat::ChannelsLast3d][..],
        IValue::from(vec![MemoryFormat::ChannelsLast3d]));
    probe!(d, lib, log, probed; "qscheme_opt", "QScheme?", Option<QScheme>, None, IValue::None);
    probe!(d, lib, log, probed; "qscheme_list", "QScheme[]", &[QScheme], &[QScheme::PerTensorSymmetric][..],
        IValue::from(vec![QScheme::PerTensorSymmetric]));
    probe!(d, lib, log, probed; "generator_plain", "Generator", Generator, g.clone(), IValue::Generator(g.clone()));
    probe!(d, lib, log, probed; "generator_list", "Generator[]", &[Generator], &[g.clone()][..], IValue::from(vec![g.clone()]));
    probe!(d, lib, log, probed; "generator_opt_list", "Generator?[]", &[Option<Generator>], &[Some(g.clone()), None][..],
        IValue::from(vec![Some(g.clone()), None]));
    probe!(d, lib, log, probed; "storage_opt", "Storage?", Option<Storage>, Some(s.clone()), IValue::Storage(s.clone()));
    probe!(d, lib, log, probed; "storage_list", "Storage[]", &[Storage], &[s.clone()][..], IValue::from(vec![s.clone()]));
    probe!(d, lib, log, probed; "stream_opt", "Stream?", Option<Stream>, Some(stream), IValue::Stream(Arc::new(stream)));
    probe!(d, lib, log, probed; "stream_opt_list", "Stream?[]", &[Option<Stream>], &[Some(stream)][..], IValue::from(vec![Some(stream)]));
    probe!(d, lib, log, probed; "bool_3_opt", "bool[3]?", Option<[bool; 3]>, Some([false, false, true]),
        IValue::from(vec![false, false, true]));
    probe!(d, lib, log, probed; "bool_2", "bool[2]", [bool; 2], [true, true], IValue::from(vec![true, true]));
    probe!(d, lib, log, probed; "bool_4", "bool[4]", [bool; 4], [true, false, false, true], IValue::from(vec![true, false, false, true]));
    probe!(d, lib, log, probed; "tensor_list_opt", "Tensor[]?", Option<&[TestTensor]>, Some(&[t.clone()][..]),
        IValue::TensorList(Arc::new(vec![t.clone()])));
    probe!(d, lib, log, probed; "tensor_opt_list_opt", "Tensor?[]?", Option<&[Option<TestTensor>]>, None, IValue::None);
    assert_corpus_types_covered(&probed, "f({} x) -> ()", |s| {
        (s.arguments.iter())
            .map(|a| (a.ty.to_string(), a.is_write()))
            .collect()
    });
}

/// The argument or return types of the vendored `native_functions.yaml` (`types_of` each
/// schema), each with whether it is written, must all be among `probed`: schema types, as
/// `types_of` finds them in `template` with the type in place of `{}`.
pub(super) fn assert_corpus_types_covered(
    probed: &[&str],
    template: &str,
    types_of: fn(&Schema) -> Vec<(String, bool)>,
) {
    let text = include_str!("../../../tests/data/native_functions.yaml");
    let corpus: BTreeSet<(String, bool)> = (text.lines())
        .filter_map(|line| line.strip_prefix("- func: "))
        .flat_map(|func| types_of(&parse_schema(func).expect("corpus schemas parse")))
        .collect();
    let covered: BTreeSet<(String, bool)> = (probed.iter())
        .flat_map(|ty| {
            let text = template.replace("{}", ty);
            types_of(&parse_schema(&text).unwrap_or_else(|e| panic!("{text}: {e:?}")))
        })
        .collect();
    let missing: Vec<_> = corpus.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "corpus types without a round trip: {missing:?}"
    );
    assert!(corpus.len() > 8, "{corpus:?}");
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

/// Each list form has its schema spelling as its kind, and prints as a schema literal.
#[test]
fn lists_name_their_schema_type() {
    let g = Generator::new(0u8);
    let stream = Stream {
        device: Device::CPU,
        id: 4,
    };
    let lists: Vec<(IValue<TestTensor>, &str, &str)> = vec![
        (IValue::from(vec!["a".to_string()]), "str[]", r#"["a"]"#),
        (IValue::from(vec![1i8]), "DeviceIndex[]", "[1]"),
        (
            IValue::from(vec![ScalarType::Half]),
            "ScalarType[]",
            "[Half]",
        ),
        (IValue::from(vec![Layout::Strided]), "Layout[]", "[Strided]"),
        (IValue::from(vec![Device::CPU]), "Device[]", r#"["cpu"]"#),
        (
            IValue::from(vec![MemoryFormat::Contiguous]),
            "MemoryFormat[]",
            "[Contiguous]",
        ),
        (
            IValue::from(vec![QScheme::PerTensorAffine]),
            "QScheme[]",
            "[PerTensorAffine]",
        ),
        (IValue::from(vec![g.clone()]), "Generator[]", "[Generator]"),
        (
            IValue::from(vec![Storage::new(())]),
            "Storage[]",
            "[Storage]",
        ),
        (IValue::from(vec![stream]), "Stream[]", "[Stream(cpu, 4)]"),
        (
            IValue::from(vec![Dimname::new("N")]),
            "Dimname[]",
            r#"["N"]"#,
        ),
        (IValue::from(vec![Some(1i64), None]), "int?[]", "[1, None]"),
        (IValue::from(vec![Some(0.5)]), "float?[]", "[0.5]"),
        (IValue::from(vec![Some(true)]), "bool?[]", "[True]"),
        (IValue::from(vec![None::<i8>]), "DeviceIndex?[]", "[None]"),
        (IValue::from(vec![Some(Scalar::Int(2))]), "Scalar?[]", "[2]"),
        (
            IValue::from(vec![Some("s".to_string())]),
            "str?[]",
            r#"["s"]"#,
        ),
        (
            IValue::from(vec![Some(ScalarType::Bool)]),
            "ScalarType?[]",
            "[Bool]",
        ),
        (IValue::from(vec![None::<Layout>]), "Layout?[]", "[None]"),
        (
            IValue::from(vec![Some(Device::CPU)]),
            "Device?[]",
            r#"["cpu"]"#,
        ),
        (
            IValue::from(vec![None::<MemoryFormat>]),
            "MemoryFormat?[]",
            "[None]",
        ),
        (IValue::from(vec![None::<QScheme>]), "QScheme?[]", "[None]"),
        (IValue::from(vec![Some(g)]), "Generator?[]", "[Generator]"),
        (IValue::from(vec![None::<Storage>]), "Storage?[]", "[None]"),
        (
            IValue::from(vec![Some(stream)]),
            "Stream?[]",
            "[Stream(cpu, 4)]",
        ),
    ];
    for (value, kind, text) in lists {
        assert_eq!(value.kind(), kind);
        let IValue::List(list) = &value else {
            panic!("{kind} is not a generic list: {value:?}");
        };
        let len = 1 + usize::from(kind == "int?[]");
        assert_eq!(
            (list.to_string().as_str(), list.len()),
            (text, len),
            "{kind}"
        );
        assert!(!list.is_empty());
    }
    let common: [(IValue<TestTensor>, &str); 6] = [
        (IValue::from(vec![1i64]), "int[]"),
        (IValue::from(vec![1.0]), "float[]"),
        (IValue::from(vec![true]), "bool[]"),
        (IValue::from(vec![Scalar::Int(1)]), "Scalar[]"),
        (IValue::from(vec![TestTensor::cpu(0)]), "Tensor[]"),
        (IValue::from(vec![None::<TestTensor>]), "Tensor?[]"),
    ];
    for (value, kind) in common {
        assert_eq!(value.kind(), kind);
    }
}
