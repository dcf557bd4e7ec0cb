//! The parameter types of PyTorch's Python argument parser, and the three spellings of each
//! schema type the Python layer needs: the parser's (`IntArrayRef[2]`, which also orders
//! overloads), the one errors show (`tuple of ints`), and the stub's (`Union[_int, _size]`).

use opgen_core::schema::{ArgType, BaseType};

/// A parameter type of PyTorch's `PythonArgParser` (`ParameterType`), plus `BoolList` for
/// `bool[N]`, which PyTorch binds only in functions it keeps out of Python.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `Tensor`, `Tensor?`.
    Tensor,
    /// `Scalar`: a number, or a zero-dim tensor.
    Scalar,
    /// `int`, `DeviceIndex`.
    Int64,
    /// `SymInt`.
    SymInt,
    /// `float`.
    Double,
    /// A complex number (no schema type maps here; kept for completeness of the parser).
    Complex,
    /// `Tensor[]`, `Tensor?[]`.
    TensorList,
    /// `int[]`, `int[N]`, `DimVector`.
    IntList,
    /// `SymInt[]`, `SymInt[N]`.
    SymIntList,
    /// `float[]`.
    FloatList,
    /// `Generator`.
    Generator,
    /// `bool`, `SymBool`.
    Bool,
    /// `Storage`.
    Storage,
    /// `ScalarType`.
    ScalarType,
    /// `Layout`.
    Layout,
    /// `MemoryFormat`.
    MemoryFormat,
    /// `QScheme`.
    QScheme,
    /// `Device`.
    Device,
    /// `Stream`.
    Stream,
    /// `str`.
    String,
    /// `Scalar[]`.
    ScalarList,
    /// `bool[N]` (an opgen extension: a list or tuple of bools).
    BoolList,
}

impl ParamType {
    /// The type as PyTorch's messages name it (`FunctionParameter::type_name`).
    pub fn type_name(self) -> &'static str {
        match self {
            ParamType::Tensor => "Tensor",
            ParamType::Scalar => "Number",
            ParamType::Int64 | ParamType::SymInt => "int",
            ParamType::Double => "float",
            ParamType::Complex => "complex",
            ParamType::TensorList => "tuple of Tensors",
            ParamType::IntList | ParamType::SymIntList => "tuple of ints",
            ParamType::FloatList => "tuple of floats",
            ParamType::Generator => "torch.Generator",
            ParamType::Bool => "bool",
            ParamType::Storage => "torch.Storage",
            ParamType::ScalarType => "torch.dtype",
            ParamType::Layout => "torch.layout",
            ParamType::MemoryFormat => "torch.memory_format",
            ParamType::QScheme => "torch.qscheme",
            ParamType::Device => "torch.device",
            ParamType::Stream => "Stream",
            ParamType::String => "str",
            ParamType::ScalarList => "tuple of Scalars",
            ParamType::BoolList => "tuple of bools",
        }
    }

    /// Whether the type is a list type that a single value may stand for when the list has a
    /// fixed size (`int[2] stride=1`, `stride=2`).
    pub fn is_int_list(self) -> bool {
        matches!(self, ParamType::IntList | ParamType::SymIntList)
    }
}

/// The parser type of a schema type: the [`ParamType`], the fixed list size (0 if none) and
/// whether `None` is accepted (`T?`). `None` if the Python layer cannot take the type (a
/// `GraphModule`, a custom class, a list of optionals other than `Tensor?[]`, ...).
pub fn param_type(ty: &ArgType) -> Option<(ParamType, u32, bool)> {
    let (inner, allow_none) = match ty {
        ArgType::Optional(t) => (&**t, true),
        t => (t, false),
    };
    let (param, size) = match inner {
        ArgType::Base(base) => (base_param(*base)?, 0),
        ArgType::List { elem, size } => (list_param(elem)?, size.unwrap_or(0)),
        ArgType::Optional(_) | ArgType::CustomClass(_) => return None,
    };
    Some((param, size, allow_none))
}

