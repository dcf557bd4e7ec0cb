//! What one operator's expansion generates, as data: every item with its name, each form's
//! parameters and what its body passes on, the arguments struct with its defaults as typed
//! values, the method receiver, and the names every item claims (so that
//! `include_native_functions!` can tell two operators apart). Code generation renders an
//! [`OpPlan`]; nothing here knows about tokens.
//!
//! # The items of an operator with a Rust API (`add.Tensor`, variants `function, method`)
//!
//! | item | name | form |
//! |---|---|---|
//! | marker | `add` (type namespace) | implements `dispatch::Operator`: its `call` and `redispatch` are the faithful and redispatch forms |
//! | free functions | `add`, `try_add`, `add_with`, `try_add_with` | defaults filled / given in the arguments struct; panicking / returning the error |
//! | arguments struct | `AddArgs` | one field per defaulted argument, `Default` from the schema |
//! | methods | `add`, `try_add` | the plain and fallible forms minus `self`, calling the free functions |
//!
//! The `_with` forms exist only when the operator has defaulted arguments. They are free
//! functions only when the operator has the `function` variant: methods are for the common
//! call and for chaining, and a call that gives defaulted arguments goes through the free
//! `_with` function and its arguments struct (`method_forms` decides, for inherent methods
//! and extension traits alike). An operator with the `method` variant only has the four
//! forms as methods (`add_`: `add_`, `add_with_`, `try_add_`, `try_add_with_`), its only
//! API.
//!
//! In an extension trait (`methods = "trait NAME"`), a method named as a method of a trait
//! of Rust's prelude (`clone`, `eq`, `max`, ...) is named with `_op` appended
//! ([`method_name`]), so that importing the trait never makes `t.clone()` ambiguous.

use std::collections::BTreeSet;

use super::defaults::{ArgDefault, rust_default};
use super::names::{
    args_struct_name, args_struct_name_for, form_name, fresh_name, marker_name, method_name,
    rust_fn_name, rust_ident,
};
use super::signature::method_receiver;
use super::types::{RustType, argument_type, return_type};
use crate::native::{DeviceCheck, NativeFunction, Variants};
use crate::schema::Schema;

/// The most arguments a typed call takes (`dispatch::MAX_ARITY`).
pub const MAX_ARGUMENTS: usize = crate::dispatch::MAX_ARITY;

/// The most returns a typed call returns (the tuples `dispatch::RetValue` is implemented for).
pub const MAX_RETURNS: usize = 10;

/// How methods attach to the tensor type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MethodsKind {
    /// An inherent `impl` of the tensor type (in the crate that defines it).
    Inherent,
    /// An extension trait of this name, implemented for the tensor type.
    Trait(String),
}

/// What the plan of one operator is made from.
#[derive(Debug, Clone)]
pub struct PlanInput<'a> {
    /// The native function (schema without namespace, variants, device settings, ...).
    pub function: &'a NativeFunction,
    /// The registration namespace.
    pub namespace: &'a str,
    /// The Rust name of the free function and method (default [`rust_fn_name`]), without `r#`.
    pub name: Option<String>,
    /// The arguments struct's name (default: from the Rust name).
    pub args_struct: Option<String>,
    /// How methods attach.
    pub methods: MethodsKind,
    /// Identifiers of the user's that generated code names in the same scope (the kernel,
    /// the tensor type): no parameter or local of the expansion takes them.
    pub reserved: BTreeSet<String>,
}

/// Why an operator has no Rust API (it is then registered only, callable by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    /// The argument's schema type has no Rust parameter type.
    ArgumentType(usize),
    /// The return's schema type has no Rust return type.
    ReturnType(usize),
    /// More arguments than typed calls take.
    TooManyArguments(usize),
    /// More returns than typed calls return.
    TooManyReturns(usize),
    /// The argument's default has no Rust value of its type.
    Default(usize),
    /// The `method` variant on a schema whose `self` is not a `Tensor`.
    MethodSelf,
}

