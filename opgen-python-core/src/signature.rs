//! Python signatures of schemas: torchgen's `PythonSignature` (`torchgen/api/python.py`) for
//! functions and methods, and the schema's own signature for `ops.<ns>.<op>.<overload>`.

use std::fmt::Write as _;

use opgen_core::schema::{ArgType, Argument, BaseType, Return, Schema, SmolStr};

use crate::defaults::python_default;
use crate::types::{ParamType, param_type, parser_type_str};

/// Which Python surface a signature is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// `ops.<ns>.<op>.<overload>`: the schema's arguments as written (`self` stays `self`,
    /// each out argument is a keyword of its own), as `torch.ops` takes them.
    Ops,
    /// A module-level function: torchgen's Python signature (`self` is called `input`, the
    /// out arguments are one `out=` keyword, factories take `dtype`, `layout`, `device`,
    /// `pin_memory`).
    Function,
    /// A tensor method: the function's signature without `self`.
    Method,
}

/// Where a parameter's value goes in the schema it was made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// The schema argument of this name.
    Arg(SmolStr),
    /// The out arguments of these names: one tensor for one, a tuple for several.
    Out(Vec<SmolStr>),
}

/// One parameter of a Python signature (PyTorch's `FunctionParameter`).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The keyword that names it (`input` for a function's `self`).
    pub name: SmolStr,
    /// The parser type.
    pub ty: ParamType,
    /// The fixed list size (`int[2]`), 0 if none.
    pub size: u32,
    /// `None` is accepted (a `T?` type, or a `None` default).
    pub allow_none: bool,
    /// The default as PyTorch's signatures print it; the parameter may be left out if set.
    pub default: Option<String>,
    /// After `*`.
    pub keyword_only: bool,
    /// Python numbers are accepted as tensors (PyTorch's `should_allow_numbers_as_tensors`).
    pub numbers_as_tensors: bool,
    /// The schema type (for ordering overloads and for stubs).
    pub schema_type: ArgType,
    /// Where the value goes.
    pub source: Source,
}

impl Param {
    /// Whether the parameter may be left out (it has a default).
    pub fn optional(&self) -> bool {
        self.default.is_some()
    }

    /// PyTorch's `numpy_compatibility_arg_names`: other keywords accepted for this one.
    pub fn numpy_names(&self) -> &'static [&'static str] {
        match self.name.as_str() {
            "dim" => &["axis"],
            "keepdim" => &["keepdims"],
            "input" => &["x", "a", "x1"],
            "other" => &["x2"],
            _ => &[],
        }
    }
}

/// A Python signature: the parameters PyTorch's argument parser matches a call against.
#[derive(Debug, Clone, PartialEq)]
pub struct PySignature {
    /// The name in messages: `add`, `add_`, `aten::add` for the `ops` surface.
    pub name: String,
    /// Parameters: positional ones, keyword-only ones, `out`, then the tensor options.
    pub params: Vec<Param>,
    /// The index of the `out` parameter, if any.
    pub out: Option<usize>,
    /// The number of tensor-option parameters (`dtype`, `layout`, `device`, `pin_memory`,
    /// `requires_grad`) at the end.
    pub tensor_options: usize,
    /// The returns (for stubs and named tuples).
    pub returns: Vec<Return>,
    /// A method signature (`self` is the receiver).
    pub method: bool,
}

/// Why a schema has no Python signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The argument whose type the Python layer cannot take.
    pub argument: String,
    /// Its schema type.
    pub ty: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "argument `{}` has type `{}`, which Python arguments cannot be converted to",
            self.argument, self.ty
        )
    }
}

/// What a signature needs besides the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignatureOptions {
    /// The tensor type turns Python numbers into tensors (PyTorch's wrapped numbers), so the
    /// operators PyTorch lets take numbers for tensors do so.
    pub numbers_as_tensors: bool,
}

impl PySignature {
    /// The signature of `schema` for `flavor`.
    ///
    /// ```
    /// use opgen_core::schema::parse_schema;
    /// use opgen_python_core::{Flavor, PySignature, SignatureOptions};
    /// let add = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)").unwrap();
    /// let sig = PySignature::new(&add, Flavor::Function, SignatureOptions::default()).unwrap();
    /// assert_eq!(sig.parser_str(), "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)");
    /// assert_eq!(sig.to_string(), "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)");
    /// ```
    pub fn new(
        schema: &Schema,
        flavor: Flavor,
        options: SignatureOptions,
    ) -> Result<PySignature, Unsupported> {
        let mut sig = match flavor {
            Flavor::Ops => ops_signature(schema)?,
            Flavor::Function | Flavor::Method => {
                torchgen_signature(schema, flavor == Flavor::Method)?
            }
        };
        let numbers = options.numbers_as_tensors && allows_numbers_as_tensors(&sig.name);
        for p in &mut sig.params {
            p.numbers_as_tensors = numbers;
        }
        Ok(sig)
    }

