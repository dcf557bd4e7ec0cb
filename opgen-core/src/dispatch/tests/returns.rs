//! Round trips of every return type the plan maps, alone and in tuples, between the typed and
//! the boxed calling conventions, through the dispatcher and through static dispatch.

use super::values::assert_corpus_types_covered;
use super::*;
use crate::__private::LinkEntry as Entry;
use crate::dispatch::static_dispatch::StaticOperator;
use crate::dispatch::{
    Device, DispatchKey as K, ErrorKind, Generator, IValue, Layout, MemoryFormat, QScheme, Scalar,
    ScalarType, Site, Stack, Storage, Stream, ValueList, boxed,
};

/// Defines `name(Tensor self) -> <ty>` with an unboxed CPU kernel returning `value` and a
/// boxed Tracer kernel pushing `ivalues`, and checks every route: typed to unboxed, boxed to
/// unboxed (the kernel's value boxed as `ivalues`), typed to boxed (`ivalues` unboxed as
/// `value`).
macro_rules! ret {
    ($d:ident, $lib:ident, $probed:ident; $name:literal, $ty:expr, $rust:ty, $value:expr, [$($ivalue:expr),+ $(,)?]) => {{
        $probed.push($ty);
        let _def = $lib
            .def(&format!("{}(Tensor self) -> {}", $name, $ty))
            .unwrap();
        let value: $rust = $value;
        let ivalues: Vec<IValue<TestTensor>> = vec![$($ivalue),+];
        let returned = value.clone();
        let _cpu = $lib
            .impl_($name, K::CPU, move |_: &TestTensor| -> $rust { returned.clone() })
            .unwrap();
        let pushed = ivalues.clone();
        let _tracer = $lib
            .impl_(
                $name,
                K::Tracer,
                boxed(move |_, _, stack: &mut Stack<TestTensor>| {
                    stack.pop();
                    stack.extend(pushed.iter().cloned());
                    Ok(())
                }),
            )
            .unwrap();
        let op = $d
            .typed::<_, (&TestTensor,), $rust>(concat!("test::", $name), "")
            .unwrap();
        assert_eq!(op.call(&TestTensor::cpu(0)), value, "typed, {}", $ty);
        let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(0))]);
        op.handle().call_boxed(&mut stack).unwrap();
        assert_eq!(stack.into_vec(), ivalues, "boxed, {}", $ty);
        let traced = TestTensor::new(&[K::CPU, K::Tracer], 0);
        assert_eq!(op.call(&traced), value, "typed to boxed, {}", $ty);
    }};
}

