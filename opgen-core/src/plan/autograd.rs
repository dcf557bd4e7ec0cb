//! The Autograd kernel and backward node of an operator with derivative formulas, as data
//! (torchgen's `gen_variable_type` and `gen_autograd_functions` decisions): which kind of
//! kernel (functional, in-place, out, view), which arguments are differentiable, what the
//! node saves (exactly the values torchgen's `saved_variables` finds in the formulas, each
//! only when a gradient that uses it is needed), and what each formula binds.
//!
//! ```
//! use opgen_core::formula::translate::Ty;
//! use opgen_core::native::{derivatives::load_derivatives, load_native_functions};
//! use opgen_core::plan::{AutogradInput, AutogradKind, AutogradPlan, TranslatedFormula};
//! let natives = load_native_functions("- func: exp(Tensor self) -> Tensor\n", "").unwrap();
//! let d = load_derivatives("d.yaml", "- name: exp(Tensor self) -> Tensor\n  self: grad * result.conj()\n", &natives).unwrap();
//! let info = d.entries[0].default_info().unwrap();
//! let formula = TranslatedFormula {
//!     rust: "try_mul(&grad, &conj(&result)?)?".into(),
//!     uses: vec!["grad".into(), "result".into()],
//! };
//! let plan = AutogradPlan::new(&AutogradInput { info, node: "ExpBackward0".into(), formulas: &[formula] });
//! assert_eq!(plan.kind, AutogradKind::Functional);
//! // `exp` saves its result, not its input.
//! let fields: Vec<&str> = plan.fields.iter().map(|f| f.name.as_str()).collect();
//! assert_eq!(fields, ["result"]);
//! ```

use super::names::rust_ident;
use super::types::{RustType, ValueType, argument_type};
use crate::native::derivatives::{
    DifferentiabilityInfo, SavedAttribute, SavedType, differentiable_outputs,
    inputs_without_formula, return_names,
};
use crate::schema::{ArgType, BaseType, Schema, SchemaKind};

/// What the plan of an Autograd kernel is made from.
#[derive(Debug, Clone)]
pub struct AutogradInput<'a> {
    /// torchgen's facts about the operator's formulas (its schema is the operator's).
    pub info: &'a DifferentiabilityInfo,
    /// The backward node's name (`MulBackward0`).
    pub node: String,
    /// Each formula of `info.derivatives`, in Rust.
    pub formulas: &'a [TranslatedFormula],
}

/// A backward formula in Rust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslatedFormula {
    /// The Rust expression (it may use `?`).
    pub rust: String,
    /// The variables it names, by their formula (C++) names: `grad`, `self`,
    /// `self_sym_sizes`, `grad_input_mask`.
    pub uses: Vec<String>,
}

/// The kind of Autograd kernel (the runtime function it calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutogradKind {
    /// `autograd::functional`.
    Functional,
    /// `autograd::inplace`: `self` (argument `self_arg`) is written and rebased.
    InPlace {
        /// The schema index of `self`.
        self_arg: usize,
    },
    /// `autograd::out`: refuses inputs that require grad.
    Out,
    /// `autograd::view`: the outputs are views of argument `base`.
    View {
        /// The schema index of the base.
        base: usize,
        /// The view is one return that is a list (`unbind`), not a tensor.
        list: bool,
    },
}

/// Where a saved value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource {
    /// A schema argument.
    Arg(usize),
    /// A return (its position).
    Return(usize),
    /// The gathered TensorOptions arguments (`options`).
    Options,
}

/// How a saved value is computed from its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SavedValue {
    /// A tensor, kept as a `SavedVariable` (an in-place `self`: a clone made before the
    /// operation, PyTorch's `original_self`).
    Tensor {
        /// The source is `Tensor?`.
        optional: bool,
        /// `original_self`.
        original_self: bool,
    },
    /// A list of tensors (`Tensor[]`, `Tensor?[]`), one `SavedVariable` each.
    TensorList {
        /// `Tensor?[]`.
        optional: bool,
    },
    /// A non-tensor argument or return, copied (as `owned`).
    Copy {
        /// The source's Rust type (a parameter's).
        ty: RustType,
    },
    /// `x.sym_sizes()` (or `.sym_strides()` with `strides`).
    Sizes {
        /// The strides rather than the sizes.
        strides: bool,
        /// `x->sym_sizes()` of an optional tensor.
        optional: bool,
    },
    /// `x.sym_size(dim)`.
    Size(i64),
    /// `x.numel()`, `x.sym_numel()`.
    Numel,
    /// `x.dim()`.
    Dim,
    /// `x.options()`.
    Options,
    /// `zeros_like(x)`: the shape and options.
    TypeAndSize,
    /// `TensorGeometry(x)`.
    Geometry,
    /// `to_args_sizes(xs)`.
    ArgsSizes,
    /// `to_args_scalartypes(xs)`.
    ArgsScalarTypes,
    /// `x.scalar_type()`.
    ScalarType,
    /// `x.layout()`.
    Layout,
    /// `x.is_conj()` (always false: opgen has no conjugate bit).
    IsConj,
    /// The gathered `options` argument.
    GatheredOptions,
}