    /// The number of parameters without a default (`min_args`).
    pub fn min_args(&self) -> usize {
        self.params.iter().filter(|p| !p.optional()).count()
    }

    /// The number of parameters (`max_args`).
    pub fn max_args(&self) -> usize {
        self.params.len()
    }

    /// The number of positional parameters (`max_pos_args`).
    pub fn max_pos_args(&self) -> usize {
        self.params.iter().filter(|p| !p.keyword_only).count()
    }

    /// The parser string torchgen writes for the signature (`signature_str`):
    /// `add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)`. With
    /// `skip_outputs`, without the `out` parameter (how torchgen pairs functional and out
    /// overloads).
    pub fn parser_str_with(&self, skip_outputs: bool) -> String {
        let mut formals: Vec<String> = Vec::new();
        let mut star = false;
        for (i, p) in self.params.iter().enumerate() {
            if skip_outputs && Some(i) == self.out {
                continue;
            }
            if p.keyword_only && !star {
                formals.push("*".into());
                star = true;
            }
            let ty = parser_type_str(&p.schema_type);
            match &p.default {
                Some(d) => formals.push(format!("{ty} {}={d}", p.name)),
                None => formals.push(format!("{ty} {}", p.name)),
            }
        }
        format!("{}({})", self.name, formals.join(", "))
    }

    /// [`PySignature::parser_str_with`], outputs included.
    pub fn parser_str(&self) -> String {
        self.parser_str_with(false)
    }

    /// The position of the `requires_grad` tensor option, if the signature has the tensor
    /// options (a factory, `*_like`, `new_*`): the binding marks the result as requiring grad
    /// when it is given `True`, as PyTorch's `set_requires_grad` after the call.
    ///
    /// ```
    /// use opgen_core::schema::parse_schema;
    /// use opgen_python_core::{Flavor, PySignature, SignatureOptions};
    /// let ones = parse_schema("ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor").unwrap();
    /// let sig = PySignature::new(&ones, Flavor::Function, SignatureOptions::default()).unwrap();
    /// assert_eq!(sig.requires_grad(), Some(5));
    /// assert!(sig.parser_str().ends_with("bool? pin_memory=False, bool? requires_grad=False)"));
    /// let neg = parse_schema("neg(Tensor self) -> Tensor").unwrap();
    /// assert_eq!(PySignature::new(&neg, Flavor::Function, SignatureOptions::default()).unwrap().requires_grad(), None);
    /// ```
    pub fn requires_grad(&self) -> Option<usize> {
        let first = self.params.len() - self.tensor_options;
        (first..self.params.len()).find(|&i| self.params[i].name == "requires_grad")
    }

    /// The parameters other than `out` (torchgen's `arguments(skip_outputs=True)`).
    pub fn params_without_out(&self) -> impl Iterator<Item = &Param> {
        (self.params.iter().enumerate())
            .filter(|(i, _)| Some(*i) != self.out)
            .map(|(_, p)| p)
    }
}

impl std::fmt::Display for PySignature {
    /// PyTorch's `FunctionSignature::toString`, what errors list:
    /// `(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::from("(");
        let mut star = false;
        for (i, p) in self.params.iter().enumerate() {
            if i != 0 {
                s.push_str(", ");
            }
            if p.keyword_only && !star {
                s.push_str("*, ");
                star = true;
            }
            let _ = write!(s, "{} {}", p.ty.type_name(), p.name);
            if let Some(d) = &p.default {
                let _ = write!(s, " = {d}");
            }
        }
        s.push(')');
        f.write_str(&s)
    }
}

