//! What the tracer records: a [`Trace`] of [`TraceNode`]s over [`TraceValue`]s, and how it
//! prints.

use std::fmt::{self, Write as _};

use crate::dispatch::{IValue, Scalar};

/// A value in a [`Trace`].
///
/// ```
/// use opgen_core::cross::TraceValue;
/// let list = TraceValue::List(vec![TraceValue::Tensor(3), TraceValue::None]);
/// assert_eq!(list.to_string(), "[%3, None]");
/// assert_eq!(TraceValue::Constant("True".into()).to_string(), "True");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum TraceValue {
    /// A tensor, by its number (`%3`).
    Tensor(usize),
    /// An absent optional.
    None,
    /// A list (`Tensor[]`, `Tensor?[]`).
    List(Vec<TraceValue>),
    /// Any other value, in schema syntax (`1`, `0.5`, `True`, `[0, 1]`, `"mean"`).
    Constant(String),
}

/// One recorded call.
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
/// let (x, y) = (MyTensor(Arc::new(vec![1, 2])), MyTensor(Arc::new(vec![3, 4])));
/// let tracing = start_tracing::<MyTensor>();
/// add.call(&x, &y, Scalar::Int(2));
/// let trace = tracing.finish();
/// let node = &trace.nodes()[0];
/// assert_eq!(node.operator, "demo::add");
/// assert_eq!(node.inputs[2], (Some("alpha".to_string()), TraceValue::Constant("2".into())));
/// assert_eq!(node.outputs, [TraceValue::Tensor(2)]);
/// assert_eq!((trace.inputs(), trace.shape(2)), (&[0, 1][..], Some(&[2][..])));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TraceNode {
    /// The operator, `ns::op.overload`.
    pub operator: String,
    /// The arguments in schema order, each with its name if it is keyword-only.
    pub inputs: Vec<(Option<String>, TraceValue)>,
    /// The returns.
    pub outputs: Vec<TraceValue>,
}

/// A recorded trace: the tensors it met first as inputs, and one node per traced call.
/// Tensors are numbered in the order the trace meets them; every output is a new number.
///
/// Its `Display` prints one line per call, with the shape of each tensor when the tensor
/// type implements [`Tensor::sizes`](crate::dispatch::Tensor::sizes):
///
/// ```text
/// graph(%0 : [2], %1 : [2]):
///   %2 : [2] = aten::add.Tensor(%0, %1, alpha=1)
///   %3 : [2] = aten::mul_.Tensor(%2, %1)
/// ```
///
/// ```
/// use opgen_core::cross::Trace;
/// assert_eq!(Trace::default().to_string(), "graph():\n");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    pub(super) inputs: Vec<usize>,
    pub(super) nodes: Vec<TraceNode>,
    shapes: Vec<Option<Vec<i64>>>,
}

impl Trace {
    /// The numbers of the tensors met first as inputs, in order.
    pub fn inputs(&self) -> &[usize] {
        &self.inputs
    }

    /// The recorded calls, in order.
    pub fn nodes(&self) -> &[TraceNode] {
        &self.nodes
    }

    /// The shape of tensor `%n`, if the tensor type reported it.
    pub fn shape(&self, n: usize) -> Option<&[i64]> {
        self.shapes.get(n).and_then(|s| s.as_deref())
    }

    pub(super) fn new_value(&mut self, shape: Option<Vec<i64>>) -> usize {
        self.shapes.push(shape);
        self.shapes.len() - 1
    }

    fn write_typed(&self, f: &mut fmt::Formatter<'_>, value: &TraceValue) -> fmt::Result {
        match value {
            TraceValue::Tensor(n) => {
                write!(f, "%{n}")?;
                match self.shape(*n) {
                    Some(shape) => write!(f, " : {shape:?}"),
                    None => Ok(()),
                }
            }
            TraceValue::List(items) => {
                f.write_char('[')?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    self.write_typed(f, item)?;
                }
                f.write_char(']')
            }
            other => write!(f, "{other}"),
        }
    }
}

impl fmt::Display for TraceValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceValue::Tensor(n) => write!(f, "%{n}"),
            TraceValue::None => f.write_str("None"),
            TraceValue::List(items) => {
                f.write_char('[')?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_char(']')
            }
            TraceValue::Constant(text) => f.write_str(text),
        }
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("graph(")?;
        for (i, n) in self.inputs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            self.write_typed(f, &TraceValue::Tensor(*n))?;
        }
        f.write_str("):\n")?;
        for node in &self.nodes {
            f.write_str("  ")?;
            for (i, output) in node.outputs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                self.write_typed(f, output)?;
            }
            if !node.outputs.is_empty() {
                f.write_str(" = ")?;
            }
            write!(f, "{}(", node.operator)?;
            for (i, (name, value)) in node.inputs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                match name {
                    Some(name) => write!(f, "{name}={value}")?,
                    None => write!(f, "{value}")?,
                }
            }
            f.write_str(")\n")?;
        }
        Ok(())
    }
}

/// A value that holds no tensor, in schema syntax.
pub(super) fn constant_text<T>(value: &IValue<T>) -> String {
    fn list<V>(items: &[V], item: impl Fn(&V) -> String) -> String {
        let items: Vec<String> = items.iter().map(item).collect();
        format!("[{}]", items.join(", "))
    }
    let python_bool = |b: &bool| Scalar::Bool(*b).to_string();
    match value {
        IValue::None => "None".into(),
        IValue::Bool(b) => python_bool(b),
        IValue::Int(i) => i.to_string(),
        IValue::Float(x) => format!("{x:?}"),
        IValue::Complex(c) => Scalar::Complex(**c).to_string(),
        IValue::Str(s) => format!("{s:?}"),
        IValue::IntList(v) => list(v, i64::to_string),
        IValue::FloatList(v) => list(v, |x| format!("{x:?}")),
        IValue::BoolList(v) => list(v, python_bool),
        IValue::ScalarList(v) => list(v, Scalar::to_string),
        IValue::List(v) => v.to_string(),
        IValue::ScalarType(v) => v.to_string(),
        IValue::Layout(v) => v.to_string(),
        IValue::Device(v) => format!("\"{v}\""),
        IValue::MemoryFormat(v) => v.to_string(),
        IValue::QScheme(v) => v.to_string(),
        IValue::Dimname(v) => format!("{:?}", v.as_str()),
        IValue::Tuple(v) => {
            let items: Vec<String> = v.iter().map(constant_text).collect();
            format!("({})", items.join(", "))
        }
        IValue::Tensor(_)
        | IValue::TensorList(_)
        | IValue::OptionalTensorList(_)
        | IValue::Generator(_)
        | IValue::Storage(_)
        | IValue::Stream(_) => value.kind().to_string(),
    }
}