/// One value the backward node saves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedField {
    /// The field's name, also the name formulas use for it in Rust (`self_`, `self_sym_sizes`).
    pub name: String,
    /// What it is.
    pub value: SavedValue,
    /// Where it comes from.
    pub source: ValueSource,
    /// Whether it is saved after the operator ran (from its returns).
    pub after: bool,
    /// The differentiable inputs (indices into [`AutogradPlan::inputs`]) whose gradients use
    /// it: it is saved when one of them is needed.
    pub needed_by: Vec<usize>,
}

/// What a formula's variable is bound to in the backward function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// `grad`: the gradient of differentiable output 0 (the formula is skipped when it is
    /// zero).
    Grad,
    /// `grad_<name>`: the gradient of differentiable output `i`, possibly undefined.
    NamedGrad(usize),
    /// `grads`: every output gradient.
    Grads,
    /// `grad_input_mask`: for each input the formula differentiates, whether it is needed.
    Mask,
    /// `retain_variables`.
    RetainVariables,
    /// A saved field (its index in [`AutogradPlan::fields`]).
    Field(usize),
}

/// One formula of the backward function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivativeStep {
    /// The differentiable inputs it gives gradients of (indices into
    /// [`AutogradPlan::inputs`]), in its key's order.
    pub inputs: Vec<usize>,
    /// The Rust expression.
    pub rust: String,
    /// Its variables: (Rust name, what it is bound to).
    pub bindings: Vec<(String, Binding)>,
}

/// The plan of an operator's Autograd kernel and backward node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutogradPlan {
    /// The node's name (`MulBackward0`).
    pub node: String,
    /// The operator's name in messages (`mul`, `mul_`).
    pub op: String,
    /// The kind of kernel.
    pub kind: AutogradKind,
    /// The differentiable arguments (schema indices), in schema order: the node's inputs.
    pub inputs: Vec<usize>,
    /// Whether each input is a list (`Tensor[]`, `Tensor?[]`).
    pub list_inputs: Vec<bool>,
    /// Tensor arguments without formula, not `non_differentiable`: they must not require
    /// grad (PyTorch's `check_no_requires_grad`), by schema index.
    pub unchecked: Vec<usize>,
    /// For out operators, the out arguments.
    pub outs: Vec<usize>,
    /// Whether each return is differentiable; empty when all are.
    pub output_differentiability: Vec<bool>,
    /// What the node saves.
    pub fields: Vec<SavedField>,
    /// The formulas.
    pub steps: Vec<DerivativeStep>,
}