/// PyTorch's `should_allow_numbers_as_tensors`: the functions whose tensor parameters take
/// Python numbers.
pub fn allows_numbers_as_tensors(name: &str) -> bool {
    const ALLOWED: [&str; 32] = [
        "add",
        "add_",
        "add_out",
        "div",
        "div_",
        "div_out",
        "divide",
        "divide_",
        "divide_out",
        "mul",
        "mul_",
        "mul_out",
        "multiply",
        "multiply_",
        "multiply_out",
        "sub",
        "sub_",
        "sub_out",
        "subtract",
        "subtract_",
        "subtract_out",
        "true_divide",
        "true_divide_",
        "true_divide_out",
        "to",
        "_to_copy",
        "copy_",
        "copy",
        "floor_divide",
        "floor_divide_",
        "floor_divide_out",
        "_conj",
    ];
    ALLOWED.contains(&name)
}

fn param(arg: &Argument, name: &str, keyword_only: bool) -> Result<Param, Unsupported> {
    let (ty, size, allow_none) = param_type(&arg.ty).ok_or_else(|| Unsupported {
        argument: arg.name.to_string(),
        ty: arg.ty.to_string(),
    })?;
    let default = python_default(arg);
    Ok(Param {
        name: name.into(),
        ty,
        size,
        allow_none: allow_none || default.as_deref() == Some("None"),
        default,
        keyword_only,
        numbers_as_tensors: false,
        schema_type: arg.ty.clone(),
        source: Source::Arg(arg.name.clone()),
    })
}

/// The schema's arguments as they are: `ops.aten.add.Tensor(self, other, *, alpha=1)`.
fn ops_signature(schema: &Schema) -> Result<PySignature, Unsupported> {
    let params = (schema.arguments.iter())
        .map(|a| param(a, &a.name, a.kwarg_only))
        .collect::<Result<Vec<_>, _>>()?;
    let name = match &schema.name.namespace {
        Some(ns) => format!("{ns}::{}", schema.name.name),
        None => schema.name.name.to_string(),
    };
    Ok(PySignature {
        name,
        params,
        out: None,
        tensor_options: 0,
        returns: schema.returns.clone(),
        method: false,
    })
}

/// torchgen's `signature_from_schema`.
fn torchgen_signature(schema: &Schema, method: bool) -> Result<PySignature, Unsupported> {
    let self_index = schema.self_index();
    let out_start = schema.out_start();
    let options = schema.tensor_options_start().map(|i| i..i + 4);
    let mut params = Vec::new();
    for (i, arg) in schema.arguments[..out_start].iter().enumerate() {
        if (method && Some(i) == self_index) || options.as_ref().is_some_and(|o| o.contains(&i)) {
            continue;
        }
        let rename = !method && Some(i) == self_index && arg.ty.is_plain_tensor();
        let name = if rename { "input" } else { arg.name.as_str() };
        params.push(param(arg, name, arg.kwarg_only)?);
    }
    let out = out_param(&schema.arguments[out_start..])?;
    let out_index = out.as_ref().map(|_| params.len());
    params.extend(out);
    // As torchgen: every factory (and `new_*`, `*_like`) takes them, out overloads too,
    // whether or not its schema has TensorOptions (then they bind to nothing).
    let mut tensor_options = 0;
    if is_factory(schema) || is_like_or_new(schema) {
        let options = tensor_options_params();
        tensor_options = options.len();
        params.extend(options);
    }
    Ok(PySignature {
        name: schema.name.name.to_string(),
        params,
        out: out_index,
        tensor_options,
        returns: schema.returns.clone(),
        method,
    })
}

/// torchgen's `PythonOutArgument.from_outputs`: one out argument keeps its name; several
/// are one `out` tuple.
fn out_param(outs: &[Argument]) -> Result<Option<Param>, Unsupported> {
    let Some(first) = outs.first() else {
        return Ok(None);
    };
    let (name, ty) = if outs.len() == 1 {
        (first.name.clone(), first.ty.clone())
    } else {
        if let Some(bad) = outs.iter().find(|a| !a.ty.is_tensor_like()) {
            return Err(Unsupported {
                argument: bad.name.to_string(),
                ty: bad.ty.to_string(),
            });
        }
        let n = u32::try_from(outs.len()).unwrap_or(u32::MAX);
        (
            SmolStr::new("out"),
            ArgType::list(ArgType::Base(BaseType::Tensor), Some(n)),
        )
    };
    let (pty, size, _) = param_type(&ty).ok_or_else(|| Unsupported {
        argument: name.to_string(),
        ty: ty.to_string(),
    })?;
    Ok(Some(Param {
        name,
        ty: pty,
        size,
        allow_none: true,
        default: Some("None".into()),
        keyword_only: true,
        numbers_as_tensors: false,
        schema_type: ty,
        source: Source::Out(outs.iter().map(|a| a.name.clone()).collect()),
    }))
}