#[test]
fn every_return_type_round_trips() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let mut probed: Vec<&str> = Vec::new();
    let t = TestTensor::cpu(3);
    let g = Generator::new(1u8);
    let s = Storage::new(2u8);
    let cuda: Device = "cuda:0".parse().unwrap();
    let stream = Stream {
        device: cuda,
        id: 7,
    };
    let words = vec!["x".to_string(), String::new()];
    ret!(d, lib, probed; "tensor", "Tensor", TestTensor, t.clone(), [IValue::Tensor(t.clone())]);
    ret!(d, lib, probed; "tensor_opt", "Tensor?", Option<TestTensor>, None, [IValue::None]);
    ret!(d, lib, probed; "tensor_list", "Tensor[]", Vec<TestTensor>, vec![t.clone(), t.clone()],
        [IValue::from(vec![t.clone(), t.clone()])]);
    ret!(d, lib, probed; "tensor_opt_list", "Tensor?[]", Vec<Option<TestTensor>>, vec![None, Some(t.clone())],
        [IValue::OptionalTensorList(Arc::new(vec![None, Some(t.clone())]))]);
    ret!(d, lib, probed; "int", "int", i64, -2, [IValue::Int(-2)]);
    ret!(d, lib, probed; "symint", "SymInt", i64, 9, [IValue::Int(9)]);
    ret!(d, lib, probed; "int_opt", "int?", Option<i64>, Some(4), [IValue::Int(4)]);
    ret!(d, lib, probed; "symint_opt", "SymInt?", Option<i64>, None, [IValue::None]);
    ret!(d, lib, probed; "int_list", "int[]", Vec<i64>, vec![1, 2], [IValue::IntList(Arc::new(vec![1, 2]))]);
    ret!(d, lib, probed; "symint_list", "SymInt[]", Vec<i64>, vec![], [IValue::IntList(Arc::default())]);
    ret!(d, lib, probed; "dim_vector", "DimVector", Vec<i64>, vec![3], [IValue::from(vec![3i64])]);
    ret!(d, lib, probed; "int_opt_list", "int?[]", Vec<Option<i64>>, vec![None, Some(5)],
        [IValue::List(Arc::new(ValueList::OptionalInt(vec![None, Some(5)])))]);
    ret!(d, lib, probed; "float", "float", f64, 0.75, [IValue::Float(0.75)]);
    ret!(d, lib, probed; "float_opt", "float?", Option<f64>, Some(-0.0), [IValue::Float(-0.0)]);
    ret!(d, lib, probed; "float_list", "float[]", Vec<f64>, vec![1.5], [IValue::FloatList(Arc::new(vec![1.5]))]);
    ret!(d, lib, probed; "float_opt_list", "float?[]", Vec<Option<f64>>, vec![Some(2.0)], [IValue::from(vec![Some(2.0)])]);
    ret!(d, lib, probed; "bool", "bool", bool, true, [IValue::Bool(true)]);
    ret!(d, lib, probed; "symbool", "SymBool", bool, false, [IValue::Bool(false)]);
    ret!(d, lib, probed; "bool_opt", "bool?", Option<bool>, Some(false), [IValue::Bool(false)]);
    ret!(d, lib, probed; "bool_list", "bool[]", Vec<bool>, vec![true, false], [IValue::BoolList(Arc::new(vec![true, false]))]);
    ret!(d, lib, probed; "bool_3", "bool[3]", [bool; 3], [true, false, true], [IValue::from(vec![true, false, true])]);
    ret!(d, lib, probed; "bool_2_opt", "bool[2]?", Option<[bool; 2]>, Some([false, true]), [IValue::from(vec![false, true])]);
    ret!(d, lib, probed; "bool_opt_list", "bool?[]", Vec<Option<bool>>, vec![None], [IValue::from(vec![None::<bool>])]);
    ret!(d, lib, probed; "str", "str", String, "héllo".to_string(), [IValue::from("héllo")]);
    ret!(d, lib, probed; "str_opt", "str?", Option<String>, Some(String::new()), [IValue::from("")]);
    ret!(d, lib, probed; "str_opt_none", "str?", Option<String>, None, [IValue::None]);
    ret!(d, lib, probed; "str_list", "str[]", Vec<String>, words.clone(),
        [IValue::List(Arc::new(ValueList::Str(words.clone())))]);
    ret!(d, lib, probed; "str_opt_list", "str?[]", Vec<Option<String>>, vec![Some("y".into()), None],
        [IValue::from(vec![Some("y".to_string()), None])]);
    ret!(d, lib, probed; "scalar", "Scalar", Scalar, Scalar::Bool(true), [IValue::Bool(true)]);
    ret!(d, lib, probed; "scalar_list", "Scalar[]", Vec<Scalar>, vec![Scalar::Int(1), Scalar::Float(0.5)],
        [IValue::ScalarList(Arc::new(vec![Scalar::Int(1), Scalar::Float(0.5)]))]);
    ret!(d, lib, probed; "dtype", "ScalarType", ScalarType, ScalarType::BFloat16, [IValue::ScalarType(ScalarType::BFloat16)]);
    ret!(d, lib, probed; "dtype_opt", "ScalarType?", Option<ScalarType>, Some(ScalarType::Long),
        [IValue::ScalarType(ScalarType::Long)]);
    ret!(d, lib, probed; "dtype_list", "ScalarType[]", Vec<ScalarType>, vec![ScalarType::Half], [IValue::from(vec![ScalarType::Half])]);
    ret!(d, lib, probed; "layout", "Layout", Layout, Layout::Sparse, [IValue::Layout(Layout::Sparse)]);
    ret!(d, lib, probed; "layout_opt", "Layout?", Option<Layout>, None, [IValue::None]);
    ret!(d, lib, probed; "layout_list", "Layout[]", Vec<Layout>, vec![Layout::Jagged], [IValue::from(vec![Layout::Jagged])]);
    ret!(d, lib, probed; "device", "Device", Device, cuda, [IValue::Device(cuda)]);
    ret!(d, lib, probed; "device_opt", "Device?", Option<Device>, Some(Device::CPU), [IValue::Device(Device::CPU)]);
    ret!(d, lib, probed; "device_opt_list", "Device?[]", Vec<Option<Device>>, vec![Some(cuda)], [IValue::from(vec![Some(cuda)])]);
    ret!(d, lib, probed; "device_index", "DeviceIndex", i8, 3, [IValue::Int(3)]);
    ret!(d, lib, probed; "device_index_opt", "DeviceIndex?", Option<i8>, None, [IValue::None]);
    ret!(d, lib, probed; "device_index_list", "DeviceIndex[]", Vec<i8>, vec![0, 1], [IValue::from(vec![0i8, 1])]);
    ret!(d, lib, probed; "memory_format", "MemoryFormat", MemoryFormat, MemoryFormat::ChannelsLast,
        [IValue::MemoryFormat(MemoryFormat::ChannelsLast)]);
    ret!(d, lib, probed; "memory_format_opt", "MemoryFormat?", Option<MemoryFormat>, Some(MemoryFormat::Contiguous),
        [IValue::MemoryFormat(MemoryFormat::Contiguous)]);
    ret!(d, lib, probed; "qscheme", "QScheme", QScheme, QScheme::PerChannelAffine, [IValue::QScheme(QScheme::PerChannelAffine)]);
    ret!(d, lib, probed; "qscheme_opt_list", "QScheme?[]", Vec<Option<QScheme>>, vec![None], [IValue::from(vec![None::<QScheme>])]);
    ret!(d, lib, probed; "generator", "Generator", Generator, g.clone(), [IValue::Generator(g.clone())]);
    ret!(d, lib, probed; "generator_opt", "Generator?", Option<Generator>, Some(g.clone()), [IValue::Generator(g.clone())]);
    ret!(d, lib, probed; "generator_list", "Generator[]", Vec<Generator>, vec![g.clone()], [IValue::from(vec![g.clone()])]);
    ret!(d, lib, probed; "storage", "Storage", Storage, s.clone(), [IValue::Storage(s.clone())]);
    ret!(d, lib, probed; "storage_opt_list", "Storage?[]", Vec<Option<Storage>>, vec![Some(s.clone())],
        [IValue::from(vec![Some(s.clone())])]);
    ret!(d, lib, probed; "stream", "Stream", Stream, stream, [IValue::Stream(Arc::new(stream))]);
    ret!(d, lib, probed; "stream_list", "Stream[]", Vec<Stream>, vec![stream], [IValue::from(vec![stream])]);
    written_return_round_trips(&d, &lib);
    probed.push("Tensor(a!)");
    assert_corpus_types_covered(&probed, "f(Tensor(a!) self) -> {}", |s| {
        (s.returns.iter())
            .map(|r| (r.ty.to_string(), r.is_write()))
            .collect()
    });
}