impl AutogradPlan {
    /// Plans the kernel and node of `input.info`'s operator.
    pub fn new(input: &AutogradInput<'_>) -> AutogradPlan {
        let info = input.info;
        let schema = &info.func;
        let kind = kind_of(schema);
        let index = |name: &str| schema.arguments.iter().position(|a| a.name == name);
        let inputs: Vec<usize> = info
            .args_with_derivatives
            .iter()
            .filter_map(|n| index(n))
            .collect();
        let list_inputs = inputs
            .iter()
            .map(|&i| matches!(schema.arguments[i].ty, ArgType::List { .. }))
            .collect();
        let input_of = |name: &str| index(name).and_then(|i| inputs.iter().position(|&j| j == i));
        let unchecked = inputs_without_formula(info)
            .iter()
            .filter_map(|n| index(n))
            .collect();
        let outs = match kind {
            AutogradKind::Out => (schema.out_start()..schema.arguments.len()).collect(),
            _ => Vec::new(),
        };
        let differentiable = differentiable_outputs(info);
        let output_differentiability = if differentiable.len() == schema.returns.len() {
            Vec::new()
        } else {
            (0..schema.returns.len())
                .map(|i| differentiable.contains(&i))
                .collect()
        };
        let mut fields = Vec::new();
        for derivative in &info.derivatives {
            let needed: Vec<usize> = derivative
                .var_names
                .iter()
                .filter_map(|v| input_of(v))
                .collect();
            let saved = (derivative.saved_inputs.iter().map(|s| (s, false)))
                .chain(derivative.saved_outputs.iter().map(|s| (s, true)));
            for (s, after) in saved {
                add_field(&mut fields, schema, kind, s, after, &needed);
            }
        }
        let named = named_gradients(schema, &differentiable);
        let steps = (info.derivatives.iter().zip(input.formulas))
            .map(|(d, f)| DerivativeStep {
                inputs: d.var_names.iter().filter_map(|v| input_of(v)).collect(),
                rust: f.rust.clone(),
                bindings: bindings(&f.uses, &fields, &named),
            })
            .collect();
        AutogradPlan {
            node: input.node.clone(),
            op: schema.name.name.to_string(),
            kind,
            inputs,
            list_inputs,
            unchecked,
            outs,
            output_differentiability,
            fields,
            steps,
        }
    }

    /// Whether some field is saved after the operator ran.
    pub fn saves_outputs(&self) -> bool {
        self.fields.iter().any(|f| f.after)
    }

    /// The plan of the in-place variant of this functional operator (of schema `schema`),
    /// with its formulas, as torchgen serves an in-place operator without an entry of its
    /// own: the same node and steps, `self` saved as a clone made before the call where a
    /// formula reads it (PyTorch's `original_self`), `result` read from `self` after it.
    /// `None` when no in-place variant can exist: a kernel that is not functional, no
    /// `Tensor self`, or not one tensor return.
    ///
    /// ```
    /// # use opgen_core::native::{derivatives::load_derivatives, load_native_functions};
    /// # use opgen_core::plan::{AutogradInput, AutogradKind, AutogradPlan, SavedValue, TranslatedFormula};
    /// let natives = load_native_functions("- func: mul.Tensor(Tensor self, Tensor other) -> Tensor\n", "").unwrap();
    /// let d = load_derivatives("d.yaml", "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * other\n  other: grad * self\n", &natives).unwrap();
    /// let info = d.entries[0].default_info().unwrap();
    /// let f = |uses: &[&str]| TranslatedFormula { rust: "grad".into(), uses: uses.iter().map(|u| u.to_string()).collect() };
    /// let formulas = [f(&["grad", "other"]), f(&["grad", "self"])];
    /// let plan = AutogradPlan::new(&AutogradInput { info, node: "MulBackward0".into(), formulas: &formulas });
    /// let inplace = plan.inplace_variant(&info.func).unwrap();
    /// assert_eq!((inplace.kind, inplace.op.as_str()), (AutogradKind::InPlace { self_arg: 0 }, "mul_"));
    /// let self_ = inplace.fields.iter().find(|f| f.name == "self_").unwrap();
    /// assert_eq!(self_.value, SavedValue::Tensor { optional: false, original_self: true });
    /// ```
    pub fn inplace_variant(&self, schema: &Schema) -> Option<AutogradPlan> {
        if !matches!(
            self.kind,
            AutogradKind::Functional | AutogradKind::View { .. }
        ) {
            return None;
        }
        let self_arg = schema.self_index()?;
        let is_tensor = |t: &ArgType| *t == ArgType::Base(BaseType::Tensor);
        let [ret] = schema.returns.as_slice() else {
            return None;
        };
        if !is_tensor(&schema.arguments[self_arg].ty) || !is_tensor(&ret.ty) {
            return None;
        }
        let mut name = schema.name.name.clone();
        name.inplace = true;
        let mut plan = self.clone();
        plan.kind = AutogradKind::InPlace { self_arg };
        plan.op = name.to_string();
        for f in &mut plan.fields {
            if let SavedValue::Tensor { original_self, .. } = &mut f.value {
                *original_self = f.source == ValueSource::Arg(self_arg);
            }
        }
        Some(plan)
    }
}

/// The kind of kernel a schema gets.
fn kind_of(schema: &Schema) -> AutogradKind {
    match schema.kind() {
        SchemaKind::Inplace => AutogradKind::InPlace {
            self_arg: schema.self_index().unwrap_or(0),
        },
        SchemaKind::Out => AutogradKind::Out,
        _ => view_of(schema).unwrap_or(AutogradKind::Functional),
    }
}

