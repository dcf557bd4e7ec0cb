//! The generated Rust API as the translator sees it: every operator of a native-functions
//! file by its C++ name, with the parameters of its C++ (and Rust) convenience signature,
//! and C++-style overload resolution by arity and argument types.

use std::collections::HashMap;

use super::types::Ty;
use crate::native::NativeFunctions;
use crate::plan::{
    ArgRole, RustType, Signature, ValueType, args_struct_name, rust_api_signature, rust_fn_name,
};
use crate::schema::SchemaKind;

/// One parameter of an operator's convenience signature.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    /// The Rust name (`self_`, `options`).
    pub rust: String,
    pub ty: Ty,
    pub has_default: bool,
    pub rust_type: crate::plan::RustType,
}

/// One operator overload callable from a formula.
#[derive(Debug, Clone)]
pub(crate) struct ApiOp {
    pub function: bool,
    pub method: bool,
    /// The parameters in C++ order (outs first for out operators).
    pub params: Vec<Param>,
    /// Where `self` is among them.
    pub self_index: Option<usize>,
    pub rust_name: String,
    pub args_struct: String,
    pub returns: Ty,
    /// For the form that takes a `TensorOptions` as its four parts (C++'s scattered
    /// overload: `dtype, layout, device, pin_memory`): where the parts start in `params`,
    /// and the `TensorOptions` parameter they stand for.
    pub options_parts: Option<(usize, Param)>,
}

/// The operators by C++ name (`add`, `add_`, `add_out`).
#[derive(Debug, Default)]
pub struct ApiIndex {
    ops: HashMap<String, Vec<ApiOp>>,
}

impl ApiIndex {
    /// The operators of `natives`, with their variants and `cpp_no_default_args`, by their
    /// usual Rust names (`plan::rust_fn_name`: each declared on its own, as the attribute
    /// declares them).
    pub fn new(natives: &NativeFunctions) -> ApiIndex {
        ApiIndex::with_names(natives, &HashMap::new())
    }

    /// [`ApiIndex::new`] with the names `include_native_functions!` gives operators whose
    /// usual names clash (`_ctc_loss_backward.Tensor` is `_ctc_loss_backward_tensor`):
    /// `names` maps a schema's name (`_ctc_loss_backward.Tensor`) to its function and
    /// arguments struct, as `codegen::included_names` computes them (feature `codegen`).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use opgen_core::formula::{parse_formula, translate::{ApiIndex, Options, Scope, Ty, translate}};
    /// use opgen_core::native::load_native_functions;
    /// let natives = load_native_functions("
    /// - func: clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
    /// - func: clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor
    /// ", "").unwrap();
    /// // As `opgen_core::codegen::included_names(&natives, "T")` names them.
    /// let names = HashMap::from([
    ///     ("clamp".to_string(), ("clamp".to_string(), "ClampArgs".to_string())),
    ///     ("clamp.Tensor".to_string(), ("clamp_tensor".to_string(), "ClampTensorArgs".to_string())),
    /// ]);
    /// let api = ApiIndex::with_names(&natives, &names);
    /// let mut scope = Scope::default();
    /// scope.add("self", "self_", Ty::Tensor);
    /// let e = parse_formula("at::clamp(self, self, self)").unwrap();
    /// let t = translate(&e, &scope, &api, &Options::default()).unwrap();
    /// assert_eq!(t.rust, "try_clamp_tensor_with(&self_, ClampTensorArgs { min: ::core::option::Option::Some(&self_), max: ::core::option::Option::Some(&self_) })?");
    /// ```
    pub fn with_names(
        natives: &NativeFunctions,
        names: &HashMap<String, (String, String)>,
    ) -> ApiIndex {
        let mut ops: HashMap<String, Vec<ApiOp>> = HashMap::new();
        for f in natives.functions() {
            if f.func.kind() == SchemaKind::Out {
                continue;
            }
            let no_default: Vec<String> = f.cpp_no_default_args.iter().cloned().collect();
            let sig = rust_api_signature(&f.func, &no_default);
            let op = ApiOp {
                params: params(&sig),
                self_index: sig
                    .arguments
                    .iter()
                    .position(|a| a.index == f.func.self_index()),
                // A binding written by hand (`manual_cpp_binding`): the generated functions
                // are `__dispatch_*` (the plan's rule), which the hand-written one calls.
                rust_name: match f.manual_cpp_binding {
                    true => format!(
                        "__dispatch_{}",
                        rust_fn_name(&f.func).trim_start_matches("r#")
                    ),
                    false => rust_fn_name(&f.func),
                },
                args_struct: match f.manual_cpp_binding {
                    true => format!("__Dispatch{}", args_struct_name(&f.func)),
                    false => args_struct_name(&f.func),
                },
                returns: Ty::of_rust(&sig.returns),
                function: f.variants.function,
                method: f.variants.method,
                options_parts: None,
            };
            let op = match names.get(&f.func.name.full_name()) {
                Some((name, args_struct)) => ApiOp {
                    rust_name: name.clone(),
                    args_struct: args_struct.clone(),
                    ..op
                },
                None => op,
            };
            let forms = ops.entry(f.func.name.name.to_string()).or_default();
            let scattered = scattered(&op);
            forms.push(op);
            forms.extend(scattered);
        }
        ApiIndex { ops }
    }