fn base_param(base: BaseType) -> Option<ParamType> {
    Some(match base {
        BaseType::Tensor => ParamType::Tensor,
        BaseType::Scalar => ParamType::Scalar,
        BaseType::Int | BaseType::DeviceIndex => ParamType::Int64,
        BaseType::SymInt => ParamType::SymInt,
        BaseType::Float => ParamType::Double,
        BaseType::Bool | BaseType::SymBool => ParamType::Bool,
        BaseType::Str => ParamType::String,
        BaseType::ScalarType => ParamType::ScalarType,
        BaseType::Layout => ParamType::Layout,
        BaseType::Device => ParamType::Device,
        BaseType::MemoryFormat => ParamType::MemoryFormat,
        BaseType::Generator => ParamType::Generator,
        BaseType::Storage => ParamType::Storage,
        BaseType::Stream => ParamType::Stream,
        BaseType::QScheme => ParamType::QScheme,
        BaseType::DimVector => ParamType::IntList,
        BaseType::GraphModule => return None,
    })
}

fn list_param(elem: &ArgType) -> Option<ParamType> {
    Some(match elem {
        ArgType::Base(BaseType::Int) => ParamType::IntList,
        ArgType::Base(BaseType::SymInt) => ParamType::SymIntList,
        ArgType::Base(BaseType::Tensor) => ParamType::TensorList,
        ArgType::Base(BaseType::Float) => ParamType::FloatList,
        ArgType::Base(BaseType::Scalar) => ParamType::ScalarList,
        ArgType::Base(BaseType::Bool) => ParamType::BoolList,
        ArgType::Optional(t) if **t == ArgType::Base(BaseType::Tensor) => ParamType::TensorList,
        _ => return None,
    })
}

/// torchgen's `argument_type_str` (with `symint=True`, `const ` and ` &` removed): the type
/// as PyTorch's parser signature strings spell it. Overloads are sorted by these strings.
pub fn parser_type_str(ty: &ArgType) -> String {
    match ty {
        ArgType::Base(base) => parser_base_str(*base).to_string(),
        ArgType::Optional(t) => format!("{}?", parser_type_str(t)),
        ArgType::List { elem, size } => {
            let sized = |name: &str| match size {
                Some(n) => format!("{name}[{n}]"),
                None => name.to_string(),
            };
            match &**elem {
                ArgType::Base(BaseType::Bool) => {
                    format!("::std::array<bool,{}>", size.unwrap_or(0))
                }
                ArgType::Base(BaseType::Int) => sized("IntArrayRef"),
                ArgType::Base(BaseType::SymInt) => sized("SymIntArrayRef"),
                ArgType::Base(BaseType::Tensor) => sized("TensorList"),
                ArgType::Base(BaseType::Scalar) => sized("ScalarList"),
                ArgType::Optional(t) if **t == ArgType::Base(BaseType::Tensor) => {
                    "c10::List<::std::optional<Tensor>>".to_string()
                }
                other => format!("ArrayRef<{}>", parser_type_str(other)),
            }
        }
        ArgType::CustomClass(name) => name.to_string(),
    }
}

fn parser_base_str(base: BaseType) -> &'static str {
    match base {
        BaseType::Tensor => "Tensor",
        BaseType::Int => "int64_t",
        BaseType::Float => "double",
        BaseType::Str => "::std::string_view",
        other => other.as_str(),
    }
}

/// torchgen's `argument_type_str_pyi`: the type of an argument in a `.pyi` stub.
pub fn pyi_arg_type(ty: &ArgType) -> String {
    let (ty, mut optional) = match ty {
        ArgType::Optional(t) => (&**t, true),
        t => (t, false),
    };
    let text = match ty {
        ArgType::Base(base) => pyi_base(*base).to_string(),
        ArgType::List { elem, size } => match &**elem {
            ArgType::Base(BaseType::Int) if size.is_some() => "Union[_int, _size]".to_string(),
            ArgType::Base(BaseType::Int) => "_size".to_string(),
            elem if elem.is_tensor_like() => {
                optional |= elem.is_optional();
                if size.is_some() {
                    "Union[Tensor, tuple[Tensor, ...], list[Tensor]]".to_string()
                } else {
                    "Union[tuple[Tensor, ...], list[Tensor]]".to_string()
                }
            }
            ArgType::Base(BaseType::Float) => "Sequence[_float]".to_string(),
            ArgType::Base(BaseType::SymInt) if size.is_some() => {
                let elem = pyi_base(BaseType::SymInt);
                format!("Union[{elem}, Sequence[{elem}]]")
            }
            elem => format!("Sequence[{}]", pyi_arg_type(elem)),
        },
        ArgType::Optional(_) | ArgType::CustomClass(_) => "Any".to_string(),
    };
    if optional {
        format!("Optional[{text}]")
    } else {
        text
    }
}