/// A view operator: its returns alias one argument, as one tensor, one list of tensors
/// (`unbind`), or several tensors (each a view of the base: PyTorch's multi-output views).
fn view_of(schema: &Schema) -> Option<AutogradKind> {
    let first = schema.returns.first()?;
    let alias = first.annotation.as_ref().filter(|a| !a.is_write)?;
    let base = schema.arguments.iter().position(|a| {
        a.annotation
            .as_ref()
            .is_some_and(|b| !b.is_write && b.before.iter().any(|c| alias.before.contains(c)))
    })?;
    let tensor = ArgType::Base(BaseType::Tensor);
    if let [ret] = schema.returns.as_slice() {
        let list = match &ret.ty {
            t if *t == tensor => false,
            ArgType::List { elem, .. } if **elem == tensor => true,
            _ => return None,
        };
        return Some(AutogradKind::View { base, list });
    }
    // Several returns: each a tensor aliasing the base (otherwise some are new tensors, and
    // the operator is not a view).
    let all_views = schema.returns.iter().all(|r| {
        r.ty == tensor
            && (r.annotation.as_ref())
                .is_some_and(|a| !a.is_write && a.before.iter().any(|c| alias.before.contains(c)))
    });
    all_views.then_some(AutogradKind::View { base, list: false })
}

/// The named returns among the differentiable outputs: `grad_<name>` → its index among
/// them.
fn named_gradients(schema: &Schema, differentiable: &[usize]) -> Vec<(String, usize)> {
    (differentiable.iter().enumerate())
        .filter_map(|(k, &i)| {
            let name = schema.returns.get(i)?.name.as_ref()?;
            Some((format!("grad_{name}"), k))
        })
        .collect()
}

/// Adds saved value `s` (or marks it needed by `needed` too, when a formula saved it
/// before).
fn add_field(
    fields: &mut Vec<SavedField>,
    schema: &Schema,
    kind: AutogradKind,
    s: &SavedAttribute,
    after: bool,
    needed: &[usize],
) {
    let name = rust_ident(&s.name);
    if let Some(f) = fields.iter_mut().find(|f| f.name == name) {
        for n in needed {
            if !f.needed_by.contains(n) {
                f.needed_by.push(*n);
            }
        }
        return;
    }
    let Some((source, value)) = saved_value(schema, kind, s) else {
        return;
    };
    fields.push(SavedField {
        name,
        value,
        source,
        after,
        needed_by: needed.to_vec(),
    });
}

/// The source variable of a saved expression: its first name that is an argument, a
/// return (`result`) or `options`.
fn source_of(schema: &Schema, expr: &str) -> Option<ValueSource> {
    let names = return_names(schema);
    let words = expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for w in words {
        if w == "options" && schema.has_tensor_options() {
            return Some(ValueSource::Options);
        }
        if let Some(i) = schema.arguments.iter().position(|a| a.name == w) {
            return Some(ValueSource::Arg(i));
        }
        let ret = names
            .iter()
            .position(|n| n == w || (n == "self" && w == "result"));
        if let Some(i) = ret {
            return Some(ValueSource::Return(i));
        }
    }
    None
}

