//! The formula language's syntax tree: C++ expressions over names, calls, method calls,
//! operators, the ternary and literals. Every node keeps the byte range of its text.

use std::fmt;
use std::ops::Range;

/// An expression and where it is in the formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its bytes in the formula.
    pub range: Range<usize>,
}

/// `at::zeros`, `::std::nullopt`, `grad`: names joined by `::`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path {
    /// Whether it starts with `::`.
    pub absolute: bool,
    /// The names.
    pub segments: Vec<String>,
}

impl Path {
    /// A one-segment path.
    pub fn name(name: &str) -> Path {
        Path {
            absolute: false,
            segments: vec![name.to_string()],
        }
    }

    /// The name if the path is a single plain name.
    pub fn as_name(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [one] if !self.absolute => Some(one),
            _ => None,
        }
    }

    /// The last name.
    pub fn last(&self) -> &str {
        self.segments.last().map_or("", String::as_str)
    }

    /// The path without a leading `at::`, `c10::`, `std::` or `::` namespace (what names the
    /// function once the namespace is known), and that namespace.
    pub fn split_namespace(&self) -> (Option<&str>, &[String]) {
        match self.segments.split_first() {
            Some((ns, rest)) if !rest.is_empty() => (Some(ns.as_str()), rest),
            _ => (None, &self.segments),
        }
    }
}

/// A template argument: a type (`Tensor`, `std::optional<c10::SymIntArrayRef>`) or a number
/// (`std::get<0>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplateArg {
    /// A type.
    Type(TypeName),
    /// An integer.
    Int(String),
}

/// A type name with its template arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeName {
    /// The name.
    pub path: Path,
    /// `<...>`, if any.
    pub args: Vec<TemplateArg>,
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*x` (dereference an optional)
    Deref,
    /// `&x`
    AddressOf,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }

    /// Binding strength: higher binds tighter (C++'s precedence).
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Lt | Gt | Le | Ge => 8,
            Eq | Ne => 7,
            BitAnd => 6,
            BitXor => 5,
            BitOr => 4,
            And => 3,
            Or => 2,
        }
    }
}

/// What an expression is.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A name or a qualified name used as a value: `grad`, `self`, `at::Reduction::None`,
    /// `std::nullopt`.
    Name(Path),
    /// An integer literal as written (`1`, `2L`).
    Int(String),
    /// A floating point literal as written (`1.0`, `0.5f`).
    Float(String),
    /// A string literal's contents.
    Str(String),
    /// A character literal's contents.
    Char(String),
    /// `true` or `false`.
    Bool(bool),
    /// `f(args)`, `at::zeros_symint(args)`, `std::get<0>(t)`, `std::tuple<Tensor, Tensor>()`;
    /// `braces` for `T{args}`.
    Call {
        /// The function or type.
        callee: Path,
        /// Template arguments.
        template: Vec<TemplateArg>,
        /// The arguments.
        args: Vec<Expr>,
        /// Written with braces.
        braces: bool,
    },
    /// `x.f(args)` or `x->f(args)`.
    Method {
        /// The object.
        receiver: Box<Expr>,
        /// Written with `->`.
        arrow: bool,
        /// The method.
        name: String,
        /// Template arguments.
        template: Vec<TemplateArg>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `x.y` or `x->y` without a call.
    Member {
        /// The object.
        receiver: Box<Expr>,
        /// Written with `->`.
        arrow: bool,
        /// The member.
        name: String,
    },
    /// `x[i]`.
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// A unary operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`.
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when true.
        then: Box<Expr>,
        /// The value when false.
        otherwise: Box<Expr>,
    },
    /// `{a, b}`: an initializer list (an `IntArrayRef`, a `std::array<bool, 3>`, ...).
    InitList(Vec<Expr>),
    /// `[](c10::SymInt i){return -i;}`: a lambda whose body returns one expression.
    Lambda {
        /// The capture list as written (`&`, `=`, names), without brackets.
        captures: String,
        /// The parameters: type and name.
        params: Vec<(TypeName, String)>,
        /// The returned expression.
        body: Box<Expr>,
    },
}