impl Blocker {
    /// The reason, in words, for `schema`.
    pub fn describe(&self, schema: &Schema) -> String {
        let arg = |i: usize| {
            schema
                .arguments
                .get(i)
                .map_or_else(|| "?".to_string(), |a| format!("`{} {}`", a.ty, a.name))
        };
        match self {
            Blocker::ArgumentType(i) => format!("argument {} has no Rust type", arg(*i)),
            Blocker::ReturnType(i) => format!(
                "return `{}` has no Rust type",
                schema
                    .returns
                    .get(*i)
                    .map_or_else(String::new, |r| r.ty.to_string())
            ),
            Blocker::TooManyArguments(n) => {
                format!("it has {n} arguments; typed calls take at most {MAX_ARGUMENTS}")
            }
            Blocker::TooManyReturns(n) => {
                format!("it has {n} returns; typed calls return at most {MAX_RETURNS}")
            }
            Blocker::Default(i) => format!("the default of argument {} has no Rust value", arg(*i)),
            Blocker::MethodSelf => "the `method` variant needs `self` to be a `Tensor`".to_string(),
        }
    }
}

/// What keeps `f` from having a Rust API; empty when it can have one.
pub fn blockers(f: &NativeFunction) -> Vec<Blocker> {
    let schema = &f.func;
    let mut out = Vec::new();
    for (i, a) in schema.arguments.iter().enumerate() {
        if argument_type(&a.ty, a.is_write()).is_none() {
            out.push(Blocker::ArgumentType(i));
        } else if let Some(d) = &a.default
            && !f.cpp_no_default_args.contains(a.name.as_str())
            && rust_default(&a.ty, &d.value).is_none()
        {
            out.push(Blocker::Default(i));
        }
    }
    for (i, r) in schema.returns.iter().enumerate() {
        if return_type(&r.ty).is_none() {
            out.push(Blocker::ReturnType(i));
        }
    }
    if schema.arguments.len() > MAX_ARGUMENTS {
        out.push(Blocker::TooManyArguments(schema.arguments.len()));
    }
    if schema.returns.len() > MAX_RETURNS {
        out.push(Blocker::TooManyReturns(schema.returns.len()));
    }
    if f.variants.method && schema.self_arg().is_some_and(|s| !s.ty.is_plain_tensor()) {
        out.push(Blocker::MethodSelf);
    }
    out
}

/// One schema argument as the generated code sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgPlan {
    /// The schema's name (`self`).
    pub name: String,
    /// The Rust identifier of its parameter and field (`self_`, `r#type`); unique among the
    /// operator's arguments and the names its expansion uses.
    pub ident: String,
    /// Its Rust type (`T` for the tensor type).
    pub ty: RustType,
    /// Its default, where the Rust API keeps it (not for out arguments nor
    /// `cpp_no_default_args`).
    pub default: Option<ArgDefault>,
    /// The argument as written in the schema: `Scalar alpha=1`.
    pub text: String,
}

/// A parameter of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// A schema argument (its index).
    Arg(usize),
    /// The TensorOptions group, gathered: `options: TensorOptions`.
    Options,
    /// The arguments struct.
    Struct,
}

/// Where the value of one schema argument comes from in a form's call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The parameter of that argument.
    Param(usize),
    /// The method's receiver, `self`.
    Receiver,
    /// The arguments struct's field of that argument.
    Field(usize),
    /// Part `0..4` (`dtype`, `layout`, `device`, `pin_memory`) of the gathered options: of
    /// the parameter, or of the arguments struct's `options` field.
    OptionsPart {
        /// 0 for `dtype`, ... 3 for `pin_memory`.
        part: usize,
        /// From the struct's field, not a parameter.
        in_struct: bool,
    },
}

/// What a form's body does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Calls the fallible form `sibling` with the same parameters and returns its value, or
    /// panics with its error.
    Unwrap {
        /// The fallible form's name.
        sibling: String,
    },
    /// Calls the `_with` form `sibling` with the same parameters and the arguments struct's
    /// defaults (with `options` in it when the struct has that field).
    Defaults {
        /// The `_with` form's name.
        sibling: String,
    },
    /// Calls the operator (its marker's `call`) with every argument, in schema order.
    Call(Vec<Source>),
    /// A method's body: calls the free function `name` (of the same form), `self` in the
    /// receiver's place.
    Function {
        /// The free function's name.
        name: String,
    },
}