/// How saved value `s` is computed, and from what.
fn saved_value(
    schema: &Schema,
    kind: AutogradKind,
    s: &SavedAttribute,
) -> Option<(ValueSource, SavedValue)> {
    let source = source_of(schema, &s.expr)?;
    let ty_of = |source: ValueSource| match source {
        ValueSource::Arg(i) => schema
            .arguments
            .get(i)
            .map(|a| (a.ty.clone(), a.is_write())),
        ValueSource::Return(i) => schema.returns.get(i).map(|r| (r.ty.clone(), false)),
        ValueSource::Options => None,
    };
    let value = match &s.ty {
        SavedType::Argument(t) | SavedType::Return(t) if t.is_tensor_like() => match t {
            ArgType::List { elem, .. } => SavedValue::TensorList {
                optional: matches!(**elem, ArgType::Optional(_)),
            },
            _ => SavedValue::Tensor {
                optional: matches!(t, ArgType::Optional(_)),
                original_self: matches!(kind, AutogradKind::InPlace { self_arg }
                    if source == ValueSource::Arg(self_arg)),
            },
        },
        SavedType::Argument(_) | SavedType::Return(_) => {
            let (t, write) = ty_of(source)?;
            SavedValue::Copy {
                ty: argument_type(&t, write)?,
            }
        }
        SavedType::Options => SavedValue::GatheredOptions,
        SavedType::SymIntArrayRef => SavedValue::Sizes {
            strides: s.name.ends_with("_sym_strides"),
            optional: false,
        },
        SavedType::OptionalSymIntArrayRef => SavedValue::Sizes {
            strides: false,
            optional: true,
        },
        SavedType::SymInt if s.name.ends_with("_sym_numel") => SavedValue::Numel,
        SavedType::SymInt => SavedValue::Size(size_dim(&s.expr)?),
        SavedType::Int if s.name.ends_with("_dim") => SavedValue::Dim,
        SavedType::Int => SavedValue::Numel,
        SavedType::TensorOptions => SavedValue::Options,
        SavedType::TypeAndSize => SavedValue::TypeAndSize,
        SavedType::TensorGeometry => SavedValue::Geometry,
        SavedType::ArgsSizes | SavedType::ArgsSizesSymInt => SavedValue::ArgsSizes,
        SavedType::ArgsScalarTypes => SavedValue::ArgsScalarTypes,
        SavedType::ScalarType => SavedValue::ScalarType,
        SavedType::Layout => SavedValue::Layout,
        SavedType::Bool => SavedValue::IsConj,
    };
    Some((source, value))
}

/// The dimension of `x.sym_size(dim)`.
fn size_dim(expr: &str) -> Option<i64> {
    let inner = expr.rsplit_once("size(")?.1.split(')').next()?.trim();
    inner.parse().ok()
}

/// What each variable of a formula is bound to, by its Rust name.
fn bindings(
    uses: &[String],
    fields: &[SavedField],
    named: &[(String, usize)],
) -> Vec<(String, Binding)> {
    let mut out = Vec::new();
    for name in uses {
        let binding = match name.as_str() {
            "grad" => Binding::Grad,
            "grads" => Binding::Grads,
            "grad_input_mask" => Binding::Mask,
            "retain_variables" => Binding::RetainVariables,
            other => match named.iter().find(|(n, _)| n == other) {
                Some((_, k)) => Binding::NamedGrad(*k),
                None => match fields.iter().position(|f| f.name == rust_ident(other)) {
                    Some(i) => Binding::Field(i),
                    None => continue,
                },
            },
        };
        let rust = rust_ident(name);
        if !out.iter().any(|(n, _)| *n == rust) {
            out.push((rust, binding));
        }
    }
    out
}

