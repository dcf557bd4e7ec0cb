//! Python objects as the parser's [`Value`]s: each argument classified once, tensors
//! borrowed from their Python objects (no copy), the Python type name kept for messages.

use std::borrow::Cow;

use opgen_core::dispatch::{Complex, ScalarType};
use opgen_python_core::{Arg, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::ffi::type_name;
use crate::tensor::{PyTensor, TensorObject};
use crate::values::{PyDevice, PyDtype, PyLayout, PyMemoryFormat, PyQScheme};

/// The items of the list and tuple arguments of a call, taken out of their Python objects
/// (in the order [`classify`] meets them) so that the classified values can borrow them.
#[derive(Default)]
pub(crate) struct ListItems<'py>(Vec<Vec<Bound<'py, PyAny>>>);

impl<'py> ListItems<'py> {
    /// Every item collected.
    pub(crate) fn items(&self) -> impl Iterator<Item = &Bound<'py, PyAny>> {
        self.0.iter().flatten()
    }

    /// Collects the items of `obj` if it is a list or a tuple, depth first.
    pub(crate) fn collect(&mut self, obj: &Bound<'py, PyAny>) {
        let items: Vec<Bound<'py, PyAny>> = if let Ok(l) = obj.cast::<PyList>() {
            l.iter().collect()
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            t.iter().collect()
        } else {
            return;
        };
        self.0.push(items);
        let index = self.0.len() - 1;
        for i in 0..self.0[index].len() {
            let item = self.0[index][i].clone();
            self.collect(&item);
        }
    }
}

/// Classifies `obj`; `next` walks [`ListItems`] in the order they were collected.
pub(crate) fn classify<'a, 'py, B: PyTensor>(
    obj: &'a Bound<'py, PyAny>,
    lists: &'a ListItems<'py>,
    next: &mut usize,
) -> Arg<'a, B::Tensor> {
    if let Ok(t) = obj.cast::<TensorObject>() {
        return match t.get().get::<B>() {
            Some(t) => Arg::named(Value::Tensor(t), "Tensor"),
            None => Arg::named(Value::Other, "Tensor"),
        };
    }
    if obj.is_none() {
        return Arg::new(Value::None);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Arg::new(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        let value = i.extract::<i64>().map_or(Value::BigInt, Value::Int);
        return Arg::named(value, name_of(obj, "int"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Arg::named(Value::Float(f.value()), name_of(obj, "float"));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let tuple = obj.cast::<PyTuple>().is_ok();
        let index = *next;
        *next += 1;
        let items = lists.0.get(index).map_or(&[][..], Vec::as_slice);
        let items = items
            .iter()
            .map(|item| classify::<B>(item, lists, next))
            .collect();
        let name = name_of(obj, if tuple { "tuple" } else { "list" });
        return Arg::named(Value::List { tuple, items }, name);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.to_str() {
            Ok(text) => Arg::named(Value::Str(Cow::Borrowed(text)), name_of(obj, "str")),
            Err(_) => Arg::named(Value::Other, "str"),
        };
    }
    classify_other(obj)
}

/// The less common objects: value-type objects, Python types taken as dtypes, complex
/// numbers, NumPy scalars, objects with `__index__`.
fn classify_other<'a, T>(obj: &'a Bound<'_, PyAny>) -> Arg<'a, T> {
    let py = obj.py();
    let named = |v: Value<'a, T>| Arg::named(v, type_name(obj));
    if let Ok(d) = obj.cast::<PyDtype>() {
        return named(Value::ScalarType(d.get().value));
    }
    if let Ok(d) = obj.cast::<PyDevice>() {
        return named(Value::Device(d.get().value));
    }
    if let Ok(l) = obj.cast::<PyLayout>() {
        return named(Value::Layout(l.get().value));
    }
    if let Ok(m) = obj.cast::<PyMemoryFormat>() {
        return named(Value::MemoryFormat(m.get().value));
    }
    if let Ok(q) = obj.cast::<PyQScheme>() {
        return named(Value::QScheme(q.get().value));
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return named(Value::Complex(Complex {
            re: c.real(),
            im: c.imag(),
        }));
    }
    // `float`, `int`, `bool`, `complex` themselves stand for dtypes (PyTorch's
    // `THPPythonScalarType_Check`).
    for (ty, dtype) in [
        (py.get_type::<PyFloat>(), ScalarType::Double),
        (py.get_type::<PyInt>(), ScalarType::Long),
        (py.get_type::<PyBool>(), ScalarType::Bool),
        (py.get_type::<PyComplex>(), ScalarType::ComplexDouble),
    ] {
        if obj.is(&ty) {
            return named(Value::PyType(dtype));
        }
    }
    let name = type_name(obj);
    if name.starts_with("numpy.")
        && let Some(v) = numpy_scalar(obj, &name)
    {
        return Arg::named(v, name);
    }
    let index = obj.hasattr("__index__").unwrap_or(false);
    if index
        && let Ok(i) = obj
            .call_method0("__index__")
            .and_then(|i| i.extract::<i64>())
    {
        return Arg::named(Value::Index(i), name);
    }
    Arg::named(Value::Other, name)
}

/// NumPy's scalars: integers are ints to PyTorch (`is_numpy_int`), `bool_` a number that is
/// not a `bool`, floating-point ones floats.
fn numpy_scalar<'a, T>(obj: &Bound<'_, PyAny>, name: &str) -> Option<Value<'a, T>> {
    let kind = name.trim_start_matches("numpy.");
    if kind.starts_with("bool") {
        return obj.is_truthy().ok().map(Value::NumpyBool);
    }
    if kind.starts_with("int") || kind.starts_with("uint") {
        return obj
            .call_method0("__index__")
            .ok()?
            .extract::<i64>()
            .ok()
            .map(Value::Int);
    }
    if kind.starts_with("float") {
        return obj
            .call_method0("__float__")
            .ok()?
            .extract::<f64>()
            .ok()
            .map(Value::Float);
    }
    if kind.starts_with("complex") {
        let c = obj.call_method0("__complex__").ok()?;
        let c = c.cast::<PyComplex>().ok()?;
        return Some(Value::Complex(Complex {
            re: c.real(),
            im: c.imag(),
        }));
    }
    None
}

/// `int` for an exact `int`, else the subclass's name (`numpy.float64`).
fn name_of(obj: &Bound<'_, PyAny>, exact: &'static str) -> Cow<'static, str> {
    let exact_type = match exact {
        "int" => obj.is_exact_instance_of::<PyInt>(),
        "float" => obj.is_exact_instance_of::<PyFloat>(),
        "list" => obj.is_exact_instance_of::<PyList>(),
        "tuple" => obj.is_exact_instance_of::<PyTuple>(),
        "str" => obj.is_exact_instance_of::<PyString>(),
        _ => true,
    };
    if exact_type {
        Cow::Borrowed(exact)
    } else {
        Cow::Owned(type_name(obj))
    }
}
