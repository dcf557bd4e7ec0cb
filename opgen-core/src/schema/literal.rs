//! Default values read as literals (SCHEMA.md §1.8): `None`, `True`, numbers, quoted
//! strings, lists, identifiers; anything else is kept as text.

use smol_str::SmolStr;

use super::model::{Float, Literal};
use super::parser::MAX_NESTING;

/// Reads a default's text as a literal (SCHEMA.md §1.8). Never fails: text that is no
/// recognised literal is kept as [`Literal::Other`], and so is a list nested deeper than
/// [`MAX_NESTING`] (the parser reports those, R90; the guard keeps the recursion bounded).
pub(crate) fn parse_literal(text: &str) -> Literal {
    literal(text, 0)
}

fn literal(text: &str, depth: usize) -> Literal {
    match text {
        "None" => return Literal::None,
        "True" => return Literal::Bool(true),
        "False" => return Literal::Bool(false),
        _ => {}
    }
    if let Some(body) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        if depth >= MAX_NESTING {
            return Literal::Other(SmolStr::new(text));
        }
        if body.is_empty() {
            return Literal::List(Vec::new());
        }
        return Literal::List(
            body.split(',')
                .map(|e| literal(e.trim(), depth + 1))
                .collect(),
        );
    }
    if let Some(s) = unquote(text) {
        return Literal::Str(SmolStr::from(s));
    }
    if is_int(text) {
        return match text.parse::<i64>() {
            Ok(i) => Literal::Int(i),
            Err(_) => Literal::Other(SmolStr::new(text)),
        };
    }
    if is_float(text)
        && let Ok(f) = text.parse::<f64>()
    {
        return Literal::Float(Float(f));
    }
    let mut chars = text.chars();
    if chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Literal::Ident(SmolStr::new(text));
    }
    Literal::Other(SmolStr::new(text))
}

/// The deepest nesting of `[` in `text` (unclosed `[` before any point): an upper bound for
/// how deep [`parse_literal`] nests lists.
pub(crate) fn list_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0);
    for b in text.bytes() {
        match b {
            b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn is_int(t: &str) -> bool {
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(t: &str) -> bool {
    let t = t.strip_prefix('-').unwrap_or(t);
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, b)) => {
            !(a.is_empty() && b.is_empty())
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        }
        None => {
            exp.is_some() && !mantissa.is_empty() && mantissa.bytes().all(|c| c.is_ascii_digit())
        }
    };
    let exp_ok = exp.is_none_or(|e| is_int(e.strip_prefix('+').unwrap_or(e)));
    mantissa_ok && exp_ok
}

/// A string literal in single or double quotes with backslash escapes, unescaped.
fn unquote(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = text.strip_prefix(quote)?.strip_suffix(quote)?;
    if text.len() < 2 {
        return None;
    }
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                other => out.push(other),
            },
            c if c == quote => return None,
            c => out.push(c),
        }
    }
    Some(out)
}