/// `-> Tensor(a!)`: the kernel returns the handle it was given, every route.
fn written_return_round_trips(d: &Dispatcher, lib: &Library) {
    let _def = lib.def("neg_(Tensor(a!) self) -> Tensor(a!)").unwrap();
    let _cpu = lib
        .impl_("neg_", K::CPU, |t: &mut TestTensor| t.clone())
        .unwrap();
    let _tracer = lib.impl_(
        "neg_",
        K::Tracer,
        boxed(|_, _, _: &mut Stack<TestTensor>| Ok(())),
    );
    let op = d
        .typed::<_, (&mut TestTensor,), TestTensor>("test::neg_", "")
        .unwrap();
    let mut t = TestTensor::cpu(1);
    assert_eq!(op.call(&mut t), t);
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    op.handle().call_boxed(&mut stack).unwrap();
    assert_eq!(stack.into_vec(), [IValue::Tensor(t.clone())]);
    let mut traced = TestTensor::new(&[K::CPU, K::Tracer], 1);
    assert_eq!(op.call(&mut traced), traced);
}

type Ten = (
    String,
    Vec<Option<i64>>,
    Vec<Option<TestTensor>>,
    [bool; 2],
    Option<Generator>,
    Option<ScalarType>,
    Vec<f64>,
    Stream,
    Vec<String>,
    TestTensor,
);

/// The returns of `ten`: ten of them (the most a typed kernel may have), of every kind.
macro_rules! ten_returns {
    () => {
        "(str a, int?[] b, Tensor?[] c, bool[2] d, Generator? e, ScalarType? f, float[] g, Stream h, str[] i, Tensor j)"
    };
}

fn ten(t: &TestTensor) -> Ten {
    let stream = Stream {
        device: Device::CPU,
        id: 1,
    };
    (
        "ten".to_string(),
        vec![Some(1), None],
        vec![Some(t.clone()), None],
        [true, false],
        None,
        Some(ScalarType::ComplexFloat),
        vec![0.5, 1.5],
        stream,
        vec!["i".to_string()],
        t.clone(),
    )
}

