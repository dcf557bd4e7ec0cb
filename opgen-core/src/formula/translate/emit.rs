//! Translating one formula's tree into Rust source: names from the scope, ATen calls to
//! the generated API's `try_` functions, helpers to `opgen_core::autograd::functions`, C++
//! operators on tensors to the ATen operators C++ maps them to, the rest to Rust.

use super::types::Ty;
use super::{Blocker, Options, Scope};
use crate::autograd::functions::HELPERS;
use crate::formula::{BinaryOp, Expr, ExprKind, Path, TemplateArg, UnaryOp};

/// A translated expression: Rust source and its type.
#[derive(Debug, Clone)]
pub(crate) struct Out {
    pub code: String,
    pub ty: Ty,
}

pub(crate) fn out(code: impl Into<String>, ty: Ty) -> Out {
    Out {
        code: code.into(),
        ty,
    }
}

pub(crate) struct Emitter<'a> {
    pub api: &'a super::ApiIndex,
    pub scope: &'a Scope,
    pub options: &'a Options,
    pub blockers: Vec<Blocker>,
    /// The parameters of the lambdas being translated (C++ name, Rust name, type).
    pub locals: Vec<(String, String, Ty)>,
}

impl Emitter<'_> {
    pub(crate) fn block(&mut self, b: Blocker) -> Out {
        self.blockers.push(b);
        out("__opgen_untranslated()", Ty::Unknown)
    }

    pub(crate) fn rt(&self) -> &str {
        &self.options.runtime
    }

    pub(crate) fn f(&self, name: &str) -> String {
        format!("{}::autograd::functions::{name}", self.options.runtime)
    }

    pub fn expr(&mut self, e: &Expr) -> Out {
        match &e.kind {
            ExprKind::Name(path) => self.name(path),
            ExprKind::Int(s) => out(
                format!("{}i64", s.trim_end_matches(['l', 'L', 'u', 'U'])),
                Ty::Int,
            ),
            ExprKind::Float(s) => {
                let body = s.trim_end_matches(['f', 'F', 'l', 'L']);
                let body = if body.ends_with('.') {
                    format!("{body}0")
                } else {
                    body.to_string()
                };
                out(format!("{body}f64"), Ty::Float)
            }
            ExprKind::Str(s) => out(format!("\"{s}\""), Ty::Str),
            ExprKind::Char(s) => out(format!("'{s}'"), Ty::Unknown),
            ExprKind::Bool(b) => out(b.to_string(), Ty::Bool),
            ExprKind::Call {
                callee,
                template,
                args,
                ..
            } => self.call(callee, template, args),
            ExprKind::Method {
                receiver,
                arrow,
                name,
                args,
                ..
            } => self.method(receiver, *arrow, name, args),
            ExprKind::Member { name, .. } => {
                self.block(Blocker::Unsupported(format!("member access `.{name}`")))
            }
            ExprKind::Index { base, index } => self.index(base, index),
            ExprKind::Unary { op, operand } => self.unary(*op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                let (c, a, b) = (self.expr(cond), self.expr(then), self.expr(otherwise));
                // A tensor variable is borrowed: each branch gives an owned value.
                let owned = |o: Out, e: &Expr| match (&e.kind, &o.ty) {
                    (ExprKind::Name(_), Ty::Tensor | Ty::OptTensor) => out(clone_of(&o.code), o.ty),
                    _ => o,
                };
                let (a, b) = (owned(a, then), owned(b, otherwise));
                let ty = match (&a.ty, &b.ty) {
                    (Ty::None, t) | (t, Ty::None) => t.optional(),
                    // C++'s usual arithmetic conversions: `c ? 1 : 0.5` is a `double`.
                    (s, t) if s != t && number_rank(s).is_some() && number_rank(t).is_some() => {
                        wider_number(s, t)
                    }
                    // `cond ? op(...) : std::tuple<Tensor, Tensor>()`: optional elements.
                    (Ty::Tuple(x), Ty::Tuple(y)) if x.len() == y.len() => Ty::Tuple(
                        x.iter()
                            .zip(y)
                            .map(|(s, t)| {
                                if s.optional() == *t {
                                    t.clone()
                                } else {
                                    s.optional()
                                }
                            })
                            .collect(),
                    ),
                    (Ty::TensorList, Ty::OptTensorList) | (Ty::OptTensorList, Ty::TensorList) => {
                        Ty::OptTensorList
                    }
                    (s, t) if s.optional() == *t => t.clone(),
                    (s, t) if t.optional() == *s => s.clone(),
                    (t, _) => t.clone(),
                };
                let (a, b) = (self.coerce(a, &ty), self.coerce(b, &ty));
                out(
                    format!("if {} {{ {} }} else {{ {} }}", self.truthy(c), a, b),
                    ty,
                )
            }
            // `{{0, 0}}`: C++'s braces around an initializer list.
            ExprKind::InitList(items) if matches!(items.as_slice(), [one] if matches!(one.kind, ExprKind::InitList(_))) => {
                self.expr(&items[0])
            }
            ExprKind::InitList(items) if items.is_empty() => {
                out("::std::vec::Vec::new()", Ty::EmptyInit)
            }
            ExprKind::InitList(items) => {
                let items: Vec<Out> = items.iter().map(|i| self.expr(i)).collect();
                let ty = match items.first().map(|i| &i.ty) {
                    Some(Ty::Int) => Ty::IntList,
                    Some(Ty::Bool) => Ty::BoolList,
                    Some(Ty::Tensor) => Ty::TensorList,
                    Some(Ty::Float) => Ty::FloatList,
                    Some(Ty::IntList) => Ty::IntListList,
                    _ => Ty::Unknown,
                };
                let codes: Vec<String> = items.into_iter().map(|i| i.code).collect();
                out(format!("::std::vec![{}]", codes.join(", ")), ty)
            }
            ExprKind::Lambda { .. } => {
                self.block(Blocker::Unsupported("a lambda outside `fmap`".into()))
            }
        }
    }

    /// A condition as a Rust `bool` (`x.defined()` is already one; an optional counts as
    /// true when set, as C++'s `operator bool`).
    pub(crate) fn truthy(&self, c: Out) -> String {
        if c.ty.is_optional() {
            return format!("({}).is_some()", c.code);
        }
        c.code
    }

    /// `value` as type `ty` where a ternary's branches differ in optionality or are
    /// numbers of different types.
    fn coerce(&self, value: Out, ty: &Ty) -> String {
        match (&value.ty, ty) {
            (Ty::None, _) => "::core::option::Option::None".into(),
            (Ty::TensorList, Ty::OptTensorList) => some_each(&value.code),
            (a, b) if a != b && number_rank(a).is_some() && number_rank(b).is_some() => {
                convert_number(self.rt(), &value, b)
            }
            (a, b) if a.optional() == *b && a != b => {
                format!("::core::option::Option::Some({})", value.code)
            }
            (Ty::Tuple(from), Ty::Tuple(to)) if from.len() == to.len() && from != to => {
                let names: Vec<String> = (0..from.len()).map(|i| format!("__opgen_e{i}")).collect();
                let items: Vec<String> = (from.iter().zip(to).zip(&names))
                    .map(|((f, t), n)| self.coerce(out(n.clone(), f.clone()), t))
                    .collect();
                format!(
                    "{{ let ({},) = {}; ({},) }}",
                    names.join(", "),
                    value.code,
                    items.join(", ")
                )
            }
            _ => value.code,
        }
    }

    fn name(&mut self, path: &Path) -> Out {
        if let Some(name) = path.as_name() {
            let local = self.locals.iter().rev().find(|(c, _, _)| c == name);
            if let Some((_, rust, ty)) = local {
                return out(rust.clone(), ty.clone());
            }
        }
        if let Some((rust, ty)) = path.as_name().and_then(|name| self.scope.get(name)) {
            return out(rust, ty);
        }
        let rt = self.rt().to_string();
        let (ns, rest) = path.split_namespace();
        let last = path.last();
        match (ns, rest.len(), last) {
            (Some("std" | "c10" | "at"), 1, "nullopt") => {
                out("::core::option::Option::None", Ty::None)
            }
            (_, _, name) if name.starts_with("M_") => match math_constant(name) {
                Some(v) => out(v, Ty::Float),
                None => self.block(Blocker::Unsupported(format!("constant `{path}`"))),
            },
            (Some("at" | "c10") | None, _, k)
                if k.starts_with('k')
                    && crate::dispatch::ScalarType::from_name(&k[1..]).is_some() =>
            {
                out(format!("{rt}::ScalarType::{}", &k[1..]), Ty::ScalarType)
            }
            (Some("at" | "c10") | None, _, "kStrided") => {
                out(format!("{rt}::Layout::Strided"), Ty::Layout)
            }
            (None, _, "kCudnnDoubleBackwardMsg") => {
                out(format!("\"{CUDNN_DOUBLE_BACKWARD}\""), Ty::Str)
            }
            (Some("at" | "c10") | None, _, "kJagged") => {
                out(format!("{rt}::Layout::Jagged"), Ty::Layout)
            }
            (Some("at"), 2, r) if rest[0] == "Reduction" => match r {
                "None" => out("0i64", Ty::Int),
                "Mean" => out("1i64", Ty::Int),
                "Sum" => out("2i64", Ty::Int),
                _ => self.block(Blocker::Unsupported(format!("constant `{path}`"))),
            },
            (Some("at" | "c10"), 2, f) if rest[0] == "MemoryFormat" => match f {
                "Contiguous" => out(format!("{rt}::MemoryFormat::Contiguous"), Ty::MemoryFormat),
                "Preserve" => out(format!("{rt}::MemoryFormat::Preserve"), Ty::MemoryFormat),
                _ => self.block(Blocker::Unsupported(format!("constant `{path}`"))),
            },
            _ => match path.as_name() {
                Some(name) => self.block(Blocker::UnknownName(name.to_string())),
                None => self.block(Blocker::Unsupported(format!("constant `{path}`"))),
            },
        }
    }

    fn index(&mut self, base: &Expr, index: &Expr) -> Out {
        let (b, i) = (self.expr(base), self.expr(index));
        let elem = match &b.ty {
            Ty::OptTensorList => Ty::OptTensor,
            Ty::TensorList => Ty::Tensor,
            Ty::IntList => Ty::Int,
            Ty::BoolList => Ty::Bool,
            Ty::FloatList => Ty::Float,
            Ty::ScalarList => Ty::Scalar,
            Ty::IntListList => Ty::IntList,
            Ty::ScalarTypeList => Ty::ScalarType,
            other => {
                let what = format!("indexing a value of type {other:?}");
                return self.block(Blocker::Unsupported(what));
            }
        };
        out(
            clone_of(&format!("{}[({}) as usize]", b.code, i.code)),
            elem,
        )
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr) -> Out {
        let v = self.expr(operand);
        match (op, &v.ty) {
            (UnaryOp::Neg, Ty::Tensor | Ty::OptTensor) => self.op_call("neg", vec![v], false),
            (UnaryOp::Neg, Ty::Scalar) => {
                out(format!("{}({})", self.f("scalar_neg"), v.code), Ty::Scalar)
            }
            (UnaryOp::Neg | UnaryOp::Plus, t) => {
                let sign = if op == UnaryOp::Neg { "-" } else { "" };
                out(format!("({sign}{})", v.code), t.clone())
            }
            (UnaryOp::Not, Ty::Tensor) => self.op_call("logical_not", vec![v], false),
            (UnaryOp::Not, _) => out(format!("!{}", self.truthy(v)), Ty::Bool),
            (UnaryOp::BitNot, Ty::Tensor) => self.op_call("bitwise_not", vec![v], false),
            (UnaryOp::Deref, t) => out(
                format!("{}({})?", self.f("value"), clone_of(&v.code)),
                t.unwrapped(),
            ),
            (op, t) => self.block(Blocker::Unsupported(format!("operator {op:?} on {t:?}"))),
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Out {
        let (a, b) = (self.expr(lhs), self.expr(rhs));
        let tensor = |t: &Ty| matches!(t, Ty::Tensor | Ty::OptTensor);
        if tensor(&a.ty) || tensor(&b.ty) {
            return self.tensor_binary(op, a, b);
        }
        use BinaryOp::*;
        match op {
            And | Or => out(
                format!("({} {} {})", self.truthy(a), op.as_str(), self.truthy(b)),
                Ty::Bool,
            ),
            Eq | Ne | Lt | Gt | Le | Ge => {
                // Numbers of two types compare in the wider one (C++'s usual arithmetic
                // conversions: `p == 1` with a `double` p compares doubles); `Scalar`s as
                // `f64`s.
                let (a, b) = match (number_rank(&a.ty), number_rank(&b.ty)) {
                    (Some(x), Some(y)) if x != y || x == SCALAR_RANK => {
                        let to = match wider_number(&a.ty, &b.ty) {
                            Ty::Scalar => Ty::Float,
                            t => t,
                        };
                        let rt = self.rt();
                        (convert_number(rt, &a, &to), convert_number(rt, &b, &to))
                    }
                    _ => (a.code, b.code),
                };
                out(format!("({a} {} {b})", op.as_str()), Ty::Bool)
            }
            _ => self.number_binary(op, a, b),
        }
    }

    /// C++'s arithmetic on numbers: both sides in the wider type (`Scalar` > `f64` >
    /// `i64`); on `Scalar`s through `autograd::functions::scalar_add` and friends, which
    /// keep integers, floats and complex numbers apart as C++'s do.
    fn number_binary(&mut self, op: BinaryOp, a: Out, b: Out) -> Out {
        let rank = |t: &Ty| match t {
            Ty::Scalar => 3,
            Ty::Float => 2,
            _ => 1,
        };
        let rt = self.rt().to_string();
        let num = |o: &Out| convert_number(&rt, o, &Ty::Float);
        let scalar_fn = match op {
            BinaryOp::Add => Some("scalar_add"),
            BinaryOp::Sub => Some("scalar_sub"),
            BinaryOp::Mul => Some("scalar_mul"),
            BinaryOp::Div => Some("scalar_div"),
            _ => None,
        };
        match (rank(&a.ty).max(rank(&b.ty)), scalar_fn) {
            (3, Some(f)) => {
                let (x, y) = (
                    convert_number(&rt, &a, &Ty::Scalar),
                    convert_number(&rt, &b, &Ty::Scalar),
                );
                out(format!("{}({x}, {y})", self.f(f)), Ty::Scalar)
            }
            (2 | 3, _) => out(
                format!("({} {} {})", num(&a), op.as_str(), num(&b)),
                Ty::Float,
            ),
            _ => {
                let (x, y) = (
                    convert_number(&rt, &a, &Ty::Int),
                    convert_number(&rt, &b, &Ty::Int),
                );
                out(format!("({x} {} {y})", op.as_str()), Ty::Int)
            }
        }
    }

    /// C++'s tensor operators (ATen's `TensorOperators.h`): `a * b` is `mul`, `s - t` is
    /// `rsub(t, s)`, `s / t` is `reciprocal(t) * s`, comparisons are `eq`, `lt`, ...
    fn tensor_binary(&mut self, op: BinaryOp, a: Out, b: Out) -> Out {
        use BinaryOp::*;
        let a_tensor = matches!(a.ty, Ty::Tensor | Ty::OptTensor);
        let name = match op {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Rem => "remainder",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Gt => "gt",
            Le => "le",
            Ge => "ge",
            BitAnd | And => "bitwise_and",
            BitOr | Or => "bitwise_or",
            BitXor => "bitwise_xor",
        };
        if a_tensor {
            return self.op_call(name, vec![a, b], false);
        }
        match op {
            Add | Mul | Eq | Ne => self.op_call(name, vec![b, a], false),
            Sub => self.op_call("rsub", vec![b, a], false),
            Div => {
                let inverse = self.op_call("reciprocal", vec![b], false);
                self.op_call("mul", vec![inverse, a], false)
            }
            Lt | Gt | Le | Ge => {
                let flipped = match op {
                    Lt => "gt",
                    Gt => "lt",
                    Le => "ge",
                    _ => "le",
                };
                self.op_call(flipped, vec![b, a], false)
            }
            _ => self.block(Blocker::Unsupported(format!(
                "`{}` with a number on the left",
                op.as_str()
            ))),
        }
    }

    fn call(&mut self, callee: &Path, template: &[TemplateArg], args: &[Expr]) -> Out {
        if let Some(o) = self.builtin_call(callee, template, args) {
            return o;
        }
        let (ns, rest) = callee.split_namespace();
        if !matches!(ns, None | Some("at")) || rest.len() != 1 {
            return self.block(Blocker::Unsupported(format!("`{callee}`")));
        }
        let name = rest[0].as_str();
        let outs: Vec<Out> = args.iter().map(|a| self.expr(a)).collect();
        if HELPERS.iter().any(|h| h.cpp == name) {
            let outs = self.with_tangents(name, args, outs);
            return self.helper_call(name, outs);
        }
        if self.api.contains(name) {
            return self.op_call(name, outs, false);
        }
        self.block(Blocker::MissingFunction {
            name: name.to_string(),
            arity: args.len(),
        })
    }
}

/// `Clone::clone(&code)`, spelt out: translated code compiles where the prelude is not in
/// scope (`#![no_implicit_prelude]`, macro output).
pub(crate) fn clone_of(code: &str) -> String {
    format!("::core::clone::Clone::clone(&({code}))")
}

/// `list` (a `Vec<T>`) as a `Vec<Option<T>>` of the same tensors.
pub(crate) fn some_each(list: &str) -> String {
    format!(
        "::core::iter::Iterator::collect::<::std::vec::Vec<_>>(::core::iter::Iterator::map(\
         ::core::iter::IntoIterator::into_iter({list}), ::core::option::Option::Some))"
    )
}

/// The rank of `Scalar` among numbers.
const SCALAR_RANK: u8 = 3;

/// The rank of a number type in C++'s usual arithmetic conversions (`bool` < `int64_t` <
/// `double`), `Scalar` last (numbers convert to it, not back); `None` for other types.
pub(crate) fn number_rank(t: &Ty) -> Option<u8> {
    match t {
        Ty::Bool => Some(0),
        Ty::Int => Some(1),
        Ty::Float => Some(2),
        Ty::Scalar => Some(SCALAR_RANK),
        _ => None,
    }
}

/// The wider of two number types.
fn wider_number(a: &Ty, b: &Ty) -> Ty {
    if number_rank(a) >= number_rank(b) {
        a.clone()
    } else {
        b.clone()
    }
}

/// A number `o` converted to the number type `to` as C++ converts it (`bool` to 0 or 1,
/// `int64_t` to `double`, any number into a `Scalar` of its kind, a `Scalar` to `double`).
pub(crate) fn convert_number(rt: &str, o: &Out, to: &Ty) -> String {
    let code = &o.code;
    match (&o.ty, to) {
        (from, to) if from == to => code.clone(),
        (Ty::Bool, Ty::Int) => format!("(({code}) as i64)"),
        (Ty::Bool, Ty::Float) => format!("((({code}) as i64) as f64)"),
        (Ty::Int, Ty::Float) => format!("(({code}) as f64)"),
        (Ty::Bool, Ty::Scalar) => format!("{rt}::Scalar::Bool({code})"),
        (Ty::Int, Ty::Scalar) => format!("{rt}::Scalar::Int({code})"),
        (Ty::Float, Ty::Scalar) => format!("{rt}::Scalar::Float({code})"),
        (Ty::Scalar, Ty::Float) => format!("({code}).to_f64()"),
        (_, Ty::Float) => format!("(({code}) as f64)"),
        _ => code.clone(),
    }
}

/// FunctionsManual's `kCudnnDoubleBackwardMsg`.
const CUDNN_DOUBLE_BACKWARD: &str = "Double backwards is not supported for CuDNN RNNs due to limitations in the CuDNN API. To run double backwards, please disable the CuDNN backend temporarily while running the forward pass of your RNN. For example: \\nwith torch.backends.cudnn.flags(enabled=False):\\n    output = model(inputs)";

fn math_constant(name: &str) -> Option<&'static str> {
    Some(match name {
        "M_PI" => "::core::f64::consts::PI",
        "M_PI_2" => "::core::f64::consts::FRAC_PI_2",
        "M_PI_4" => "::core::f64::consts::FRAC_PI_4",
        "M_1_PI" => "::core::f64::consts::FRAC_1_PI",
        "M_2_PI" => "::core::f64::consts::FRAC_2_PI",
        "M_2_SQRTPI" => "::core::f64::consts::FRAC_2_SQRT_PI",
        "M_SQRT2" => "::core::f64::consts::SQRT_2",
        "M_SQRT1_2" => "::core::f64::consts::FRAC_1_SQRT_2",
        "M_E" => "::core::f64::consts::E",
        "M_LN2" => "::core::f64::consts::LN_2",
        "M_LN10" => "::core::f64::consts::LN_10",
        "M_LOG2E" => "::core::f64::consts::LOG2_E",
        "M_LOG10E" => "::core::f64::consts::LOG10_E",
        _ => return None,
    })
}