    /// The overloads named `name` (C++ name, `_symint` suffix removed).
    pub(crate) fn overloads(&self, name: &str) -> &[ApiOp] {
        let name = name.strip_suffix("_symint").unwrap_or(name);
        self.ops.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether some operator has this C++ name.
    pub fn contains(&self, name: &str) -> bool {
        !self.overloads(name).is_empty()
    }
}

fn params(sig: &Signature) -> Vec<Param> {
    sig.arguments
        .iter()
        .map(|a| Param {
            rust: a.name.clone(),
            ty: if a.role == ArgRole::TensorOptions {
                Ty::Options
            } else {
                Ty::of_rust(&a.ty)
            },
            has_default: a.default.is_some(),
            rust_type: a.ty.clone(),
        })
        .collect()
}

/// The form of `op` that takes its `TensorOptions` parameter as the four optional values
/// `dtype, layout, device, pin_memory` (C++'s scattered overload), if it has one.
fn scattered(op: &ApiOp) -> Option<ApiOp> {
    let at = op.params.iter().position(|p| p.ty == Ty::Options)?;
    let options = op.params[at].clone();
    let part = |name: &str, ty: Ty, value: ValueType| Param {
        rust: name.to_string(),
        ty,
        has_default: options.has_default,
        rust_type: RustType::Option(Box::new(RustType::Value(value))),
    };
    let parts = [
        part("dtype", Ty::OptScalarType, ValueType::ScalarType),
        part("layout", Ty::OptLayout, ValueType::Layout),
        part("device", Ty::OptDevice, ValueType::Device),
        part("pin_memory", Ty::OptBool, ValueType::Bool),
    ];
    let mut params = op.params.clone();
    params.splice(at..=at, parts);
    let self_index = op.self_index.map(|s| if s > at { s + 3 } else { s });
    Some(ApiOp {
        params,
        self_index,
        options_parts: Some((at, options)),
        ..op.clone()
    })
}

/// The best overload for `args` (`receiver` first for a method call): C++'s resolution by
/// number of arguments and how well each fits, the first of equals in file order.
pub(crate) fn resolve<'a>(overloads: &'a [ApiOp], args: &[Ty], method: bool) -> Option<&'a ApiOp> {
    let mut best: Option<(u32, &ApiOp)> = None;
    for op in overloads {
        if (method && !op.method) || (!method && !op.function) {
            continue;
        }
        let Some(score) = score(op, args, method) else {
            continue;
        };
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, op));
        }
    }
    best.map(|(_, op)| op)
}

/// How well `args` fit `op`'s parameters, in C++ order (for a method, `args[0]` is the
/// receiver, matched to `self`).
fn score(op: &ApiOp, args: &[Ty], method: bool) -> Option<u32> {
    let order = call_order(op, method)?;
    if args.len() > order.len()
        || order[args.len()..]
            .iter()
            .any(|&i| !op.params[i].has_default)
    {
        return None;
    }
    let mut total = 0;
    for (arg, &i) in args.iter().zip(&order) {
        total += u32::from(arg.fits(&op.params[i].ty)?);
    }
    Some(total)
}

/// The parameter indices in the order a call passes them: for a method, `self` first.
pub(crate) fn call_order(op: &ApiOp, method: bool) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..op.params.len()).collect();
    if method {
        let s = op.self_index?;
        order.remove(s);
        order.insert(0, s);
    }
    Some(order)
}