/// One function or method of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// Its Rust name (raw when a keyword: `r#where`).
    pub name: String,
    /// Returns `Result<_, Error>` rather than panicking.
    pub fallible: bool,
    /// Takes the arguments struct.
    pub with: bool,
    /// For a method: `Some(true)` for `&mut self`, `Some(false)` for `&self`.
    pub receiver: Option<bool>,
    /// Its parameters, in order (without the receiver).
    pub params: Vec<Param>,
    /// Its body.
    pub body: Body,
}

/// The arguments struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsStruct {
    /// Its name (`AddArgs`).
    pub name: String,
    /// The arguments it holds (schema order); the gathered options stand at the index of
    /// `dtype` when [`Api::options`] is a field.
    pub fields: Vec<usize>,
    /// It holds references, so it has a lifetime `'a`.
    pub lifetime: bool,
    /// It can derive `Clone` (no `&mut` field).
    pub clone: bool,
}

/// The typed API of an operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Api {
    /// NAME, the base of every form's name, without `r#` (`add`, `__dispatch_zeros`).
    pub name: String,
    /// The marker's name, in the type namespace (`add`).
    pub marker: String,
    /// The free functions (when the operator has the `function` variant).
    pub functions: Vec<Form>,
    /// The methods (when it has the `method` variant and a `self`).
    pub methods: Vec<Form>,
    /// How the methods attach.
    pub methods_kind: MethodsKind,
    /// The arguments struct, when some argument before the outs has a default.
    pub args_struct: Option<ArgsStruct>,
    /// The index of `dtype` when the TensorOptions group is gathered into one
    /// `options: TensorOptions` (its four arguments are optional).
    pub options: Option<usize>,
    /// Whether `options` is a field of the arguments struct (the four have defaults).
    pub options_in_struct: bool,
    /// The schema index of the method receiver `self`.
    pub receiver: Option<usize>,
    /// The name of the `options` parameter (`options` unless an argument has it).
    pub options_param: String,
    /// The name of the arguments-struct parameter (`args` unless an argument has it).
    pub struct_param: String,
}

/// The names an expansion defines, by namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claims {
    /// Functions of the module.
    pub values: Vec<String>,
    /// Types of the module (the marker, the arguments struct).
    pub types: Vec<String>,
    /// Methods of the tensor type.
    pub methods: Vec<String>,
}

/// The plan of one operator.
#[derive(Debug, Clone, PartialEq)]
pub struct OpPlan {
    /// The registration namespace.
    pub namespace: String,
    /// The schema, without namespace.
    pub schema: Schema,
    /// The schema as printed, without namespace.
    pub text: String,
    /// `add.Tensor`.
    pub full_name: String,
    /// Every schema argument.
    pub args: Vec<ArgPlan>,
    /// The returns as one Rust type.
    pub returns: RustType,
    /// The `variants` field.
    pub variants: Variants,
    /// `device_check: ExactSame`.
    pub device_check: bool,
    /// `device_guard: True`.
    pub device_guard: bool,
    /// The operator gets a generated `BackendSelect` kernel (SCHEMA.md §5.9).
    pub backend_select: bool,
    /// The Rust API, or why there is none.
    pub api: Result<Api, Vec<Blocker>>,
}