/// The owned form of a parameter's Rust type (what a node keeps of a non-tensor argument):
/// slices become `Vec`s, `&str` a `String`.
pub fn owned_type(ty: &RustType) -> RustType {
    match ty {
        RustType::Ref(inner) => match &**inner {
            RustType::Slice(e) => RustType::Vec(Box::new(owned_type(e))),
            t => owned_type(t),
        },
        RustType::Str => RustType::Value(ValueType::String),
        RustType::Option(inner) => RustType::Option(Box::new(owned_type(inner))),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::derivatives::load_derivatives;
    use crate::native::load_native_functions;

    const NATIVES: &str = "
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
- func: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
- func: exp(Tensor self) -> Tensor
- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
- func: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
- func: unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
- func: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
- func: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
- func: split_pair(Tensor(a) self, int dim) -> (Tensor(a) first, Tensor(a) second)
- func: unpack_pair(Tensor(a) self) -> (Tensor(a) primal, Tensor tangent)
";

    /// The plan of the entry for `schema` in `yaml`, with formulas that name what `uses`.
    fn plan(yaml: &str, schema: &str) -> AutogradPlan {
        let natives = load_native_functions(NATIVES, "").expect("natives");
        let d = load_derivatives("d.yaml", yaml, &natives).expect("loads");
        let info = d.entries[0].default_info().expect("info").clone();
        let f = natives.get(schema).expect("function");
        let info = DifferentiabilityInfo {
            func: f.func.clone(),
            ..info
        };
        let formulas: Vec<TranslatedFormula> = (info.derivatives.iter())
            .map(|d| TranslatedFormula {
                rust: "grad".into(),
                uses: (info.all_saved_inputs.iter().chain(&info.all_saved_outputs))
                    .filter(|s| d.saved_inputs.contains(s) || d.saved_outputs.contains(s))
                    .map(|s| s.name.clone())
                    .chain(["grad".to_string()])
                    .collect(),
            })
            .collect();
        AutogradPlan::new(&AutogradInput {
            info: &info,
            node: "N".into(),
            formulas: &formulas,
        })
    }

    const MUL: &str = "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * other\n  other: grad * self\n";

    #[test]
    fn each_operand_is_saved_for_the_other_gradient() {
        let p = plan(MUL, "mul.Tensor");
        assert_eq!(p.kind, AutogradKind::Functional);
        assert_eq!(p.inputs, [0, 1]);
        let fields: Vec<(&str, &[usize])> = p
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.needed_by.as_slice()))
            .collect();
        // Formulas in key order (`other`, then `self`, as torchgen): `self` is read by
        // `other`'s gradient (input 1), `other` by `self`'s (input 0).
        assert_eq!(fields, [("self_", &[1][..]), ("other", &[0][..])]);
        assert!(p.fields.iter().all(|f| !f.after));
        assert_eq!(p.steps[0].inputs, [1]);
        assert_eq!(
            p.steps[0].bindings[0],
            ("self_".to_string(), Binding::Field(0))
        );
    }

    #[test]
    fn in_place_and_out_variants_take_the_functional_formulas() {
        let p = plan(MUL, "mul_.Tensor");
        assert_eq!(p.kind, AutogradKind::InPlace { self_arg: 0 });
        assert_eq!(p.op, "mul_");
        let self_field = p.fields.iter().find(|f| f.name == "self_").expect("self");
        // `self` before it is overwritten: a clone.
        assert_eq!(
            self_field.value,
            SavedValue::Tensor {
                optional: false,
                original_self: true
            }
        );
        let p = plan(MUL, "mul.out");
        assert_eq!((p.kind, p.outs.as_slice()), (AutogradKind::Out, &[2][..]));
    }

    #[test]
    fn values_computed_from_tensors_are_saved_instead_of_them() {
        let exp = plan(
            "- name: exp(Tensor self) -> Tensor\n  self: grad * result\n",
            "exp",
        );
        let f = &exp.fields[0];
        assert_eq!(
            (f.name.as_str(), f.after, f.source),
            ("result", true, ValueSource::Return(0))
        );
        let sum = plan(
            "- name: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n  self: grad.expand_symint(self.sym_sizes())\n",
            "sum",
        );
        let f = &sum.fields[0];
        assert_eq!(
            (f.name.as_str(), &f.value),
            (
                "self_sym_sizes",
                &SavedValue::Sizes {
                    strides: false,
                    optional: false
                }
            )
        );
    }

    #[test]
    fn views_inputs_without_formula_and_non_differentiable_ones() {
        let t = plan(
            "- name: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)\n  self: grad.transpose(dim0, dim1)\n",
            "transpose.int",
        );
        assert_eq!(
            t.kind,
            AutogradKind::View {
                base: 0,
                list: false
            }
        );
        let u = plan(
            "- name: unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]\n  self: unbind_backward(grads, dim)\n",
            "unbind.int",
        );
        assert_eq!(
            u.kind,
            AutogradKind::View {
                base: 0,
                list: true
            }
        );
        let s = plan(
            "- name: split_pair(Tensor(a) self, int dim) -> (Tensor(a) first, Tensor(a) second)\n  self: grad\n",
            "split_pair",
        );
        // Several returns, each a view of `self`.
        assert_eq!(
            s.kind,
            AutogradKind::View {
                base: 0,
                list: false
            }
        );
        let d = plan(
            "- name: unpack_pair(Tensor(a) self) -> (Tensor(a) primal, Tensor tangent)\n  self: grad\n",
            "unpack_pair",
        );
        // A view and a new tensor: not a view operator.
        assert_eq!(d.kind, AutogradKind::Functional);
        let w = plan(
            "- name: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor\n  condition: non_differentiable\n  self: grad\n  other: grad\n",
            "where.self",
        );
        assert_eq!(
            (w.inputs.as_slice(), w.unchecked.as_slice()),
            (&[1, 2][..], &[][..])
        );
        let i = plan(
            "- name: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor\n  self: grad\n",
            "index.Tensor",
        );
        // `indices` has no formula and is not marked: it must not require grad.
        assert_eq!(i.unchecked, [1]);
    }
}
