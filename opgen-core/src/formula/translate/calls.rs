//! Calls of ATen operators and of helpers: C++'s overload resolution (by the number and
//! the types of the arguments, trailing defaulted parameters omitted, a `TensorOptions`
//! passed whole or as its four parts) and the conversion of each argument to the Rust
//! parameter's type.

use super::Blocker;
use super::api::{ApiOp, call_order, resolve};
use super::emit::{Emitter, Out, clone_of, convert_number, out, some_each};
use super::types::Ty;
use crate::autograd::functions::{HELPERS, Helper, HelperParam, HelperReturn};
use crate::formula::{Expr, ExprKind};
use crate::plan::{RustType, ValueType};

/// The name the translated code calls an API function by: its `try_` form, or `try_.._with`
/// (the plan's naming rule, [`crate::plan::form_name`]).
fn form(name: &str, with: bool) -> String {
    crate::plan::form_name(name, "try_", if with { "_with" } else { "" })
}

/// The translator's type of a helper parameter.
fn param_ty(p: HelperParam) -> Ty {
    use HelperParam as P;
    match p {
        P::Tensor => Ty::Tensor,
        P::OptionalTensor => Ty::OptTensor,
        P::TensorList => Ty::TensorList,
        P::OptionalTensorList | P::Tangents => Ty::OptTensorList,
        P::Scalar => Ty::Scalar,
        P::OptionalScalar => Ty::OptScalar,
        P::Int => Ty::Int,
        P::OptionalInt => Ty::OptInt,
        P::Float => Ty::Float,
        P::OptionalFloat => Ty::OptFloat,
        P::IntList => Ty::IntList,
        P::OptionalIntList => Ty::OptIntList,
        P::IntListList => Ty::IntListList,
        P::ScalarType => Ty::ScalarType,
        P::ScalarTypeList => Ty::ScalarTypeList,
        P::Layout => Ty::Layout,
        P::Options => Ty::Options,
        P::Geometry => Ty::Geometry,
        P::Str => Ty::Str,
        P::OptionalStr => Ty::OptStr,
        P::Bool => Ty::Bool,
        P::BoolPair | P::BoolTriple => Ty::BoolList,
    }
}

/// How well `args` fit `helper` (C++'s resolution: every argument converts, the omitted
/// parameters have defaults), or `None`.
fn helper_score(helper: &Helper, args: &[Out]) -> Option<u32> {
    let required = helper.params.len() - helper.defaults.len();
    if args.len() < required || args.len() > helper.params.len() {
        return None;
    }
    let mut total = 0;
    for (p, a) in helper.params.iter().zip(args) {
        total += u32::from(a.ty.fits(&param_ty(*p))?);
    }
    Some(total)
}

