//! Python arguments as the parser sees them, in plain Rust: the binding layer classifies each
//! Python object once ([`Value`]) and keeps its type name for messages; the tensor type says
//! what the parser needs to know of a tensor passed where a number is expected
//! ([`TensorFacts`]).

use std::borrow::Cow;

use opgen_core::dispatch::{
    Complex, Device, Error, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage,
    Stream, Tensor,
};

/// One Python argument: what it is, and `type(obj)`'s name as PyTorch prints it (`int`,
/// `str`, `Tensor`, `numpy.float64`).
#[derive(Debug)]
pub struct Arg<'a, T> {
    /// The classified value.
    pub value: Value<'a, T>,
    /// The Python type's name.
    pub type_name: Cow<'a, str>,
}

impl<'a, T> Arg<'a, T> {
    /// An argument with the usual type name of its value (`int` for `Value::Int`).
    pub fn new(value: Value<'a, T>) -> Arg<'a, T> {
        let type_name = Cow::Borrowed(value.default_type_name());
        Arg { value, type_name }
    }

    /// An argument with the given type name.
    pub fn named(value: Value<'a, T>, type_name: impl Into<Cow<'a, str>>) -> Arg<'a, T> {
        Arg {
            value,
            type_name: type_name.into(),
        }
    }
}

/// A Python object, classified as PyTorch's parser distinguishes them.
#[derive(Debug)]
pub enum Value<'a, T> {
    /// `None`.
    None,
    /// `True` or `False` (a Python `bool`: an `int` to `float` checks, not to `int` checks).
    Bool(bool),
    /// An `int` that fits in 64 bits, or a NumPy integer (`THPUtils_checkLong`).
    Int(i64),
    /// An `int` beyond 64 bits.
    BigInt,
    /// A `float` or a NumPy floating-point number.
    Float(f64),
    /// A NumPy `bool_` (a number, but not a Python `bool`).
    NumpyBool(bool),
    /// A `complex`.
    Complex(Complex),
    /// A `str`.
    Str(Cow<'a, str>),
    /// A tensor of the module's tensor type.
    Tensor(&'a T),
    /// A `list` or a `tuple`.
    List {
        /// A `tuple` (else a `list`).
        tuple: bool,
        /// The items.
        items: Vec<Arg<'a, T>>,
    },
    /// A dtype object (`float32`).
    ScalarType(ScalarType),
    /// One of the types `float`, `int`, `bool`, `complex`, which PyTorch takes as dtypes.
    PyType(ScalarType),
    /// A layout object.
    Layout(Layout),
    /// A memory format object.
    MemoryFormat(MemoryFormat),
    /// A quantization scheme object.
    QScheme(QScheme),
    /// A device object.
    Device(Device),
    /// A generator.
    Generator(Generator),
    /// A storage.
    Storage(Storage),
    /// A stream.
    Stream(Stream),
    /// Another object with `__index__` (an integer for `SymInt` parameters), and its value.
    Index(i64),
    /// Anything else.
    Other,
}

impl<T> Value<'_, T> {
    /// The name Python gives the type of such a value, for the values whose type is fixed.
    pub fn default_type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt => "int",
            Value::Float(_) => "float",
            Value::NumpyBool(_) => "numpy.bool_",
            Value::Complex(_) => "complex",
            Value::Str(_) => "str",
            Value::Tensor(_) => "Tensor",
            Value::List { tuple: true, .. } => "tuple",
            Value::List { tuple: false, .. } => "list",
            Value::ScalarType(_) => "torch.dtype",
            Value::PyType(_) => "type",
            Value::Layout(_) => "torch.layout",
            Value::MemoryFormat(_) => "torch.memory_format",
            Value::QScheme(_) => "torch.qscheme",
            Value::Device(_) => "torch.device",
            Value::Generator(_) => "torch.Generator",
            Value::Storage(_) => "torch.Storage",
            Value::Stream(_) => "torch.Stream",
            Value::Index(_) | Value::Other => "object",
        }
    }

    /// The value as a `Scalar`, for the Python numbers (`THPUtils_checkScalar`).
    pub fn number(&self) -> Option<Scalar> {
        Some(match self {
            Value::Bool(b) | Value::NumpyBool(b) => Scalar::Bool(*b),
            Value::Int(i) => Scalar::Int(*i),
            Value::Float(f) => Scalar::Float(*f),
            Value::Complex(c) => Scalar::Complex(*c),
            _ => return None,
        })
    }

    /// A Python number (`THPUtils_checkScalar`): `bool`, `int`, `float`, `complex`, a NumPy
    /// scalar.
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Value::Bool(_)
                | Value::Int(_)
                | Value::BigInt
                | Value::Float(_)
                | Value::NumpyBool(_)
                | Value::Complex(_)
        )
    }

    /// `THPUtils_checkDouble`: a `float`, an `int` (`bool` included), a NumPy scalar.
    pub fn is_double(&self) -> bool {
        matches!(
            self,
            Value::Bool(_) | Value::Int(_) | Value::BigInt | Value::Float(_) | Value::NumpyBool(_)
        )
    }

    /// `THPUtils_checkLong`: an `int` that is not a `bool`, a NumPy integer.
    pub fn is_long(&self) -> bool {
        matches!(self, Value::Int(_) | Value::BigInt)
    }
}

