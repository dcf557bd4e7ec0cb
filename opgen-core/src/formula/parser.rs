//! The formula parser: C++ expressions by precedence climbing, with template arguments told
//! apart from `<` by trying them first (`std::get<0>(t)`, `std::tuple<Tensor, Tensor>()`).

use std::ops::Range;

use super::ast::{BinaryOp, Expr, ExprKind, Path, TemplateArg, TypeName, UnaryOp};
use super::error::{DerivativeRule, FormulaError};
use super::lexer::{Tok, Token, lex};

/// Parses one formula (a C++ expression) into its tree.
///
/// ```
/// use opgen_core::formula::{parse_formula, ExprKind};
/// let e = parse_formula("grad * self.sgn()").unwrap();
/// assert_eq!(e.to_string(), "(grad * self.sgn())");
/// let e = parse_formula("std::get<0>(at::_unique(index, /*sorted=*/false))").unwrap();
/// assert!(matches!(e.kind, ExprKind::Call { .. }));
/// let err = parse_formula("grad * (self").unwrap_err();
/// assert_eq!((err.rule.id(), err.range.clone()), ("R109", 12..12));
/// ```
///
/// # Errors
/// The first syntax error ([`DerivativeRule::Syntax`], or [`DerivativeRule::EmptyFormula`]),
/// with its byte range.
pub fn parse_formula(text: &str) -> Result<Expr, FormulaError> {
    let tokens = lex(text)?;
    if tokens.is_empty() {
        return Err(FormulaError::new(
            DerivativeRule::EmptyFormula,
            0..text.len(),
            "empty formula",
        )
        .with_hint("write an expression such as `grad * other`"));
    }
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
        end: text.len(),
    };
    let expr = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(p.unexpected(t, "the end of the formula"));
    }
    Ok(expr)
}

struct Parser<'t> {
    tokens: &'t [Token],
    pos: usize,
    end: usize,
}

