//! `opgen_example._C._testing`: a second module, over a dispatcher of its own, with an
//! operator per schema type that describes the value it received, operators whose returns
//! have every shape, overloads to choose between, and operators placed by `python_module`.
//! The Python tests use it to check every conversion end to end.

use std::collections::HashMap;

use opgen::dispatch::{DispatchKey, IValue, OperatorHandle, Stack, boxed};
use opgen::prelude::*;
use opgen_example::MiniTensor;
use opgen_python::{Options, bind};
use pyo3::prelude::*;

use crate::numpy_conv::Mini;

/// The schema types, each with the name of its `echo_<name>` operator.
const TYPES: [(&str, &str); 41] = [
    ("tensor", "Tensor"),
    ("opt_tensor", "Tensor?"),
    ("tensor_list", "Tensor[]"),
    ("opt_tensor_list", "Tensor?[]"),
    ("scalar", "Scalar"),
    ("opt_scalar", "Scalar?"),
    ("scalar_list", "Scalar[]"),
    ("int", "int"),
    ("opt_int", "int?"),
    ("int_list", "int[]"),
    ("int2", "int[2]"),
    ("int1_opt", "int[1]?"),
    ("symint", "SymInt"),
    ("symint_list", "SymInt[]"),
    ("float", "float"),
    ("opt_float", "float?"),
    ("float_list", "float[]"),
    ("bool", "bool"),
    ("opt_bool", "bool?"),
    ("bool3", "bool[3]"),
    ("str", "str"),
    ("opt_str", "str?"),
    ("dtype", "ScalarType"),
    ("opt_dtype", "ScalarType?"),
    ("layout", "Layout"),
    ("device", "Device"),
    ("opt_device", "Device?"),
    ("memory_format", "MemoryFormat"),
    ("opt_memory_format", "MemoryFormat?"),
    ("device_index", "DeviceIndex"),
    ("symbool", "SymBool"),
    ("qscheme", "QScheme"),
    ("opt_generator", "Generator?"),
    ("opt_symint", "SymInt?"),
    ("symint2", "SymInt[2]"),
    ("opt_int_list", "int[]?"),
    ("opt_float_list", "float[]?"),
    ("opt_layout", "Layout?"),
    ("opt_qscheme", "QScheme?"),
    ("dimvector", "DimVector"),
    ("graph", "GraphModule"),
];

/// The other operators: overloads to pick from, keyword-only and defaulted arguments, an
/// out overload, returns of every shape, and functions placed by `python_module`.
const OTHERS: [&str; 21] = [
    "pick.int(Tensor x, int a) -> str",
    "pick.float(Tensor x, float a) -> str",
    "pick.Tensor(Tensor x, Tensor a) -> str",
    "pick.Scalar(Tensor x, Scalar a) -> str",
    "kw(Tensor x, *, int k) -> str",
    "defaults(int a=1, float b=0.5, bool c=True, str d='x', int[2] e=3, ScalarType? f=None, Scalar g=2) -> str",
    "copyof(Tensor x) -> Tensor",
    "copyof.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
    "returns_named() -> (int count, float mean)",
    "returns_tuple() -> (int, bool)",
    "returns_list() -> int[]",
    "returns_dtype() -> ScalarType",
    "returns_device() -> Device",
    "returns_none() -> ()",
    "returns_str() -> str",
    "returns_tensors(Tensor x) -> Tensor[]",
    "linalg_twice(Tensor A) -> Tensor",
    "special_same(Tensor self) -> Tensor",
    "gelu_like(Tensor self) -> Tensor",
    "fails(Tensor self) -> Tensor",
    "cpu_only(Tensor self) -> Tensor",
];

/// How a value arrived, for the tests: `int 3`, `int[] [2, 2]`, `Tensor Float[2, 3]`.
fn describe(v: &IValue<MiniTensor>) -> String {
    match v {
        IValue::Tensor(t) => format!("Tensor {}{:?}", t.dtype(), t.shape()),
        IValue::TensorList(l) => format!("Tensor[] {}", l.len()),
        IValue::OptionalTensorList(l) => {
            let items: Vec<&str> = l
                .iter()
                .map(|t| if t.is_some() { "Tensor" } else { "None" })
                .collect();
            format!("Tensor?[] [{}]", items.join(", "))
        }
        IValue::ScalarList(l) => format!("Scalar[] {:?}", l.as_slice()),
        IValue::IntList(l) => format!("int[] {:?}", l.as_slice()),
        IValue::FloatList(l) => format!("float[] {:?}", l.as_slice()),
        IValue::BoolList(l) => format!("bool[] {:?}", l.as_slice()),
        IValue::Str(s) => format!("str {s:?}"),
        IValue::ScalarType(d) => format!("ScalarType {d}"),
        IValue::Device(d) => format!("Device {d}"),
        IValue::None => "None".to_string(),
        other => format!(
            "{} {}",
            other.kind(),
            match other {
                IValue::Int(i) => i.to_string(),
                IValue::Float(f) => format!("{f:?}"),
                IValue::Bool(b) => b.to_string(),
                IValue::Complex(c) => format!("{}+{}j", c.re, c.im),
                IValue::Layout(l) => l.to_string(),
                IValue::MemoryFormat(m) => m.to_string(),
                IValue::QScheme(q) => q.to_string(),
                _ => String::new(),
            }
        ),
    }
}