/// What the Python layer needs to know of a tensor type beyond [`Tensor`]: a tensor's rank,
/// element count and dtype (a zero-dim tensor can be passed for a number), its value when it
/// has one element, and whether Python numbers can become tensors of this type.
///
/// It is implemented on a type of the binding crate (a marker, say), not on the tensor type,
/// so that a crate can bind a tensor type it does not own. The defaults use the [`Tensor`]
/// hooks `sizes` and `options`.
pub trait TensorFacts: 'static {
    /// The tensor type.
    type Tensor: Tensor;

    /// Whether [`TensorFacts::wrapped_number`] makes tensors: then the operators PyTorch lets
    /// take Python numbers for tensors (`add`, `mul`, `sub`, `div`, ...) do so, and their
    /// `Scalar` overloads are left out of the functions and methods, as in PyTorch.
    const WRAPS_NUMBERS: bool = false;

    /// The number of dimensions.
    fn ndim(t: &Self::Tensor) -> Option<usize> {
        t.sizes().ok().map(|s| s.len())
    }

    /// The number of elements.
    fn numel(t: &Self::Tensor) -> Option<i64> {
        t.sizes().ok().map(|s| s.iter().product())
    }

    /// The dtype.
    fn scalar_type(t: &Self::Tensor) -> Option<ScalarType> {
        t.options().ok().and_then(|o| o.dtype)
    }

    /// Whether the tensor requires gradients (such tensors are not taken for numbers). The
    /// default asks autograd (`false` for a type that does not take part in it).
    fn requires_grad(t: &Self::Tensor) -> bool {
        opgen_core::autograd::requires_grad(t)
    }

    /// The value of a one-element tensor (PyTorch's `item()`).
    fn item(t: &Self::Tensor) -> Result<Scalar, Error> {
        let _ = t;
        Err(Error::from(
            "this tensor type cannot read a tensor's value as a number",
        ))
    }

    /// A Python number as a zero-dim tensor that type promotion treats as a number
    /// (PyTorch's wrapped number), if the type has them (see [`TensorFacts::WRAPS_NUMBERS`]).
    fn wrapped_number(value: Scalar) -> Result<Self::Tensor, Error> {
        let _ = value;
        Err(Error::from("this tensor type has no wrapped numbers"))
    }
}

/// Whether `dtype` is an integer type (`Bool` only with `include_bool`).
pub fn is_integral(dtype: ScalarType, include_bool: bool) -> bool {
    use ScalarType as S;
    match dtype {
        S::Byte | S::Char | S::Short | S::Int | S::Long | S::UInt16 | S::UInt32 | S::UInt64 => true,
        S::Bool => include_bool,
        _ => false,
    }
}