fn span(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    a.start..b.end
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.pos)
    }

    fn peek_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    fn eat(&mut self, p: &str) -> Option<Range<usize>> {
        if self.peek_punct(p) {
            self.pos += 1;
            return Some(self.tokens[self.pos - 1].range.clone());
        }
        None
    }

    fn expect(&mut self, p: &str) -> Result<Range<usize>, FormulaError> {
        self.eat(p).ok_or_else(|| match self.peek() {
            Some(t) => self.unexpected(t, &format!("`{p}`")),
            None => FormulaError::new(
                DerivativeRule::Syntax,
                self.end..self.end,
                format!("expected `{p}` but the formula ends"),
            )
            .with_hint(format!("add `{p}`")),
        })
    }

    fn unexpected(&self, t: &Token, wanted: &str) -> FormulaError {
        let found = match &t.tok {
            Tok::Ident(s) | Tok::Int(s) | Tok::Float(s) => s.clone(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Char(s) => format!("'{s}'"),
            Tok::Punct(p) => (*p).to_string(),
        };
        FormulaError::new(
            DerivativeRule::Syntax,
            t.range.clone(),
            format!("expected {wanted}, found `{found}`"),
        )
    }

    fn expr(&mut self) -> Result<Expr, FormulaError> {
        let cond = self.binary(0)?;
        if self.eat("?").is_none() {
            return Ok(cond);
        }
        let then = self.expr()?;
        self.expect(":")?;
        let otherwise = self.expr()?;
        let range = span(&cond.range, &otherwise.range);
        Ok(Expr {
            kind: ExprKind::Ternary {
                cond: boxed(cond),
                then: boxed(then),
                otherwise: boxed(otherwise),
            },
            range,
        })
    }

    fn binary_op(&self) -> Option<BinaryOp> {
        use BinaryOp::*;
        let Some(Token {
            tok: Tok::Punct(p), ..
        }) = self.peek()
        else {
            return None;
        };
        Some(match *p {
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "+" => Add,
            "-" => Sub,
            "<" => Lt,
            ">" => Gt,
            "<=" => Le,
            ">=" => Ge,
            "==" => Eq,
            "!=" => Ne,
            "&" => BitAnd,
            "^" => BitXor,
            "|" => BitOr,
            "&&" => And,
            "||" => Or,
            _ => return None,
        })
    }

    /// Operators binding tighter than `min`, left-associative.
    fn binary(&mut self, min: u8) -> Result<Expr, FormulaError> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.binary_op().filter(|op| op.precedence() > min) {
            self.pos += 1;
            let rhs = self.binary(op.precedence())?;
            let range = span(&lhs.range, &rhs.range);
            lhs = Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: boxed(lhs),
                    rhs: boxed(rhs),
                },
                range,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, FormulaError> {
        let ops = [
            ("-", UnaryOp::Neg),
            ("+", UnaryOp::Plus),
            ("!", UnaryOp::Not),
            ("~", UnaryOp::BitNot),
            ("*", UnaryOp::Deref),
            ("&", UnaryOp::AddressOf),
        ];
        for (p, op) in ops {
            if let Some(at) = self.eat(p) {
                let operand = self.unary()?;
                let range = span(&at, &operand.range);
                return Ok(Expr {
                    kind: ExprKind::Unary {
                        op,
                        operand: boxed(operand),
                    },
                    range,
                });
            }
        }
        let primary = self.primary()?;
        self.postfix(primary)
    }

    fn postfix(&mut self, mut e: Expr) -> Result<Expr, FormulaError> {
        loop {
            let arrow = if self.eat(".").is_some() {
                false
            } else if self.eat("->").is_some() {
                true
            } else if self.eat("[").is_some() {
                let index = self.expr()?;
                let close = self.expect("]")?;
                let range = span(&e.range, &close);
                e = Expr {
                    kind: ExprKind::Index {
                        base: boxed(e),
                        index: boxed(index),
                    },
                    range,
                };
                continue;
            } else {
                return Ok(e);
            };
            let (name, name_range) = self.ident("a member name")?;
            let template = self.try_template().unwrap_or_default();
            if self.eat("(").is_some() {
                let (args, close) = self.args(")")?;
                let range = span(&e.range, &close);
                e = Expr {
                    kind: ExprKind::Method {
                        receiver: boxed(e),
                        arrow,
                        name,
                        template,
                        args,
                    },
                    range,
                };
            } else {
                let range = span(&e.range, &name_range);
                e = Expr {
                    kind: ExprKind::Member {
                        receiver: boxed(e),
                        arrow,
                        name,
                    },
                    range,
                };
            }
        }
    }

    fn ident(&mut self, wanted: &str) -> Result<(String, Range<usize>), FormulaError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Ident(s),
                range,
            }) => {
                self.pos += 1;
                Ok((s.clone(), range.clone()))
            }
            Some(t) => Err(self.unexpected(t, wanted)),
            None => Err(FormulaError::new(
                DerivativeRule::Syntax,
                self.end..self.end,
                format!("expected {wanted} but the formula ends"),
            )),
        }
    }

    /// Comma-separated expressions up to `close` (the opening token is consumed).
    fn args(&mut self, close: &str) -> Result<(Vec<Expr>, Range<usize>), FormulaError> {
        let mut args = Vec::new();
        if let Some(end) = self.eat(close) {
            return Ok((args, end));
        }
        loop {
            args.push(self.expr()?);
            if let Some(end) = self.eat(close) {
                return Ok((args, end));
            }
            self.expect(",")?;
        }
    }

    fn primary(&mut self) -> Result<Expr, FormulaError> {
        let Some(t) = self.peek() else {
            return Err(FormulaError::new(
                DerivativeRule::Syntax,
                self.end..self.end,
                "expected an expression but the formula ends",
            ));
        };
        let literal = |kind| {
            Ok(Expr {
                kind,
                range: t.range.clone(),
            })
        };
        match &t.tok {
            Tok::Int(s) => {
                self.pos += 1;
                literal(ExprKind::Int(s.clone()))
            }
            Tok::Float(s) => {
                self.pos += 1;
                literal(ExprKind::Float(s.clone()))
            }
            Tok::Str(s) => {
                self.pos += 1;
                literal(ExprKind::Str(s.clone()))
            }
            Tok::Char(s) => {
                self.pos += 1;
                literal(ExprKind::Char(s.clone()))
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.pos += 1;
                literal(ExprKind::Bool(s == "true"))
            }
            Tok::Punct("(") => {
                self.pos += 1;
                let inner = self.expr()?;
                let close = self.expect(")")?;
                Ok(Expr {
                    kind: inner.kind,
                    range: t.range.start..close.end,
                })
            }
            Tok::Punct("{") => {
                self.pos += 1;
                let (items, close) = self.args("}")?;
                Ok(Expr {
                    kind: ExprKind::InitList(items),
                    range: span(&t.range, &close),
                })
            }
            Tok::Ident(_) | Tok::Punct("::") => self.path_expr(),
            Tok::Punct("[") => self.lambda(),
            _ => Err(self.unexpected(t, "an expression")),
        }
    }

    /// `[captures](Type name, ...){ return expr; }`.
    fn lambda(&mut self) -> Result<Expr, FormulaError> {
        let open = self.expect("[")?;
        let mut captures = String::new();
        while !self.peek_punct("]") {
            match self.peek() {
                Some(Token {
                    tok: Tok::Ident(s), ..
                }) => captures.push_str(s),
                Some(Token {
                    tok: Tok::Punct(p @ ("&" | "=" | ",")),
                    ..
                }) => captures.push_str(p),
                Some(t) => return Err(self.unexpected(t, "a capture or `]`")),
                None => return Err(self.expect("]").unwrap_err()),
            }
            self.pos += 1;
        }
        self.expect("]")?;
        self.expect("(")?;
        let mut params = Vec::new();
        while self.eat(")").is_none() {
            if !params.is_empty() {
                self.expect(",")?;
            }
            if matches!(self.peek(), Some(Token { tok: Tok::Ident(k), .. }) if k == "const") {
                self.pos += 1;
            }
            let (path, _) = self.path()?;
            let args = if self.eat("<").is_some() {
                self.template_args().ok_or_else(|| {
                    FormulaError::new(
                        DerivativeRule::Syntax,
                        open.clone(),
                        "malformed parameter type",
                    )
                })?
            } else {
                Vec::new()
            };
            while self.eat("&").is_some() || self.eat("*").is_some() {}
            let (name, _) = self.ident("a parameter name")?;
            params.push((TypeName { path, args }, name));
        }
        self.expect("{")?;
        let (keyword, at) = self.ident("`return`")?;
        if keyword != "return" {
            return Err(FormulaError::new(
                DerivativeRule::Syntax,
                at,
                format!("expected `return`, found `{keyword}`"),
            )
            .with_hint("a lambda body is `{ return EXPR; }`"));
        }
        let body = self.expr()?;
        self.expect(";")?;
        let close = self.expect("}")?;
        Ok(Expr {
            kind: ExprKind::Lambda {
                captures,
                params,
                body: boxed(body),
            },
            range: span(&open, &close),
        })
    }

    fn path(&mut self) -> Result<(Path, Range<usize>), FormulaError> {
        let start = self.peek().map_or(self.end, |t| t.range.start);
        let absolute = self.eat("::").is_some();
        let (first, mut range) = self.ident("a name")?;
        range.start = start;
        let mut segments = vec![first];
        while self.peek_punct("::") {
            self.pos += 1;
            let (next, r) = self.ident("a name after `::`")?;
            segments.push(next);
            range.end = r.end;
        }
        Ok((Path { absolute, segments }, range))
    }

    fn path_expr(&mut self) -> Result<Expr, FormulaError> {
        let (callee, range) = self.path()?;
        let template = self.try_template().unwrap_or_default();
        let braces = if self.eat("(").is_some() {
            false
        } else if !template.is_empty() && self.eat("{").is_some() {
            true
        } else {
            return Ok(Expr {
                kind: ExprKind::Name(callee),
                range,
            });
        };
        let (args, close) = self.args(if braces { "}" } else { ")" })?;
        Ok(Expr {
            kind: ExprKind::Call {
                callee,
                template,
                args,
                braces,
            },
            range: span(&range, &close),
        })
    }

    /// Template arguments at `<`, if they parse and are followed by `(` or `{`; otherwise
    /// nothing is consumed (the `<` is a comparison).
    fn try_template(&mut self) -> Option<Vec<TemplateArg>> {
        if !self.peek_punct("<") {
            return None;
        }
        let saved = self.pos;
        self.pos += 1;
        let args = self.template_args();
        if args.is_some() && (self.peek_punct("(") || self.peek_punct("{")) {
            return args;
        }
        self.pos = saved;
        None
    }

    /// `T, U<V>, 0` up to and including `>`.
    fn template_args(&mut self) -> Option<Vec<TemplateArg>> {
        let mut args = Vec::new();
        loop {
            match self.peek()? {
                Token {
                    tok: Tok::Int(i), ..
                } => {
                    self.pos += 1;
                    args.push(TemplateArg::Int(i.clone()));
                }
                _ => {
                    let (path, _) = self.path().ok()?;
                    let inner = if self.peek_punct("<") {
                        self.pos += 1;
                        self.template_args()?
                    } else {
                        Vec::new()
                    };
                    args.push(TemplateArg::Type(TypeName { path, args: inner }));
                }
            }
            if self.eat(">").is_some() {
                return Some(args);
            }
            self.eat(",")?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        parse_formula(s).expect("parses").to_string()
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(p("a + b * c - d"), "((a + (b * c)) - d)");
        assert_eq!(p("a * b / c"), "((a * b) / c)");
        assert_eq!(p("-a * b"), "(-a * b)");
        assert_eq!(p("a < b && c == d || !e"), "(((a < b) && (c == d)) || !e)");
        assert_eq!(p("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
        assert_eq!(
            p("grad * 1 / (1 - self.pow(2)).conj()"),
            "((grad * 1) / (1 - self.pow(2)).conj())"
        );
    }

    #[test]
    fn calls_methods_paths_and_literals() {
        assert_eq!(
            p("at::zeros_symint(self.sym_sizes(), grad.options())"),
            "at::zeros_symint(self.sym_sizes(), grad.options())"
        );
        assert_eq!(p("::std::nullopt"), "::std::nullopt");
        assert_eq!(
            p("grads[0].defined() ? grads[0] : at::Tensor()"),
            "(grads[0].defined() ? grads[0] : at::Tensor())"
        );
        assert_eq!(p("bias->sym_sizes()"), "bias->sym_sizes()");
        assert_eq!(p("{1, -1}"), "{1, -1}");
        assert_eq!(
            p("f({{0, 0}}, \"x\", 'c', true)"),
            "f({{0, 0}}, \"x\", 'c', true)"
        );
        assert_eq!(p("x.to<double>()"), "x.to<double>()");
        assert_eq!(
            p("fmap(shifts, [](c10::SymInt i){return -i;})"),
            "fmap(shifts, [](c10::SymInt i){return -i;})"
        );
        let lambda = parse_formula("f([&](const Tensor& t){ return t * i; })").expect("parses");
        let free: Vec<&str> = lambda.free_names().into_iter().map(|(n, _)| n).collect();
        assert_eq!(free, ["i"]);
    }

    #[test]
    fn templates_and_comparisons() {
        assert_eq!(p("std::get<0>(t)"), "std::get<0>(t)");
        assert_eq!(
            p("std::tuple<Tensor, Tensor>()"),
            "std::tuple<Tensor, Tensor>()"
        );
        assert_eq!(
            p("std::vector<c10::SymInt>(padding.size(), 0)"),
            "std::vector<c10::SymInt>(padding.size(), 0)"
        );
        assert_eq!(
            p("std::optional<std::vector<int>>(x)"),
            "std::optional<std::vector<int>>(x)"
        );
        // Not a template: a comparison.
        assert_eq!(p("a < b && c > d"), "((a < b) && (c > d))");
        assert_eq!(
            p("dim < 0 ? dim + n : dim"),
            "((dim < 0) ? (dim + n) : dim)"
        );
    }

    #[test]
    fn round_trip_reparses_to_the_same_tree() {
        for s in [
            "handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))",
            "GradMode::is_enabled() || grads[1].defined() ? f(grads[0]) : (grads[0].defined() ? g() : std::tuple<Tensor, Tensor>())",
            "- -1",
        ] {
            let once = parse_formula(s).expect("parses");
            let twice = parse_formula(&once.to_string()).expect("reparses");
            assert_eq!(once.to_string(), twice.to_string());
        }
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        let e = parse_formula("grad * ").unwrap_err();
        assert_eq!(
            (e.range.clone(), e.message.as_str()),
            (7..7, "expected an expression but the formula ends")
        );
        let e = parse_formula("f(a b)").unwrap_err();
        assert_eq!(
            (e.range.clone(), e.message.as_str()),
            (4..5, "expected `,`, found `b`")
        );
        let e = parse_formula("a ? b").unwrap_err();
        assert_eq!(e.message, "expected `:` but the formula ends");
        let e = parse_formula("  ").unwrap_err();
        assert_eq!(e.rule, DerivativeRule::EmptyFormula);
        assert_eq!(parse_formula("a )").unwrap_err().range, 2..3);
        assert!(e.render("  ").contains("error[R119]: empty formula"));
    }
}