impl Expr {
    /// Calls `f` on this expression and every expression inside it, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Call { args, .. } | ExprKind::InitList(args) => {
                args.iter().for_each(|a| a.walk(f))
            }
            ExprKind::Method { receiver, args, .. } => {
                receiver.walk(f);
                args.iter().for_each(|a| a.walk(f));
            }
            ExprKind::Member { receiver, .. } => receiver.walk(f),
            ExprKind::Lambda { body, .. } => body.walk(f),
            ExprKind::Index { base, index } => {
                base.walk(f);
                index.walk(f);
            }
            ExprKind::Unary { operand, .. } => operand.walk(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                cond.walk(f);
                then.walk(f);
                otherwise.walk(f);
            }
            _ => {}
        }
    }

    /// The plain names this expression uses as values (variables, not called functions),
    /// with their ranges; a lambda's parameters are not free inside its body.
    pub fn free_names(&self) -> Vec<(&str, Range<usize>)> {
        let mut out = Vec::new();
        self.collect_free(&mut Vec::new(), &mut out);
        out
    }

    fn collect_free<'a>(
        &'a self,
        bound: &mut Vec<&'a str>,
        out: &mut Vec<(&'a str, Range<usize>)>,
    ) {
        match &self.kind {
            ExprKind::Name(p) => {
                if let Some(name) = p.as_name().filter(|n| !bound.contains(n)) {
                    out.push((name, self.range.clone()));
                }
            }
            ExprKind::Lambda { params, body, .. } => {
                let before = bound.len();
                bound.extend(params.iter().map(|(_, n)| n.as_str()));
                body.collect_free(bound, out);
                bound.truncate(before);
            }
            ExprKind::Call { args, .. } | ExprKind::InitList(args) => {
                args.iter().for_each(|a| a.collect_free(bound, out))
            }
            ExprKind::Method { receiver, args, .. } => {
                receiver.collect_free(bound, out);
                args.iter().for_each(|a| a.collect_free(bound, out));
            }
            ExprKind::Member { receiver, .. } => receiver.collect_free(bound, out),
            ExprKind::Index { base, index } => {
                base.collect_free(bound, out);
                index.collect_free(bound, out);
            }
            ExprKind::Unary { operand, .. } => operand.collect_free(bound, out),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.collect_free(bound, out);
                rhs.collect_free(bound, out);
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                cond.collect_free(bound, out);
                then.collect_free(bound, out);
                otherwise.collect_free(bound, out);
            }
            _ => {}
        }
    }

    /// The plain name this expression is, if it is one (`grad`, `self`).
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(p) => p.as_name(),
            _ => None,
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.absolute {
            f.write_str("::")?;
        }
        f.write_str(&self.segments.join("::"))
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn write_template(f: &mut fmt::Formatter<'_>, args: &[TemplateArg]) -> fmt::Result {
    if args.is_empty() {
        return Ok(());
    }
    f.write_str("<")?;
    write_list(f, args)?;
    f.write_str(">")
}

impl fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateArg::Type(t) => write!(f, "{t}"),
            TemplateArg::Int(i) => f.write_str(i),
        }
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        write_template(f, &self.args)
    }
}

/// Prints the expression as C++, fully parenthesised where operators nest, so that printing
/// and parsing again gives the same tree.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Name(p) => write!(f, "{p}"),
            ExprKind::Int(s) | ExprKind::Float(s) => f.write_str(s),
            ExprKind::Str(s) => write!(f, "\"{s}\""),
            ExprKind::Char(s) => write!(f, "'{s}'"),
            ExprKind::Bool(b) => write!(f, "{b}"),
            ExprKind::Call {
                callee,
                template,
                args,
                braces,
            } => {
                write!(f, "{callee}")?;
                write_template(f, template)?;
                f.write_str(if *braces { "{" } else { "(" })?;
                write_list(f, args)?;
                f.write_str(if *braces { "}" } else { ")" })
            }
            ExprKind::Method {
                receiver,
                arrow,
                name,
                template,
                args,
            } => {
                write!(f, "{receiver}{}{name}", if *arrow { "->" } else { "." })?;
                write_template(f, template)?;
                f.write_str("(")?;
                write_list(f, args)?;
                f.write_str(")")
            }
            ExprKind::Member {
                receiver,
                arrow,
                name,
            } => write!(f, "{receiver}{}{name}", if *arrow { "->" } else { "." }),
            ExprKind::Index { base, index } => write!(f, "{base}[{index}]"),
            ExprKind::Unary { op, operand } => {
                let s = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                    UnaryOp::Deref => "*",
                    UnaryOp::AddressOf => "&",
                };
                write!(f, "{s}{operand}")
            }
            ExprKind::Binary { op, lhs, rhs } => write!(f, "({lhs} {} {rhs})", op.as_str()),
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => write!(f, "({cond} ? {then} : {otherwise})"),
            ExprKind::InitList(items) => {
                f.write_str("{")?;
                write_list(f, items)?;
                f.write_str("}")
            }
            ExprKind::Lambda {
                captures,
                params,
                body,
            } => {
                write!(f, "[{captures}](")?;
                for (i, (ty, name)) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{ty} {name}")?;
                }
                write!(f, "){{return {body};}}")
            }
        }
    }
}