impl Emitter<'_> {
    /// The arguments of a helper that reads the tangents of a list argument (`cat_jvp`):
    /// `args` with the list's tangents (`tensors_t`, from the scope of a forward formula)
    /// after it.
    pub(crate) fn with_tangents(
        &mut self,
        name: &str,
        exprs: &[Expr],
        mut args: Vec<Out>,
    ) -> Vec<Out> {
        let at = (HELPERS.iter().filter(|h| h.cpp == name))
            .find_map(|h| h.params.iter().position(|p| *p == HelperParam::Tangents));
        let Some(at) = at else {
            return args;
        };
        let list = exprs.get(at.wrapping_sub(1)).and_then(|e| match &e.kind {
            ExprKind::Name(p) => p.as_name(),
            _ => None,
        });
        let tangents = list.and_then(|l| self.scope.get(&format!("{l}_t")));
        match tangents {
            Some((rust, ty)) if at <= args.len() => args.insert(at, out(rust, ty)),
            _ => {
                let what = format!(
                    "`{name}` reads the tangents of its list argument: only in a forward formula, of an input list"
                );
                args.insert(at.min(args.len()), self.block(Blocker::Unsupported(what)));
            }
        }
        args
    }

    /// A call of a helper of `autograd::functions`: the best overload among its rows.
    pub(crate) fn helper_call(&mut self, name: &str, args: Vec<Out>) -> Out {
        let mut best: Option<(u32, &Helper)> = None;
        for h in HELPERS.iter().filter(|h| h.cpp == name) {
            if let Some(score) = helper_score(h, &args)
                && best.is_none_or(|(b, _)| score > b)
            {
                best = Some((score, h));
            }
        }
        let Some((_, helper)) = best else {
            return self.block(Blocker::NoOverload {
                name: name.to_string(),
                arity: args.len(),
            });
        };
        let given = args.len();
        let mut codes: Vec<String> = (helper.params.iter().zip(args))
            .map(|(p, a)| self.helper_arg(*p, a))
            .collect();
        let omitted = helper.params.len() - given;
        let first_default = helper.defaults.len() - omitted;
        codes.extend(
            helper.defaults[first_default..]
                .iter()
                .map(|d| d.to_string()),
        );
        let ty = match helper.returns {
            HelperReturn::Tensor => Ty::Tensor,
            HelperReturn::OptionalTensor => Ty::OptTensor,
            HelperReturn::TensorPair => Ty::Tuple(vec![Ty::OptTensor; 2]),
            HelperReturn::TensorTriple => Ty::Tuple(vec![Ty::OptTensor; 3]),
            HelperReturn::TensorSeven => Ty::Tuple(vec![Ty::OptTensor; 7]),
            HelperReturn::TensorList => Ty::OptTensorList,
            HelperReturn::IntList => Ty::IntList,
        };
        out(
            format!("{}({})?", self.f(helper.rust), codes.join(", ")),
            ty,
        )
    }

    /// `a` as the Rust type of helper parameter kind `p`.
    fn helper_arg(&self, p: HelperParam, a: Out) -> String {
        use HelperParam as P;
        let some = |c: &str| format!("::core::option::Option::Some({c})");
        let code = a.code.as_str();
        match (p, &a.ty) {
            (_, Ty::None | Ty::EmptyInit) if param_ty(p).is_optional() => {
                "::core::option::Option::None".into()
            }
            (_, Ty::EmptyInit) => "&[]".into(),
            (P::Tensor, Ty::OptTensor) => format!("{}(({code}).as_ref())?", self.f("defined")),
            (P::OptionalTensor, Ty::Tensor) => some(&format!("&{code}")),
            (P::OptionalTensor, _) => format!("({code}).as_ref()"),
            (P::IntList, Ty::Int) => format!("&[{code}]"),
            (P::IntList, Ty::OptIntList) => format!("&*{}({})?", self.f("value"), clone_of(code)),
            (P::OptionalIntList, Ty::Int) => some(&format!("&[{code}][..]")),
            (P::OptionalIntList, Ty::IntList) => some(&format!("&{code}[..]")),
            (P::OptionalIntList, _) => format!("({code}).as_deref()"),
            (P::OptionalTensorList | P::Tangents, Ty::TensorList) => {
                format!("&{}", some_each(code))
            }
            (
                P::Tensor
                | P::TensorList
                | P::OptionalTensorList
                | P::Tangents
                | P::IntList
                | P::IntListList
                | P::ScalarTypeList
                | P::Geometry,
                _,
            ) => format!("&{code}"),
            (P::Scalar, Ty::Int | Ty::Float | Ty::Bool) => {
                convert_number(self.rt(), &a, &Ty::Scalar)
            }
            (P::OptionalScalar, Ty::Int | Ty::Float | Ty::Bool) => {
                some(&convert_number(self.rt(), &a, &Ty::Scalar))
            }
            (P::Int, Ty::Bool) | (P::Float, Ty::Int | Ty::Bool) => {
                convert_number(self.rt(), &a, &param_ty(p))
            }
            (P::OptionalFloat, Ty::Int | Ty::Bool) => {
                some(&convert_number(self.rt(), &a, &Ty::Float))
            }
            (P::OptionalInt, Ty::Bool) => some(&convert_number(self.rt(), &a, &Ty::Int)),
            (P::Bool, Ty::Int) => format!("(({code}) != 0)"),
            (P::BoolPair, _) => format!("{{ let m = &{code}; [m[0], m[1]] }}"),
            (P::BoolTriple, _) => format!("{{ let m = &{code}; [m[0], m[1], m[2]] }}"),
            (_, t) if param_ty(p).is_optional() && !t.is_optional() => some(code),
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
        // A C++ method call is a Rust method call only for a method-only operator: an
        // operator with free functions has no `_with` methods (the plan's rule), so the
        // translation calls its free functions, `self` first.
        let as_method = !op.function;
        let order = call_order(&op, as_method || method).unwrap_or_default();
        self.emit_op(&op, &order, args, as_method)
    }

    /// The Rust call of `op` with `args` in `order`: positional arguments for the required
    /// parameters, the `_with` form and the arguments struct when defaulted ones are given,
    /// the four parts of a scattered `TensorOptions` put back together.
    fn emit_op(&mut self, op: &ApiOp, order: &[usize], args: Vec<Out>, as_method: bool) -> Out {
        let mut given: Vec<Option<String>> = vec![None; op.params.len()];
        for (a, &i) in args.into_iter().zip(order) {
            given[i] = Some(self.param_arg(&op.params[i].rust_type, a));
        }
        let mut params = op.params.clone();
        if let Some((at, options)) = &op.options_parts {
            let at = *at;
            let parts: Vec<Option<String>> = given.drain(at..at + 4).collect();
            params.drain(at..at + 4);
            let combined = parts.iter().any(Option::is_some).then(|| {
                let none = "::core::option::Option::None".to_string();
                let parts: Vec<String> = parts
                    .into_iter()
                    .map(|p| p.unwrap_or(none.clone()))
                    .collect();
                format!(
                    "{}::TensorOptions::from_parts({})",
                    self.rt(),
                    parts.join(", ")
                )
            });
            given.insert(at, combined);
            params.insert(at, options.clone());
        }
        let with = given
            .iter()
            .zip(&params)
            .any(|(g, p)| g.is_some() && p.has_default);
        let mut positional = Vec::new();
        let mut fields = Vec::new();
        for (g, p) in given.into_iter().zip(&params) {
            match (g, p.has_default) {
                (Some(code), false) => positional.push(code),
                (Some(code), true) => fields.push(format!("{}: {code}", p.rust)),
                // The plain form takes the gathered options even when they have defaults
                // (the plan's rule); C++ omits them.
                (None, true) if !with && p.ty == Ty::Options => {
                    positional.push(format!(
                        "<{}::TensorOptions as ::core::default::Default>::default()",
                        self.rt()
                    ));
                }
                (None, _) => {}
            }
        }
        if with {
            let defaults = params.iter().filter(|p| p.has_default).count();
            let tail = if fields.len() < defaults {
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
        let int_slice = |t: &RustType| matches!(t, RustType::Ref(s) if **s == RustType::Slice(Box::new(RustType::Value(ValueType::I64))));
        match (ty, &a.ty) {
            (RustType::Option(_), Ty::None | Ty::EmptyInit) | (_, Ty::None) => {
                "::core::option::Option::None".into()
            }
            (RustType::Ref(_), Ty::EmptyInit) => "&[]".into(),
            (t, Ty::Int) if int_slice(t) => format!("&[{}]", a.code),
            (RustType::Ref(inner), t) if **inner == RustType::Tensor && *t == Ty::OptTensor => {
                format!("{}(({}).as_ref())?", self.f("defined"), a.code)
            }
            (RustType::Ref(_), _) => format!("&{}", a.code),
            (RustType::Option(inner), t) => match (&**inner, t) {
                (RustType::Ref(r), Ty::Tensor) if **r == RustType::Tensor => {
                    some(format!("&{}", a.code))
                }
                (i, Ty::Int) if int_slice(i) => some(format!("&[{}][..]", a.code)),
                (RustType::Ref(_), Ty::OptTensor) => format!("({}).as_ref()", a.code),
                (RustType::Ref(_), Ty::OptIntList) => format!("({}).as_deref()", a.code),
                (RustType::Ref(_), _) => some(format!("&{}", a.code)),
                (RustType::Value(ValueType::Scalar), Ty::Int | Ty::Float | Ty::Bool) => {
                    some(convert_number(rt, &a, &Ty::Scalar))
                }
                (RustType::Value(ValueType::F64), Ty::Int | Ty::Bool) => {
                    some(convert_number(rt, &a, &Ty::Float))
                }
                (RustType::Value(ValueType::I64), Ty::Bool) => {
                    some(convert_number(rt, &a, &Ty::Int))
                }
                // `std::optional<double>` for a `double?` parameter, from an `int64_t?`.
                (RustType::Value(ValueType::F64), Ty::OptInt) => {
                    format!("::core::option::Option::map({}, |__v| __v as f64)", a.code)
                }
                (_, t) if t.is_optional() => a.code,
                _ => some(a.code),
            },
            (RustType::Value(ValueType::Scalar), Ty::Int | Ty::Float | Ty::Bool) => {
                convert_number(rt, &a, &Ty::Scalar)
            }
            (RustType::Value(ValueType::F64), Ty::Int | Ty::Bool) => {
                convert_number(rt, &a, &Ty::Float)
            }
            (RustType::Value(ValueType::I64), Ty::Bool) => convert_number(rt, &a, &Ty::Int),
            _ => a.code,
        }
    }
}