fn pyi_base(base: BaseType) -> &'static str {
    match base {
        BaseType::Int | BaseType::DeviceIndex => "_int",
        BaseType::SymInt => "Union[_int, SymInt]",
        BaseType::Float => "_float",
        BaseType::Str => "str",
        BaseType::Scalar => "Union[Number, _complex]",
        BaseType::ScalarType => "_dtype",
        BaseType::Bool | BaseType::SymBool => "_bool",
        BaseType::QScheme => "_qscheme",
        BaseType::Layout => "_layout",
        BaseType::Device => "Optional[DeviceLikeType]",
        BaseType::MemoryFormat => "memory_format",
        BaseType::Storage => "Storage",
        BaseType::Tensor => "Tensor",
        BaseType::Generator => "Generator",
        BaseType::Stream => "Stream",
        BaseType::DimVector => "_size",
        BaseType::GraphModule => "Any",
    }
}

/// torchgen's `return_type_str_pyi`: the type of a return in a `.pyi` stub.
pub fn pyi_return_type(ty: &ArgType) -> String {
    match ty {
        ArgType::Optional(t) => format!("Optional[{}]", pyi_return_type(t)),
        ArgType::Base(BaseType::Device) => "_device".to_string(),
        ArgType::List { elem, .. } => format!("tuple[{}, ...]", pyi_return_type(elem)),
        other => pyi_arg_type(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opgen_core::schema::parse_type;

    fn ty(s: &str) -> ArgType {
        parse_type(s).unwrap()
    }

    #[test]
    fn parser_strings_are_torchgens() {
        let cases = [
            ("Tensor", "Tensor"),
            ("Tensor?", "Tensor?"),
            ("int", "int64_t"),
            ("int?", "int64_t?"),
            ("float", "double"),
            ("str?", "::std::string_view?"),
            ("int[2]", "IntArrayRef[2]"),
            ("int[1]?", "IntArrayRef[1]?"),
            ("SymInt[]", "SymIntArrayRef"),
            ("Tensor[]", "TensorList"),
            ("Tensor?[]", "c10::List<::std::optional<Tensor>>"),
            ("float[]?", "ArrayRef<double>?"),
            ("bool[3]", "::std::array<bool,3>"),
            ("Scalar", "Scalar"),
            ("ScalarType?", "ScalarType?"),
            ("SymInt", "SymInt"),
        ];
        for (schema, parser) in cases {
            assert_eq!(parser_type_str(&ty(schema)), parser, "{schema}");
        }
    }

    #[test]
    fn param_types_follow_the_parsers_type_map() {
        assert_eq!(
            param_type(&ty("Tensor?")),
            Some((ParamType::Tensor, 0, true))
        );
        assert_eq!(
            param_type(&ty("int[2]")),
            Some((ParamType::IntList, 2, false))
        );
        assert_eq!(
            param_type(&ty("SymInt[]?")),
            Some((ParamType::SymIntList, 0, true))
        );
        assert_eq!(
            param_type(&ty("Tensor?[]")),
            Some((ParamType::TensorList, 0, false))
        );
        assert_eq!(
            param_type(&ty("DeviceIndex")),
            Some((ParamType::Int64, 0, false))
        );
        assert_eq!(param_type(&ty("GraphModule")), None);
        assert_eq!(param_type(&ty("str[]")), None);
        assert_eq!(ParamType::Scalar.type_name(), "Number");
        assert_eq!(ParamType::SymIntList.type_name(), "tuple of ints");
    }

    #[test]
    fn stub_types_are_torchgens() {
        assert_eq!(pyi_arg_type(&ty("Scalar")), "Union[Number, _complex]");
        assert_eq!(pyi_arg_type(&ty("int[1]?")), "Optional[Union[_int, _size]]");
        assert_eq!(
            pyi_arg_type(&ty("Tensor?[]")),
            "Optional[Union[tuple[Tensor, ...], list[Tensor]]]"
        );
        assert_eq!(pyi_arg_type(&ty("ScalarType?")), "Optional[_dtype]");
        assert_eq!(
            pyi_arg_type(&ty("SymInt[]")),
            "Sequence[Union[_int, SymInt]]"
        );
        assert_eq!(pyi_return_type(&ty("Tensor[]")), "tuple[Tensor, ...]");
        assert_eq!(pyi_return_type(&ty("Device")), "_device");
    }
}