impl OpPlan {
    /// Plans the operator of `input`.
    pub fn new(input: &PlanInput<'_>) -> OpPlan {
        let f = input.function;
        let schema = &f.func;
        let blockers = blockers(f);
        let mut args: Vec<ArgPlan> = (schema.arguments.iter().enumerate())
            .map(|(i, a)| ArgPlan {
                name: a.name.to_string(),
                ident: super::names::arg_ident(&a.name),
                ty: argument_type(&a.ty, a.is_write()).unwrap_or(RustType::Tuple(Vec::new())),
                default: a
                    .default
                    .as_ref()
                    .filter(|_| i < schema.out_start())
                    .filter(|_| !f.cpp_no_default_args.contains(a.name.as_str()))
                    .and_then(|d| rust_default(&a.ty, &d.value)),
                text: a.to_string(),
            })
            .collect();
        let api = blockers
            .is_empty()
            .then(|| plan_api(input, &mut args))
            .ok_or(blockers);
        OpPlan {
            namespace: input.namespace.to_string(),
            schema: schema.clone(),
            text: schema.to_string(),
            full_name: schema.name.full_name(),
            args,
            returns: super::signature::returns_type(schema),
            variants: f.variants,
            device_check: f.device_check == DeviceCheck::ExactSame,
            device_guard: f.device_guard,
            backend_select: schema.needs_backend_select(),
            api,
        }
    }

    /// The schema with its namespace: `aten::add.Tensor(...) -> Tensor`.
    pub fn qualified_schema(&self) -> String {
        format!("{}::{}", self.namespace, self.text)
    }

    /// The names the expansion defines.
    pub fn claims(&self) -> Claims {
        let Ok(api) = &self.api else {
            return Claims::default();
        };
        let mut c = Claims {
            values: api.functions.iter().map(|f| f.name.clone()).collect(),
            types: vec![api.marker.clone()],
            methods: api.methods.iter().map(|f| f.name.clone()).collect(),
        };
        c.types
            .extend(api.args_struct.iter().map(|s| s.name.clone()));
        c
    }

    /// The argument's identifier, or the gathered `options`.
    pub fn param_ident(&self, p: Param) -> &str {
        match (p, &self.api) {
            (Param::Arg(i), _) => self.args.get(i).map_or("", |a| a.ident.as_str()),
            (Param::Options, Ok(api)) => &api.options_param,
            (Param::Struct, Ok(api)) => &api.struct_param,
            _ => "",
        }
    }
}