fn ten_boxed(t: &TestTensor) -> Vec<IValue<TestTensor>> {
    let (a, b, c, d, e, f, g, h, i, j) = ten(t);
    vec![
        IValue::from(a),
        IValue::from(b),
        IValue::from(c),
        IValue::from(d.to_vec()),
        IValue::from(e),
        IValue::from(f),
        IValue::from(g),
        IValue::from(h),
        IValue::from(i),
        IValue::Tensor(j),
    ]
}

#[test]
fn tuples_of_the_largest_size_mix_every_kind_of_return() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let mut probed = Vec::new();
    let t = TestTensor::cpu(8);
    ret!(d, lib, probed; "ten", ten_returns!(), Ten, ten(&t), [
        IValue::from("ten"),
        IValue::from(vec![Some(1i64), None]),
        IValue::from(vec![Some(t.clone()), None]),
        IValue::from(vec![true, false]),
        IValue::None,
        IValue::ScalarType(ScalarType::ComplexFloat),
        IValue::from(vec![0.5, 1.5]),
        IValue::from(Stream { device: Device::CPU, id: 1 }),
        IValue::from(vec!["i".to_string()]),
        IValue::Tensor(t.clone()),
    ]);
    ret!(d, lib, probed; "pair", "(Tensor?, Storage[])", (Option<TestTensor>, Vec<Storage>), (None, vec![]),
        [IValue::None, IValue::List(Arc::new(ValueList::Storage(vec![])))]);
    // The kinds of a mismatch name the schema types.
    let _def = lib.def("wrong(Tensor self) -> (str, int?[])").unwrap();
    let _kernel = lib.impl_(
        "wrong",
        K::CPU,
        boxed(|_, _, stack: &mut Stack<TestTensor>| {
            stack.pop();
            stack.extend([IValue::from("s"), IValue::from(vec![ScalarType::Int])]);
            Ok(())
        }),
    );
    let op = d
        .typed::<_, (&TestTensor,), (String, Vec<Option<i64>>)>("test::wrong", "")
        .unwrap();
    let err = op.try_call(&t).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::WrongReturn { .. }), "{err}");
    assert!(
        err.to_string().contains("`ScalarType[]` in a tuple"),
        "{err}"
    );
}

/// An entry of a link-time registration for static dispatch.
const fn entry(
    schema: &'static str,
    register: fn(&Library, DispatchKey, Site) -> Result<Registration, Error>,
) -> Entry {
    Entry::def(schema).with_kernel(&[DispatchKey::CPU], register)
}

fn unboxed_ten(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at("ten", key, |t: &TestTensor| ten(t), site)
}

fn boxed_ten(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    let kernel = boxed(|_, _, stack: &mut Stack<TestTensor>| {
        let t = stack
            .pop()
            .and_then(IValue::into_tensor)
            .unwrap_or_else(|| TestTensor::cpu(0));
        stack.extend(ten_boxed(&t));
        Ok(())
    });
    lib.impl_at("ten", key, kernel, site)
}

#[test]
fn static_dispatch_returns_every_type() {
    const SCHEMA: &str = concat!("s::ten(Tensor self) -> ", ten_returns!());
    static UNBOXED: [Entry; 1] = [entry(SCHEMA, unboxed_ten)];
    static BOXED: [Entry; 1] = [entry(SCHEMA, boxed_ten)];
    let t = TestTensor::cpu(5);
    for entries in [&UNBOXED, &BOXED] {
        let op = StaticOperator::<TestTensor, (&'static TestTensor,), Ten>::build(
            "s::ten",
            "",
            entries,
            &[],
        )
        .unwrap();
        assert_eq!(op.try_call(&t).unwrap(), ten(&t));
    }
}

/// The return traits are in scope wherever `opgen_core::dispatch::*` is imported: none of
/// their methods may take the place of a standard one (a by-value `push` did, for
/// `vec.push(x)` and `guard.push(x)` on a `Vec` of a return type).
#[test]
fn a_glob_import_leaves_vec_methods_alone() {
    #[allow(unused_imports)]
    use crate::dispatch::*;
    let mut names: Vec<String> = vec!["a".to_string()];
    names.push("b".to_string());
    let shared = std::sync::Mutex::new(vec![1i64]);
    shared.lock().unwrap().push(2);
    assert_eq!((names.len(), shared.lock().unwrap().len()), (2, 2));
}