/// The arguments' descriptions joined by `, `, after the overload name if any.
fn description(op: &OperatorHandle, args: &[IValue<MiniTensor>]) -> IValue<MiniTensor> {
    let text: Vec<String> = args.iter().map(describe).collect();
    let text = match op.overload() {
        "" => text.join(", "),
        overload => format!("{overload}: {}", text.join(", ")),
    };
    IValue::from(text.as_str())
}

fn tensor_arg(args: &[IValue<MiniTensor>], i: usize) -> Result<MiniTensor, Error> {
    args.get(i)
        .and_then(IValue::as_tensor)
        .cloned()
        .ok_or_else(|| Error::from("a tensor argument is missing"))
}

/// The returns of `op` called with `args`: the description, or what the few operators that
/// compute something return.
fn returns(
    op: &OperatorHandle,
    args: Vec<IValue<MiniTensor>>,
) -> Result<Vec<IValue<MiniTensor>>, Error> {
    Ok(match (op.name(), op.overload()) {
        ("t::copyof", "") => vec![IValue::Tensor(tensor_arg(&args, 0)?.try_clone()?)],
        ("t::copyof", "out") => {
            let src = tensor_arg(&args, 0)?;
            let mut out = tensor_arg(&args, 1)?;
            <MiniTensor as opgen::dispatch::Tensor>::copy_(&mut out, &src)?;
            vec![IValue::Tensor(out)]
        }
        ("t::returns_named", _) => vec![IValue::Int(3), IValue::Float(0.5)],
        ("t::returns_tuple", _) => vec![IValue::Int(7), IValue::Bool(true)],
        ("t::returns_list", _) => vec![IValue::from(vec![1i64, 2, 3])],
        ("t::returns_dtype", _) => vec![IValue::ScalarType(ScalarType::Double)],
        ("t::returns_device", _) => vec![IValue::Device(opgen_example::META)],
        ("t::returns_none", _) => vec![],
        ("t::returns_str", _) => vec![IValue::from("hello")],
        ("t::returns_tensors", _) => {
            let t = tensor_arg(&args, 0)?;
            vec![IValue::TensorList(std::sync::Arc::new(vec![t.share(), t]))]
        }
        ("t::linalg_twice", _) => vec![IValue::Tensor(
            tensor_arg(&args, 0)?.try_mul_scalar(Scalar::Int(2))?,
        )],
        ("t::special_same" | "t::gelu_like", _) => vec![IValue::Tensor(tensor_arg(&args, 0)?)],
        ("t::fails", _) => return Err(Error::from("fails() always fails")),
        _ => vec![description(op, &args)],
    })
}

/// Adds `_testing` to `parent`.
pub(crate) fn add(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let dispatcher = Box::leak(Box::new(Dispatcher::new()));
    define(dispatcher).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let module = PyModule::new(py, "opgen_example._testing")?;
    let python_modules = HashMap::from([
        ("linalg_twice".to_string(), "linalg".to_string()),
        ("special_same".to_string(), "special".to_string()),
        ("gelu_like".to_string(), "nn".to_string()),
    ]);
    let options = Options {
        package: Some("opgen_example._testing".into()),
        python_modules,
        no_methods: true,
    };
    bind::<Mini>(&module, dispatcher, &options)?;
    parent.add("_testing", &module)?;
    py.import("sys")?
        .getattr("modules")?
        .set_item("opgen_example._testing", module)?;
    Ok(())
}

fn define(d: &Dispatcher) -> Result<(), Error> {
    let lib = d.library("t")?;
    let schemas = (TYPES.iter())
        .map(|(name, ty)| format!("echo_{name}({ty} x) -> str"))
        .chain(OTHERS.iter().map(|s| s.to_string()));
    for schema in schemas {
        lib.def(&schema)?.forget();
        let op_name = schema.split('(').next().unwrap_or_default().to_string();
        if op_name == "cpu_only" {
            // Only a CPU kernel: a meta tensor reaches no kernel (NotImplementedError).
            lib.impl_("cpu_only", DispatchKey::CPU, |t: &MiniTensor| t.share())?
                .forget();
            continue;
        }
        let kernel = boxed(|op: &OperatorHandle, _ks, stack: &mut Stack<MiniTensor>| {
            let n = op.schema().map_or(0, |s| s.arguments.len());
            let base = stack.len() - n;
            let args = stack.split_off(base);
            stack.extend(returns(op, args)?);
            Ok::<(), Error>(())
        });
        // BackendSelect is in every thread's included keys: the kernel serves calls with or
        // without tensors.
        lib.impl_(&op_name, DispatchKey::BackendSelect, kernel)?
            .forget();
    }
    // Tensors of the example carry ADInplaceOrView (and Tracer while tracing): skip those
    // keys, as the global dispatcher does for operators without such kernels.
    for key in [DispatchKey::ADInplaceOrView, DispatchKey::Tracer] {
        lib.fallback_fallthrough(key)?.forget();
    }
    std::mem::forget(lib);
    Ok(())
}