/// The API of a function without blockers; settles the arguments' identifiers.
fn plan_api(input: &PlanInput<'_>, args: &mut [ArgPlan]) -> Api {
    let f = input.function;
    let schema = &f.func;
    let mut name = input.name.clone().unwrap_or_else(|| rust_fn_name(schema));
    if let Some(raw) = name.strip_prefix("r#") {
        name = raw.to_string();
    }
    if f.manual_cpp_binding {
        name = format!("__dispatch_{name}");
    }
    let out_start = schema.out_start();
    // The TensorOptions group is one `options` value in the convenient forms when its four
    // arguments are optional (the runtime's `TensorOptions` holds `Option`s); it stands at
    // the index of `dtype`, and the other three are left out.
    let options = schema.tensor_options_start().filter(|&s| {
        (s..s + 4).all(|i| matches!(args.get(i).map(|a| &a.ty), Some(RustType::Option(_))))
    });
    let in_group = |i: usize| options.is_some_and(|s| (s + 1..s + 4).contains(&i));
    let options_in_struct = options.is_some_and(|s| (s..s + 4).all(|i| args[i].default.is_some()));
    // The plain forms: out arguments first, then those without a default (and `options`).
    let mut params: Vec<usize> = (out_start..args.len()).collect();
    params.extend(
        (0..out_start)
            .filter(|&i| !in_group(i) && (args[i].default.is_none() || Some(i) == options)),
    );
    let fields: Vec<usize> = (0..out_start)
        .filter(|&i| {
            !in_group(i) && args[i].default.is_some() && (Some(i) != options || options_in_struct)
        })
        .collect();
    let wants_api = f.variants.function || f.variants.method;
    let args_struct = (!fields.is_empty() && wants_api).then(|| {
        let mut s = input
            .args_struct
            .clone()
            .unwrap_or_else(|| match &input.name {
                Some(n) => args_struct_name_for(schema, n),
                None => args_struct_name(schema),
            });
        if f.manual_cpp_binding {
            s = format!("__Dispatch{s}");
        }
        ArgsStruct {
            name: s,
            lifetime: fields.iter().any(|&i| has_reference(&args[i].ty)),
            clone: !fields.iter().any(|&i| has_mut(&args[i].ty)),
            fields,
        }
    });
    let receiver = f.variants.method.then(|| method_receiver(schema)).flatten();
    // The forms' names, then the parameters' (which must not shadow a name a body uses).
    let with = args_struct.is_some();
    let form = |prefix: &str, suffix: &str| form_name(&name, prefix, suffix);
    let names = Names {
        plain: form("", ""),
        fallible: form("try_", ""),
        with: form("", "_with"),
        fallible_with: form("try_", "_with"),
    };
    let mut taken: BTreeSet<String> = input.reserved.clone();
    taken.extend(["self".to_string(), "Self".to_string()]);
    if f.variants.function {
        taken.extend(names.all(with).into_iter().map(|n| rust_ident(&n)));
    }
    for a in args.iter_mut() {
        let ident = fresh_name(&a.ident, &taken);
        taken.insert(ident.clone());
        a.ident = ident;
    }
    let options_param = fresh_name("options", &taken);
    taken.insert(options_param.clone());
    let struct_param = fresh_name("args", &taken);
    let shape = Shape {
        params: &params,
        options,
        options_in_struct,
        args_struct: args_struct.as_ref(),
        len: args.len(),
    };
    let functions = if f.variants.function {
        shape.forms(&names, None)
    } else {
        Vec::new()
    };
    let in_trait = matches!(input.methods, MethodsKind::Trait(_));
    let methods = match receiver {
        Some(r) => {
            let is_mut = schema.arguments.get(r).is_some_and(|a| a.is_write());
            let method_names = Names {
                plain: method_name(&names.plain, in_trait),
                fallible: method_name(&names.fallible, in_trait),
                with: method_name(&names.with, in_trait),
                fallible_with: method_name(&names.fallible_with, in_trait),
            };
            method_forms(shape.forms(&method_names, Some((r, is_mut))), &functions)
        }
        None => Vec::new(),
    };
    Api {
        marker: marker_name(&name),
        name,
        functions,
        methods,
        methods_kind: input.methods.clone(),
        args_struct,
        options,
        options_in_struct,
        receiver,
        options_param,
        struct_param,
    }
}

/// The methods of an operator, from its method forms and its free functions. An operator
/// with free functions has the plain and the fallible forms as methods (`t.add(&o)`,
/// `t.try_add(&o)?`), each calling its free function; the `_with` forms, which take the
/// arguments struct, are free functions only (`add_with(&t, &o, AddArgs { .. })`): methods
/// are for the common call and for chaining, and a call giving defaulted arguments names the
/// free function and its struct. An operator with the `method` variant only keeps the four
/// forms as methods, its only API.
fn method_forms(forms: Vec<Form>, functions: &[Form]) -> Vec<Form> {
    if functions.is_empty() {
        return forms;
    }
    (forms.into_iter())
        .filter(|m| !m.with)
        .filter_map(|m| {
            let g = functions
                .iter()
                .find(|g| (g.fallible, g.with) == (m.fallible, false))?;
            Some(Form {
                body: Body::Function {
                    name: g.name.clone(),
                },
                ..m
            })
        })
        .collect()
}

/// The names of the four forms.
struct Names {
    plain: String,
    fallible: String,
    with: String,
    fallible_with: String,
}

impl Names {
    fn all(&self, with: bool) -> Vec<String> {
        let mut v = vec![self.plain.clone(), self.fallible.clone()];
        if with {
            v.extend([self.with.clone(), self.fallible_with.clone()]);
        }
        v
    }
}

/// What the forms of one scope share.
struct Shape<'a> {
    /// The parameters of the plain forms (schema indices; `options` at the index of `dtype`).
    params: &'a [usize],
    options: Option<usize>,
    options_in_struct: bool,
    args_struct: Option<&'a ArgsStruct>,
    len: usize,
}

