//! The language of derivative formulas: the C++ expressions of PyTorch's `derivatives.yaml`
//! (`grad * self.sgn()`, `handle_r_to_c(self.scalar_type(), grad)`,
//! `std::get<0>(at::_unique(index, /*sorted=*/false))`), parsed into a tree with byte
//! ranges, and translated into Rust calls of the generated API.
//!
//! The language: names and `::`-paths (`grad`, `at::zeros_symint`, `std::nullopt`), calls with
//! optional template arguments (`std::get<0>(t)`, `std::tuple<Tensor, Tensor>()`), method
//! calls and members with `.` and `->`, indexing (`grads[0]`, `grad_input_mask[1]`), the
//! unary operators `- + ! ~ * &`, C++'s binary operators with C++'s precedence, the ternary,
//! initializer lists (`{1, 1}`), and literals (integers, floats such as `1.0` or `1e-6`,
//! strings, characters, `true`/`false`). Comments are skipped. A `<` after a name starts
//! template arguments only if they parse and are followed by `(` or `{`.
//!
//! Errors carry a [`DerivativeRule`] (R100–R119, the rules of derivative formulas and of
//! `derivatives.yaml`) and the byte range of the offending text.

mod ast;
mod error;
mod lexer;
mod parser;
pub mod translate;

pub use ast::{BinaryOp, Expr, ExprKind, Path, TemplateArg, TypeName, UnaryOp};

/// A formula as written: PyTorch's C++ (parsed and translated), or Rust, marked `rust:`,
/// used as it is (over the Rust names of the same variables: `self_`, `grad`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormulaText<'a> {
    /// A C++ expression.
    Cpp(&'a str),
    /// A Rust expression (the text after `rust:`).
    Rust(&'a str),
}

impl<'a> FormulaText<'a> {
    /// Tells a Rust formula (`rust: mul(&grad, &other)`) from a C++ one.
    ///
    /// ```
    /// use opgen_core::formula::FormulaText;
    /// assert_eq!(FormulaText::of("grad * other"), FormulaText::Cpp("grad * other"));
    /// assert_eq!(FormulaText::of("rust: try_mul(&grad, &other)?"), FormulaText::Rust("try_mul(&grad, &other)?"));
    /// ```
    pub fn of(text: &'a str) -> FormulaText<'a> {
        match text.trim_start().strip_prefix("rust:") {
            Some(rust) => FormulaText::Rust(rust.trim()),
            None => FormulaText::Cpp(text),
        }
    }
}
pub use error::{DerivativeRule, FormulaError};
pub use parser::parse_formula;
