//! Translating one formula's tree into Rust source: names from the scope, ATen calls to
//! the generated API's `try_` functions, helpers to `opgen_core::autograd::functions`, C++
//! operators on tensors to the ATen operators C++ maps them to, the rest to Rust.

use super::api::{ApiOp, call_order, resolve};
use super::types::Ty;
use super::{Blocker, Options, Scope};
use crate::autograd::functions::{HELPERS, Helper, HelperParam};
use crate::formula::{BinaryOp, Expr, ExprKind, Path, TemplateArg, UnaryOp};
use crate::plan::{RustType, ValueType};

/// A translated expression: Rust source and its type.
#[derive(Debug, Clone)]
pub(crate) struct Out {
    pub code: String,
    pub ty: Ty,
}

fn out(code: impl Into<String>, ty: Ty) -> Out {
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
}

/// The name the translated code calls an API function by: its `try_` form, or `try_.._with`
/// (the plan's naming rule, [`crate::plan::form_name`]).
fn form(name: &str, with: bool) -> String {
    crate::plan::form_name(name, "try_", if with { "_with" } else { "" })
}

impl Emitter<'_> {
    fn block(&mut self, b: Blocker) -> Out {
        self.blockers.push(b);
        out("__opgen_untranslated()", Ty::Unknown)
    }

    fn rt(&self) -> &str {
        &self.options.runtime
    }

    fn f(&self, name: &str) -> String {
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
                let ty = match (&a.ty, &b.ty) {
                    (Ty::None, t) | (t, Ty::None) => optional(t),
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
                out(format!("vec![{}]", codes.join(", ")), ty)
            }
            ExprKind::Lambda { .. } => self.block(Blocker::Unsupported("lambda".into())),
        }
    }

    /// A condition as a Rust `bool` (`x.defined()` is already one; an optional counts as
    /// true when set, as C++'s `operator bool`).
    fn truthy(&self, c: Out) -> String {
        match c.ty {
            Ty::OptTensor
            | Ty::OptInt
            | Ty::OptIntList
            | Ty::OptScalar
            | Ty::OptFloat
            | Ty::OptBool
            | Ty::OptScalarType => {
                format!("({}).is_some()", c.code)
            }
            _ => c.code,
        }
    }

    /// `value` as type `ty` where a ternary's branches differ only in optionality.
    fn coerce(&self, value: Out, ty: &Ty) -> String {
        match (&value.ty, ty) {
            (Ty::None, _) => "::core::option::Option::None".into(),
            (a, b) if optional(a) == *b && a != b => {
                format!("::core::option::Option::Some({})", value.code)
            }
            _ => value.code,
        }
    }

    fn name(&mut self, path: &Path) -> Out {
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
        out(format!("{}[({}) as usize].clone()", b.code, i.code), elem)
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr) -> Out {
        let v = self.expr(operand);
        match (op, &v.ty) {
            (UnaryOp::Neg, Ty::Tensor | Ty::OptTensor) => self.op_call("neg", vec![v], false),
            (UnaryOp::Neg, Ty::Scalar) => out(
                format!("{}::Scalar::from(-({}).to_f64())", self.rt(), v.code),
                Ty::Scalar,
            ),
            (UnaryOp::Neg | UnaryOp::Plus, t) => {
                let sign = if op == UnaryOp::Neg { "-" } else { "" };
                out(format!("({sign}{})", v.code), t.clone())
            }
            (UnaryOp::Not, Ty::Tensor) => self.op_call("logical_not", vec![v], false),
            (UnaryOp::Not, _) => out(format!("!{}", self.truthy(v)), Ty::Bool),
            (UnaryOp::BitNot, Ty::Tensor) => self.op_call("bitwise_not", vec![v], false),
            (UnaryOp::Deref, t) => out(
                format!("{}(({}).clone())?", self.f("value"), v.code),
                unwrap_ty(t),
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
                out(format!("({} {} {})", a.code, op.as_str(), b.code), Ty::Bool)
            }
            _ => self.number_binary(op, a, b),
        }
    }

    /// C++'s arithmetic on numbers: both sides in the wider type (`Scalar` > `f64` > `i64`).
    fn number_binary(&mut self, op: BinaryOp, a: Out, b: Out) -> Out {
        let rank = |t: &Ty| match t {
            Ty::Scalar => 3,
            Ty::Float => 2,
            _ => 1,
        };
        let num = |o: &Out| match o.ty {
            Ty::Scalar => format!("({}).to_f64()", o.code),
            _ => format!("(({}) as f64)", o.code),
        };
        match rank(&a.ty).max(rank(&b.ty)) {
            3 => out(
                format!(
                    "{}::Scalar::from({} {} {})",
                    self.rt(),
                    num(&a),
                    op.as_str(),
                    num(&b)
                ),
                Ty::Scalar,
            ),
            2 => out(
                format!("({} {} {})", num(&a), op.as_str(), num(&b)),
                Ty::Float,
            ),
            _ => out(format!("({} {} {})", a.code, op.as_str(), b.code), Ty::Int),
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

    fn helper_call(&mut self, name: &str, args: Vec<Out>) -> Out {
        let fits = |h: &&Helper| {
            h.cpp == name
                && h.params.len() == args.len()
                && h.params
                    .iter()
                    .zip(&args)
                    .all(|(p, a)| a.ty.fits(&param_ty(*p)).is_some())
        };
        let Some(helper) = HELPERS.iter().find(fits) else {
            return self.block(Blocker::NoOverload {
                name: name.to_string(),
                arity: args.len(),
            });
        };
        let codes: Vec<String> = (helper.params.iter().zip(args))
            .map(|(p, a)| self.helper_arg(*p, a))
            .collect();
        let ty = match helper.returns {
            HelperParam::ReturnsTensorPair => Ty::Tuple(vec![Ty::OptTensor, Ty::OptTensor]),
            HelperParam::ReturnsTensorList => Ty::OptTensorList,
            _ => Ty::Tensor,
        };
        out(
            format!("{}({})?", self.f(helper.rust), codes.join(", ")),
            ty,
        )
    }

    fn helper_arg(&self, p: HelperParam, a: Out) -> String {
        use HelperParam as P;
        match (p, &a.ty) {
            (P::Tensor | P::TensorList | P::IntList | P::IntListList | P::ScalarTypeList, _) => {
                format!("&{}", a.code)
            }
            (P::OptionalTensor, Ty::Tensor) => format!("::core::option::Option::Some(&{})", a.code),
            (P::OptionalTensor, Ty::OptTensor) => format!("({}).as_ref()", a.code),
            (P::OptionalIntList, Ty::IntList) => {
                format!("::core::option::Option::Some(&{}[..])", a.code)
            }
            (P::OptionalIntList, Ty::OptIntList) => format!("({}).as_deref()", a.code),
            (P::Scalar, Ty::Int | Ty::Float | Ty::Bool) => {
                format!("{}::Scalar::from({})", self.rt(), a.code)
            }
            (P::BoolPair, _) => format!("[{0}[0], {0}[1]]", a.code),
            _ => a.code,
        }
    }

    /// A call of an ATen operator: `args[0]` is the receiver of a method call.
    pub fn op_call(&mut self, name: &str, args: Vec<Out>, method: bool) -> Out {
        let tys: Vec<Ty> = args.iter().map(|a| a.ty.clone()).collect();
        let resolved = resolve(self.api.overloads(name), &tys, method).or_else(|| {
            if method {
                None
            } else {
                resolve(self.api.overloads(name), &tys, true)
            }
        });
        let Some(op) = resolved.cloned() else {
            return self.block(Blocker::NoOverload {
                name: name.to_string(),
                arity: args.len(),
            });
        };
        let as_method = !op.function;
        let order = call_order(&op, as_method || method).unwrap_or_default();
        self.emit_op(&op, &order, args, as_method)
    }

    fn emit_op(&mut self, op: &ApiOp, order: &[usize], args: Vec<Out>, as_method: bool) -> Out {
        let mut given: Vec<Option<String>> = vec![None; op.params.len()];
        for (a, &i) in args.into_iter().zip(order) {
            given[i] = Some(self.param_arg(&op.params[i].rust_type, a));
        }
        let with = given
            .iter()
            .zip(&op.params)
            .any(|(g, p)| g.is_some() && p.has_default);
        let mut positional = Vec::new();
        let mut fields = Vec::new();
        for (g, p) in given.into_iter().zip(&op.params) {
            match (g, p.has_default) {
                (Some(code), false) => positional.push(code),
                (Some(code), true) => fields.push(format!("{}: {code}", p.rust)),
                (None, _) => {}
            }
        }
        if with {
            let tail = if fields.len() < op.params.iter().filter(|p| p.has_default).count() {
                ", ..::core::default::Default::default()"
            } else {
                ""
            };
            positional.push(format!(
                "{}{} {{ {}{tail} }}",
                self.options.api_path,
                op.args_struct,
                fields.join(", ")
            ));
        }
        let fname = form(&op.rust_name, with);
        let code = match (as_method, op.self_index) {
            (true, Some(s)) => {
                let receiver = positional.remove(s.min(positional.len().saturating_sub(1)));
                format!(
                    "({}).{fname}({})?",
                    receiver.trim_start_matches('&'),
                    positional.join(", ")
                )
            }
            _ => format!(
                "{}{fname}({})?",
                self.options.api_path,
                positional.join(", ")
            ),
        };
        out(code, op.returns.clone())
    }

    /// `a` as the Rust API's parameter type `ty`.
    fn param_arg(&self, ty: &RustType, a: Out) -> String {
        let rt = self.rt();
        let some = |c: String| format!("::core::option::Option::Some({c})");
        match (ty, &a.ty) {
            (_, Ty::None) => "::core::option::Option::None".into(),
            (RustType::Ref(inner), t) if **inner == RustType::Tensor && *t == Ty::OptTensor => {
                format!("{}(({}).as_ref())?", self.f("defined"), a.code)
            }
            (RustType::Ref(_), _) => format!("&{}", a.code),
            (RustType::Option(inner), t) => match (&**inner, t) {
                (RustType::Ref(r), Ty::Tensor) if **r == RustType::Tensor => {
                    some(format!("&{}", a.code))
                }
                (RustType::Ref(_), Ty::OptTensor) => format!("({}).as_ref()", a.code),
                (RustType::Ref(_), Ty::OptIntList) => format!("({}).as_deref()", a.code),
                (RustType::Ref(_), _) => some(format!("&{}", a.code)),
                (RustType::Value(ValueType::Scalar), Ty::Int | Ty::Float | Ty::Bool) => {
                    some(format!("{rt}::Scalar::from({})", a.code))
                }
                (RustType::Value(ValueType::F64), Ty::Int) => some(format!("({}) as f64", a.code)),
                (
                    _,
                    Ty::OptInt | Ty::OptFloat | Ty::OptBool | Ty::OptScalar | Ty::OptScalarType,
                ) => a.code,
                _ => some(a.code),
            },
            (RustType::Value(ValueType::Scalar), Ty::Int | Ty::Float | Ty::Bool) => {
                format!("{rt}::Scalar::from({})", a.code)
            }
            (RustType::Value(ValueType::F64), Ty::Int) => format!("(({}) as f64)", a.code),
            _ => a.code,
        }
    }
}

fn optional(t: &Ty) -> Ty {
    match t {
        Ty::Tensor => Ty::OptTensor,
        Ty::Int => Ty::OptInt,
        Ty::IntList => Ty::OptIntList,
        Ty::Scalar => Ty::OptScalar,
        Ty::Float => Ty::OptFloat,
        Ty::Bool => Ty::OptBool,
        Ty::ScalarType => Ty::OptScalarType,
        other => other.clone(),
    }
}

pub(crate) fn unwrap_ty(t: &Ty) -> Ty {
    match t {
        Ty::OptTensor => Ty::Tensor,
        Ty::OptInt => Ty::Int,
        Ty::OptIntList => Ty::IntList,
        Ty::OptScalar => Ty::Scalar,
        Ty::OptFloat => Ty::Float,
        Ty::OptBool => Ty::Bool,
        Ty::OptScalarType => Ty::ScalarType,
        other => other.clone(),
    }
}

fn param_ty(p: HelperParam) -> Ty {
    use HelperParam as P;
    match p {
        P::Tensor => Ty::Tensor,
        P::OptionalTensor => Ty::OptTensor,
        P::TensorList => Ty::TensorList,
        P::Scalar => Ty::Scalar,
        P::OptionalScalar => Ty::OptScalar,
        P::Int => Ty::Int,
        P::IntList => Ty::IntList,
        P::OptionalIntList => Ty::OptIntList,
        P::IntListList => Ty::IntListList,
        P::ScalarType => Ty::ScalarType,
        P::ScalarTypeList => Ty::ScalarTypeList,
        P::Layout => Ty::Layout,
        P::Bool => Ty::Bool,
        P::BoolPair => Ty::BoolList,
        _ => Ty::Unknown,
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