impl Shape<'_> {
    /// The forms, in order: plain, plain `_with`, fallible, fallible `_with`; for methods
    /// (`receiver` = the schema index of `self` and whether it is written) without `self`.
    fn forms(&self, names: &Names, receiver: Option<(usize, bool)>) -> Vec<Form> {
        let not_receiver = |&&i: &&usize| receiver.is_none_or(|(r, _)| i != r);
        let param = |i: usize| {
            if Some(i) == self.options {
                Param::Options
            } else {
                Param::Arg(i)
            }
        };
        let plain: Vec<Param> = self
            .params
            .iter()
            .filter(not_receiver)
            .map(|&i| param(i))
            .collect();
        let with_params: Vec<Param> = (self.params.iter())
            .filter(not_receiver)
            .filter(|&&i| !(Some(i) == self.options && self.options_in_struct))
            .map(|&i| param(i))
            .chain([Param::Struct])
            .collect();
        let r = receiver.map(|(_, is_mut)| is_mut);
        let call = |with: bool| Body::Call(self.sources(with, receiver.map(|(r, _)| r)));
        let ident = |n: &String| rust_ident(n);
        let mut forms = vec![Form {
            name: ident(&names.plain),
            fallible: false,
            with: false,
            receiver: r,
            params: plain.clone(),
            body: Body::Unwrap {
                sibling: ident(&names.fallible),
            },
        }];
        if self.args_struct.is_some() {
            forms.push(Form {
                name: ident(&names.with),
                fallible: false,
                with: true,
                receiver: r,
                params: with_params.clone(),
                body: Body::Unwrap {
                    sibling: ident(&names.fallible_with),
                },
            });
            forms.push(Form {
                name: ident(&names.fallible),
                fallible: true,
                with: false,
                receiver: r,
                params: plain,
                body: Body::Defaults {
                    sibling: ident(&names.fallible_with),
                },
            });
            forms.push(Form {
                name: ident(&names.fallible_with),
                fallible: true,
                with: true,
                receiver: r,
                params: with_params,
                body: call(true),
            });
        } else {
            forms.push(Form {
                name: ident(&names.fallible),
                fallible: true,
                with: false,
                receiver: r,
                params: plain,
                body: call(false),
            });
        }
        forms
    }

    /// Where each schema argument's value comes from in the call of a form.
    fn sources(&self, with: bool, receiver: Option<usize>) -> Vec<Source> {
        let fields = self.args_struct.map_or(&[][..], |s| s.fields.as_slice());
        (0..self.len)
            .map(|i| {
                if Some(i) == receiver {
                    return Source::Receiver;
                }
                if let Some(start) = self.options
                    && (start..start + 4).contains(&i)
                {
                    return Source::OptionsPart {
                        part: i - start,
                        in_struct: with && self.options_in_struct,
                    };
                }
                if with && fields.contains(&i) {
                    Source::Field(i)
                } else {
                    Source::Param(i)
                }
            })
            .collect()
    }
}

/// Whether a type holds a reference (an arguments struct holding it needs a lifetime).
pub fn has_reference(ty: &RustType) -> bool {
    match ty {
        RustType::Ref(_) | RustType::Mut(_) | RustType::Str => true,
        RustType::Option(t) | RustType::Vec(t) | RustType::Slice(t) | RustType::Array(t, _) => {
            has_reference(t)
        }
        RustType::Tuple(ts) => ts.iter().any(has_reference),
        RustType::Tensor | RustType::Value(_) => false,
    }
}

/// Whether a type holds a `&mut` (an arguments struct holding it is not `Clone`).
pub fn has_mut(ty: &RustType) -> bool {
    match ty {
        RustType::Mut(_) => true,
        RustType::Ref(t)
        | RustType::Option(t)
        | RustType::Vec(t)
        | RustType::Slice(t)
        | RustType::Array(t, _) => has_mut(t),
        RustType::Tuple(ts) => ts.iter().any(has_mut),
        RustType::Tensor | RustType::Value(_) | RustType::Str => false,
    }
}
