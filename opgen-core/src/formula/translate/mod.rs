//! Translation of formulas into Rust: calls of the generated API (the `try_` forms, named
//! by [`crate::plan`]), of the helpers of [`crate::autograd::functions`], and plain Rust for
//! C++'s operators on numbers.
//!
//! A formula translates when every name it uses resolves: a variable of its scope (inputs,
//! saved values, `result`, `grad`, `grads`, `grad_input_mask`), an ATen operator of the
//! API index with an overload of that arity and argument types (C++'s overload rules, as
//! far as the translator types values), a helper with the right parameters, or a standard
//! utility (`std::get<0>`, `std::nullopt`, `isComplexType`, `GradMode::is_enabled`). What
//! does not is a [`Blocker`].
//!
//! ```
//! use opgen_core::formula::{parse_formula, translate::{ApiIndex, Options, Scope, Ty, translate}};
//! use opgen_core::native::load_native_functions;
//! let natives = load_native_functions("
//! - func: mul.Tensor(Tensor self, Tensor other) -> Tensor
//!   variants: function, method
//! - func: sgn(Tensor self) -> Tensor
//!   variants: function, method
//! ", "").unwrap();
//! let api = ApiIndex::new(&natives);
//! let mut scope = Scope::default();
//! scope.add("grad", "grad", Ty::Tensor);
//! scope.add("self", "self_", Ty::Tensor);
//! let e = parse_formula("grad * self.sgn()").unwrap();
//! let t = translate(&e, &scope, &api, &Options::default()).unwrap();
//! assert_eq!(t.rust, "try_mul(&grad, &try_sgn(&self_)?)?");
//!
//! let e = parse_formula("grad * my_backward(self)").unwrap();
//! let blockers = translate(&e, &scope, &api, &Options::default()).unwrap_err();
//! assert_eq!(blockers[0].to_string(), "missing function `my_backward` (1 argument)");
//! // A helper called with arguments no overload of it takes:
//! let e = parse_formula("sgn_backward(self)").unwrap();
//! let blockers = translate(&e, &scope, &api, &Options::default()).unwrap_err();
//! assert_eq!(blockers[0].to_string(), "no overload of `sgn_backward` for these 1 argument");
//! ```

mod api;
mod builtins;
mod calls;
mod emit;
mod module;
mod report;
mod types;

#[cfg(test)]
mod tests;

use std::fmt;

pub use api::ApiIndex;
pub use module::{emit_module, emit_module_for};
pub use report::{BlockerCount, CorpusReport, EntryReport, corpus_report, scope_for};
pub use types::Ty;

use super::Expr;

/// How translated code names things.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The runtime crate's path (`::opgen_core`).
    pub runtime: String,
    /// The prefix of the generated API's functions and argument structs (`""` when they are
    /// in scope, `crate::ops::`).
    pub api_path: String,
    /// The tensor type (for `TypeAndSize::zeros::<T>()`).
    pub tensor: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            runtime: "::opgen_core".into(),
            api_path: String::new(),
            tensor: "T".into(),
        }
    }
}

/// The variables a formula may use: C++ name, Rust expression, type.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    vars: Vec<(String, String, Ty)>,
}

impl Scope {
    /// Adds a variable (a later one of the same name wins).
    pub fn add(&mut self, cpp: &str, rust: &str, ty: Ty) {
        self.vars.push((cpp.to_string(), rust.to_string(), ty));
    }

    /// Every variable: (C++ name, Rust expression, type), later ones last.
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str, &Ty)> {
        self.vars
            .iter()
            .map(|(c, r, t)| (c.as_str(), r.as_str(), t))
    }

    /// The Rust expression and type of the variable `cpp` (the last one of that name).
    pub fn get(&self, cpp: &str) -> Option<(String, Ty)> {
        (self.vars.iter().rev())
            .find(|(c, _, _)| c == cpp)
            .map(|(_, r, t)| (r.clone(), t.clone()))
    }
}

/// What keeps a formula from translating.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Blocker {
    /// A function that is neither an operator, a helper nor a known utility.
    MissingFunction {
        /// Its name.
        name: String,
        /// How many arguments the formula passes.
        arity: usize,
    },
    /// An operator or helper without an overload for these arguments.
    NoOverload {
        /// Its name.
        name: String,
        /// How many arguments the formula passes.
        arity: usize,
    },
    /// A variable out of scope.
    UnknownName(String),
    /// A C++ construct the translator does not render.
    Unsupported(String),
}

impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: &usize| if *n == 1 { "" } else { "s" };
        match self {
            Blocker::MissingFunction { name, arity } => {
                write!(
                    f,
                    "missing function `{name}` ({arity} argument{})",
                    plural(arity)
                )
            }
            Blocker::NoOverload { name, arity } => {
                write!(
                    f,
                    "no overload of `{name}` for these {arity} argument{}",
                    plural(arity)
                )
            }
            Blocker::UnknownName(n) => write!(f, "unknown variable `{n}`"),
            Blocker::Unsupported(what) => write!(f, "unsupported C++: {what}"),
        }
    }
}

/// A translated formula.
#[derive(Debug, Clone)]
pub struct Translated {
    /// The Rust expression (it uses `?`: it sits in a function returning `Result`).
    pub rust: String,
    /// Its type.
    pub ty: Ty,
}

/// Translates one formula.
///
/// # Errors
/// Every [`Blocker`] found.
pub fn translate(
    expr: &Expr,
    scope: &Scope,
    api: &ApiIndex,
    options: &Options,
) -> Result<Translated, Vec<Blocker>> {
    let mut emitter = emit::Emitter {
        api,
        scope,
        options,
        blockers: Vec::new(),
        locals: Vec::new(),
    };
    let out = emitter.expr(expr);
    if emitter.blockers.is_empty() {
        Ok(Translated {
            rust: out.code,
            ty: out.ty,
        })
    } else {
        Err(emitter.blockers)
    }
}