/// torchgen's factory test: a tensor return and no tensor argument.
fn is_factory(schema: &Schema) -> bool {
    let out_start = schema.out_start();
    schema.has_tensor_like_return()
        && !schema.arguments[..out_start]
            .iter()
            .any(|a| a.ty.is_tensor_like())
}

fn is_like_or_new(schema: &Schema) -> bool {
    let name = schema.name.name.to_string();
    name.starts_with("new_") || name.ends_with("_like")
}

/// The Python tensor options (`dtype=None, layout=None, device=None, pin_memory=False,
/// requires_grad=False`), as torchgen's `tensor_options_args`: the first four bind to the
/// schema's TensorOptions arguments; `requires_grad` binds to none, it marks the result (see
/// [`PySignature::requires_grad`]).
fn tensor_options_params() -> Vec<Param> {
    let opts: [(&str, BaseType, &str); 5] = [
        ("dtype", BaseType::ScalarType, "None"),
        ("layout", BaseType::Layout, "None"),
        ("device", BaseType::Device, "None"),
        ("pin_memory", BaseType::Bool, "False"),
        ("requires_grad", BaseType::Bool, "False"),
    ];
    opts.iter()
        .map(|(name, base, default)| {
            let ty = ArgType::optional(ArgType::Base(*base));
            let (pty, size, _) = param_type(&ty).unwrap_or((ParamType::Bool, 0, true));
            Param {
                name: (*name).into(),
                ty: pty,
                size,
                allow_none: true,
                default: Some((*default).into()),
                keyword_only: true,
                numbers_as_tensors: false,
                schema_type: ty,
                source: Source::Arg((*name).into()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use opgen_core::schema::parse_schema;

    fn sig(schema: &str, flavor: Flavor) -> PySignature {
        PySignature::new(
            &parse_schema(schema).unwrap(),
            flavor,
            SignatureOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn functions_follow_torchgen() {
        let s = sig(
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            Flavor::Function,
        );
        assert_eq!(
            s.parser_str(),
            "sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
        );
        assert_eq!(
            s.to_string(),
            "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"
        );
        assert_eq!((s.min_args(), s.max_args(), s.max_pos_args()), (2, 4, 3));
    }

    #[test]
    fn methods_drop_self() {
        let s = sig(
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            Flavor::Method,
        );
        assert_eq!(s.parser_str(), "add(Tensor other, *, Scalar alpha=1)");
        let w = sig(
            "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
            Flavor::Method,
        );
        assert_eq!(w.parser_str(), "where(Tensor condition, Tensor other)");
    }

    #[test]
    fn several_outs_are_one_out_tuple() {
        let s = sig(
            "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
            Flavor::Function,
        );
        assert_eq!(
            s.parser_str(),
            "max(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"
        );
        assert_eq!(
            s.params[3].source,
            Source::Out(vec!["max".into(), "max_values".into()])
        );
        assert_eq!(
            s.parser_str_with(true),
            "max(Tensor input, int64_t dim, bool keepdim=False)"
        );
    }

    #[test]
    fn factories_take_scattered_tensor_options() {
        let s = sig(
            "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            Flavor::Function,
        );
        assert_eq!(
            s.to_string(),
            "(tuple of ints size, *, torch.dtype dtype = None, torch.layout layout = None, \
             torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
        );
        assert_eq!(s.tensor_options, 5);
        assert_eq!(s.requires_grad(), Some(5));
    }

    #[test]
    fn ops_keep_the_schema() {
        let s = sig(
            "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
            Flavor::Ops,
        );
        assert_eq!(s.name, "aten::add");
        assert_eq!(
            s.to_string(),
            "(Tensor self, Tensor other, *, Number alpha = 1, Tensor out)"
        );
    }

    #[test]
    fn numbers_as_tensors_only_where_pytorch_allows() {
        let opts = SignatureOptions {
            numbers_as_tensors: true,
        };
        let add =
            parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
                .unwrap();
        let mm = parse_schema("mm(Tensor self, Tensor mat2) -> Tensor").unwrap();
        assert!(
            PySignature::new(&add, Flavor::Function, opts)
                .unwrap()
                .params[1]
                .numbers_as_tensors
        );
        assert!(
            !PySignature::new(&mm, Flavor::Function, opts)
                .unwrap()
                .params[1]
                .numbers_as_tensors
        );
    }
}
