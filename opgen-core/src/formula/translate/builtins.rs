//! What formulas call besides ATen operators and helpers: C++ standard library and c10
//! utilities (`std::get<0>`, `std::nullopt`, `isComplexType`), and the accessors of tensors,
//! scalars, optionals and lists (`self.sym_sizes()`, `alpha.conj()`, `dim.has_value()`).

use super::Blocker;
use super::emit::{Emitter, Out, clone_of, convert_number};
use super::types::Ty;
use crate::formula::{Expr, ExprKind, Path, TemplateArg};

fn out(code: impl Into<String>, ty: Ty) -> Out {
    Out {
        code: code.into(),
        ty,
    }
}

impl Emitter<'_> {
    /// A call of a standard or c10 utility, if `callee` is one.
    pub fn builtin_call(
        &mut self,
        callee: &Path,
        template: &[TemplateArg],
        args: &[Expr],
    ) -> Option<Out> {
        let name = callee.to_string();
        let name = name.trim_start_matches("::");
        let rt = self.options.runtime.clone();
        let o = match (name, args.len()) {
            ("std::get", 1) => {
                let Some(TemplateArg::Int(i)) = template.first() else {
                    return Some(self.block_unsupported("`std::get` without an index"));
                };
                let t = self.expr(&args[0]);
                let elem = match &t.ty {
                    Ty::Tuple(items) => items
                        .get(i.parse::<usize>().unwrap_or(0))
                        .cloned()
                        .unwrap_or(Ty::Unknown),
                    _ => Ty::Unknown,
                };
                out(format!("({}).{i}", t.code), elem)
            }
            ("std::tuple" | "std::make_tuple", 0) => {
                let nones = vec!["::core::option::Option::None"; template.len()];
                out(
                    format!("({},)", nones.join(", ")),
                    Ty::Tuple(vec![Ty::OptTensor; template.len()]),
                )
            }
            ("Tensor" | "at::Tensor", 0) => out("::core::option::Option::None", Ty::None),
            // Array views are the list itself.
            (
                "IntArrayRef"
                | "at::IntArrayRef"
                | "c10::IntArrayRef"
                | "c10::SymIntArrayRef"
                | "at::SymIntArrayRef",
                1,
            ) => {
                let v = self.expr(&args[0]);
                out(v.code, Ty::IntList)
            }
            ("std::optional" | "c10::optional" | "std::make_optional", 0) => {
                out("::core::option::Option::None", Ty::None)
            }
            ("std::optional" | "c10::optional" | "std::make_optional", 1) => {
                // `std::optional<T>(x)`: an optional holding `x` (one already optional is
                // copied).
                let v = self.expr(&args[0]);
                if v.ty.is_optional() {
                    return Some(v);
                }
                let ty = v.ty.optional();
                out(format!("::core::option::Option::Some({})", v.code), ty)
            }
            ("std::vector", 2) => {
                let (n, v) = (self.expr(&args[0]), self.expr(&args[1]));
                let ty = if v.ty == Ty::Int {
                    Ty::IntList
                } else {
                    Ty::Unknown
                };
                out(
                    format!("::std::vec![{}; ({}) as usize]", v.code, n.code),
                    ty,
                )
            }
            ("std::max" | "std::min", 2) => {
                // Both in the wider type (C++ requires one type; the formulas mix `int64_t`
                // and `SymInt`, which are one here).
                let (a, b) = (self.expr(&args[0]), self.expr(&args[1]));
                let f = if name == "std::max" { "max" } else { "min" };
                let ty = if a.ty == Ty::Float || b.ty == Ty::Float {
                    Ty::Float
                } else {
                    a.ty.clone()
                };
                let (x, y) = (convert_number(&rt, &a, &ty), convert_number(&rt, &b, &ty));
                match ty {
                    Ty::Float => out(format!("f64::{f}({x}, {y})"), ty),
                    _ => out(format!("::core::cmp::Ord::{f}({x}, {y})"), ty),
                }
            }
            ("std::abs" | "std::sqrt" | "std::exp" | "std::log", 1) => {
                let a = self.expr(&args[0]);
                let f = name.trim_start_matches("std::");
                out(format!("(({}) as f64).{f}()", a.code), Ty::Float)
            }
            (
                "GradMode::is_enabled" | "at::GradMode::is_enabled" | "c10::GradMode::is_enabled",
                0,
            ) => out(format!("{rt}::autograd::is_grad_enabled()"), Ty::Bool),
            ("isComplexType" | "at::isComplexType" | "c10::isComplexType", 1) => {
                let a = self.expr(&args[0]);
                out(
                    format!("{}::autograd::functions::is_complex_type({})", rt, a.code),
                    Ty::Bool,
                )
            }
            ("isFloatingType" | "at::isFloatingType" | "c10::isFloatingType", 1) => {
                let a = self.expr(&args[0]);
                out(
                    format!("{}::autograd::functions::is_floating_type({})", rt, a.code),
                    Ty::Bool,
                )
            }
            ("not_implemented" | "not_implemented_list", 1 | 2) => {
                let parts: Vec<String> = args.iter().map(|a| self.expr(a).code).collect();
                let reason = parts.get(1).cloned().unwrap_or_else(|| "\"\"".into());
                let e = format!("{rt}::autograd::not_implemented({}, &{reason})", parts[0]);
                let ty = if name == "not_implemented" {
                    Ty::Unknown
                } else {
                    Ty::OptTensorList
                };
                out(format!("(return ::core::result::Result::Err({e}))"), ty)
            }
            ("std::vector", 1) => return Some(self.sized_vector(template, &args[0])),
            ("fmap", 2) => return Some(self.fmap(&args[0], &args[1])),
            (
                "OptionalArrayRef"
                | "at::OptionalArrayRef"
                | "c10::OptionalArrayRef"
                | "at::OptionalIntArrayRef"
                | "at::OptionalSymIntArrayRef",
                1,
            ) => {
                let v = self.expr(&args[0]);
                out(
                    format!("::core::option::Option::Some({})", v.code),
                    Ty::OptIntList,
                )
            }
            _ => return None,
        };
        Some(o)
    }

    /// `std::vector<E>(n)`: `n` default values (undefined tensors, zeros, `false`).
    fn sized_vector(&mut self, template: &[TemplateArg], n: &Expr) -> Out {
        let n = self.expr(n);
        let elem = match template.first() {
            Some(TemplateArg::Type(t)) => t.path.last().to_string(),
            _ => String::new(),
        };
        let (value, ty) = match elem.as_str() {
            "Tensor" | "Variable" => ("::core::option::Option::None", Ty::OptTensorList),
            "int64_t" | "SymInt" | "int" => ("0i64", Ty::IntList),
            "bool" => ("false", Ty::BoolList),
            "double" => ("0.0f64", Ty::FloatList),
            _ => return self.block_unsupported(&format!("`std::vector<{elem}>`")),
        };
        out(format!("::std::vec![{value}; ({}) as usize]", n.code), ty)
    }

    /// `fmap(list, [](E x){return f(x);})`: `f` applied to each element, in order.
    fn fmap(&mut self, list: &Expr, f: &Expr) -> Out {
        let ExprKind::Lambda { params, body, .. } = &f.kind else {
            return self.block_unsupported("`fmap` of something other than a lambda");
        };
        let [(param_type, param)] = params.as_slice() else {
            return self.block_unsupported("`fmap` of a lambda without exactly one parameter");
        };
        let l = self.expr(list);
        let ty = match param_type.path.last() {
            "SymInt" | "int64_t" | "int" => Ty::Int,
            "Tensor" | "Variable" => Ty::Tensor,
            "double" => Ty::Float,
            "bool" => Ty::Bool,
            other => {
                return self.block_unsupported(&format!("a lambda parameter of type `{other}`"));
            }
        };
        let rust = format!("__{param}");
        self.locals.push((param.clone(), rust.clone(), ty));
        let b = self.expr(body);
        self.locals.pop();
        let list_ty = match b.ty {
            Ty::Int => Ty::IntList,
            Ty::Tensor => Ty::TensorList,
            Ty::Float => Ty::FloatList,
            Ty::Bool => Ty::BoolList,
            _ => Ty::Unknown,
        };
        let rt = &self.options.runtime;
        out(
            format!(
                "::core::iter::Iterator::collect::<::core::result::Result<::std::vec::Vec<_>, {rt}::Error>>(::core::iter::Iterator::map(::core::iter::Iterator::cloned(({}).iter()), |{rust}| -> ::core::result::Result<_, {rt}::Error> {{ ::core::result::Result::Ok({}) }}))?",
                l.code, b.code
            ),
            list_ty,
        )
    }

    fn block_unsupported(&mut self, what: &str) -> Out {
        self.blockers.push(Blocker::Unsupported(what.to_string()));
        out("__opgen_untranslated()", Ty::Unknown)
    }

    /// `receiver.name(args)` / `receiver->name(args)`.
    pub fn method(&mut self, receiver: &Expr, arrow: bool, name: &str, args: &[Expr]) -> Out {
        if let Some(o) = self.nested_impl(receiver, name, args) {
            return o;
        }
        let r = self.expr(receiver);
        let recv_ty = if arrow {
            r.ty.unwrapped()
        } else {
            r.ty.clone()
        };
        let recv = if arrow && r.ty != recv_ty {
            format!("{}(({}).as_ref())?", self.f_path("defined"), r.code)
        } else {
            r.code.clone()
        };
        let arg_outs: Vec<Out> = args.iter().map(|a| self.expr(a)).collect();
        if let Some(o) = self.accessor(&recv, &recv_ty, name, &arg_outs) {
            return o;
        }
        if matches!(recv_ty, Ty::Tensor | Ty::OptTensor | Ty::Unknown) {
            // A method of an undefined tensor fails, as in C++.
            let ty = if recv_ty == Ty::OptTensor {
                Ty::OptTensor
            } else {
                Ty::Tensor
            };
            let mut all = vec![out(recv, ty)];
            all.extend(arg_outs);
            return self.op_call(name, all, true);
        }
        self.block_unsupported(&format!("method `{name}` of a value of type {recv_ty:?}"))
    }

    /// `at::native::get_nested_tensor_impl(t)->get_nested_sizes()` (and the strides and
    /// storage offsets): the metadata tensors of a nested tensor, which ATen's operators
    /// `t._nested_tensor_size()`, `_nested_tensor_strides()` and
    /// `_nested_tensor_storage_offsets()` return.
    fn nested_impl(&mut self, receiver: &Expr, name: &str, args: &[Expr]) -> Option<Out> {
        let ExprKind::Call {
            callee,
            args: inner,
            ..
        } = &receiver.kind
        else {
            return None;
        };
        let callee = callee.to_string();
        if callee.trim_start_matches("::") != "at::native::get_nested_tensor_impl" {
            return None;
        }
        let op = match (name, args.len(), inner.as_slice()) {
            ("get_nested_sizes", 0, [_]) => "_nested_tensor_size",
            ("get_nested_strides", 0, [_]) => "_nested_tensor_strides",
            ("get_storage_offsets", 0, [_]) => "_nested_tensor_storage_offsets",
            _ => return None,
        };
        let t = self.expr(&inner[0]);
        Some(self.op_call(op, vec![t], true))
    }

    fn f_path(&self, name: &str) -> String {
        format!("{}::autograd::functions::{name}", self.options.runtime)
    }

    /// The methods that read a value rather than call an operator.
    fn accessor(&mut self, recv: &str, ty: &Ty, name: &str, args: &[Out]) -> Option<Out> {
        let f = |n: &str| self.f_path(n);
        let rt = self.options.runtime.clone();
        let arg = |i: usize| args.get(i).map_or_else(String::new, |a| a.code.clone());
        let o = match (ty, name, args.len()) {
            (Ty::Tensor, "sym_sizes" | "sizes", 0) => {
                out(format!("{}(&{recv})?", f("sizes")), Ty::IntList)
            }
            (Ty::Tensor, "sym_strides" | "strides", 0) => {
                out(format!("{}(&{recv})?", f("strides")), Ty::IntList)
            }
            (Ty::Tensor, "sym_size" | "size", 1) => {
                out(format!("{}(&{recv}, {})?", f("size"), arg(0)), Ty::Int)
            }
            (Ty::Tensor, "dim", 0) => out(format!("{}(&{recv})?", f("dim")), Ty::Int),
            (Ty::Tensor, "numel" | "sym_numel", 0) => {
                out(format!("{}(&{recv})?", f("numel")), Ty::Int)
            }
            (Ty::Tensor, "scalar_type", 0) => {
                out(format!("{}(&{recv})?", f("scalar_type")), Ty::ScalarType)
            }
            (Ty::Tensor, "options", 0) => out(format!("{}(&{recv})?", f("options")), Ty::Options),
            (Ty::Tensor, "layout", 0) => out(format!("{}(&{recv})?", f("layout")), Ty::Layout),
            (Ty::Tensor, "is_complex", 0) => {
                out(format!("{}(&{recv})?", f("is_complex")), Ty::Bool)
            }
            (Ty::Tensor, "conj", 0) => out(format!("{}(&{recv})?", f("conj")), Ty::Tensor),
            (Ty::Tensor, "defined", 0) => out("true", Ty::Bool),
            (Ty::OptTensor, "defined", 0) => out(format!("({recv}).is_some()"), Ty::Bool),
            (Ty::Scalar, "conj", 0) => out(format!("{}({recv})", f("scalar_conj")), Ty::Scalar),
            (Ty::Scalar, "toDouble" | "toFloat" | "to", 0) => {
                out(format!("({recv}).to_f64()"), Ty::Float)
            }
            // C++ truncates a floating-point value.
            (Ty::Scalar, "toLong" | "toInt", 0) => out(
                format!(
                    "match {recv} {{ {rt}::Scalar::Int(__i) => __i, __s => __s.to_f64() as i64 }}"
                ),
                Ty::Int,
            ),
            (Ty::Tensor, "dtype", 0) => {
                out(format!("{}(&{recv})?", f("scalar_type")), Ty::ScalarType)
            }
            (Ty::Tensor, "is_floating_point", 0) => out(
                format!("{}({}(&{recv})?)", f("is_floating_type"), f("scalar_type")),
                Ty::Bool,
            ),
            (t, "value_or", 1) if t.is_optional() => out(
                format!(
                    "{}.unwrap_or({})",
                    clone_of(recv),
                    args.first().map_or_else(String::new, |a| convert_number(
                        &rt,
                        a,
                        &t.unwrapped()
                    ))
                ),
                t.unwrapped(),
            ),
            (Ty::Scalar, "isComplex", 0) => out(
                format!("::core::matches!({recv}, {rt}::Scalar::Complex(_))"),
                Ty::Bool,
            ),
            (t, "has_value", 0) if t.is_optional() => out(format!("({recv}).is_some()"), Ty::Bool),
            (t, "value", 0) if t.is_optional() => out(
                format!("{}({})?", f("value"), clone_of(recv)),
                t.unwrapped(),
            ),
            (
                Ty::TensorList
                | Ty::OptTensorList
                | Ty::IntList
                | Ty::IntListList
                | Ty::ScalarTypeList
                | Ty::FloatList,
                "size",
                0,
            ) => out(format!("(({recv}).len() as i64)"), Ty::Int),
            (Ty::IntList, "vec", 0) => out(format!("({recv}).to_vec()"), Ty::IntList),
            (Ty::TypeAndSize, "zeros", 0) => out(
                format!("({recv}).zeros::<{}>()?", self.options.tensor),
                Ty::Tensor,
            ),
            (Ty::Options, "dtype", 1) => out(format!("({recv}).dtype({})", arg(0)), Ty::Options),
            (Ty::Tensor, "requires_grad", 0) => {
                out(format!("{rt}::autograd::requires_grad(&{recv})"), Ty::Bool)
            }
            (Ty::OptTensor, "requires_grad", 0) => out(
                format!("({recv}).as_ref().is_some_and(|t| {rt}::autograd::requires_grad(t))"),
                Ty::Bool,
            ),
            (Ty::Tensor, "suggest_memory_format", 0) => out(
                format!("{}(&{recv})?", f("suggest_memory_format")),
                Ty::MemoryFormat,
            ),
            (Ty::Tensor, "is_contiguous", 0) => {
                out(format!("{}(&{recv})?", f("is_contiguous")), Ty::Bool)
            }
            (Ty::IntList, "back", 0) => out(format!("{}(&{recv})?", f("back")), Ty::Int),
            (Ty::Scalar, "toComplexDouble", 0) => {
                out(format!("{}({recv})", f("to_complex_double")), Ty::Scalar)
            }
            _ => return None,
        };
        Some(o)
    }
}
