//! Tokens of the formula language (a subset of C++ expressions), with byte ranges. Comments
//! (`/* ... */`, `// ...`) are skipped.

use std::ops::Range;

use super::error::{DerivativeRule, FormulaError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Int(String),
    Float(String),
    Str(String),
    Char(String),
    Punct(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub range: Range<usize>,
}

/// Longest first, so that `::` wins over `:`.
const PUNCTS: &[&str] = &[
    "::", "->", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ".", "?",
    ":", ";", "=", "+", "-", "*", "/", "%", "<", ">", "!", "&", "|", "^", "~",
];

pub(crate) fn lex(text: &str) -> Result<Vec<Token>, FormulaError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").ok_or_else(|| {
                FormulaError::new(
                    DerivativeRule::Syntax,
                    i..text.len(),
                    "unterminated comment",
                )
                .with_hint("close it with `*/`")
            })?;
            i += end + 4;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(text.len(), |e| i + e);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let end = scan(bytes, i, |b| b.is_ascii_alphanumeric() || b == b'_');
            tokens.push(token(Tok::Ident(text[i..end].to_string()), i..end));
            i = end;
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let (tok, end) = number(text, i);
            tokens.push(token(tok, i..end));
            i = end;
        } else if c == b'"' || c == b'\'' {
            let end = quoted(text, i)?;
            let body = text[i + 1..end - 1].to_string();
            let tok = if c == b'"' {
                Tok::Str(body)
            } else {
                Tok::Char(body)
            };
            tokens.push(token(tok, i..end));
            i = end;
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            tokens.push(token(Tok::Punct(p), i..i + p.len()));
            i += p.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(FormulaError::new(
                DerivativeRule::Syntax,
                i..i + ch.len_utf8(),
                format!("unexpected character `{ch}` in formula"),
            ));
        }
    }
    Ok(tokens)
}

fn token(tok: Tok, range: Range<usize>) -> Token {
    Token { tok, range }
}

fn scan(bytes: &[u8], mut i: usize, ok: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && ok(bytes[i]) {
        i += 1;
    }
    i
}

/// A number: digits with an optional fraction and exponent, and C++ suffixes (`1.0f`, `2L`).
fn number(text: &str, start: usize) -> (Tok, usize) {
    let bytes = text.as_bytes();
    if text[start..].starts_with("0x") || text[start..].starts_with("0X") {
        let end = scan(bytes, start + 2, |b| b.is_ascii_hexdigit());
        let end = scan(bytes, end, |b| matches!(b, b'u' | b'U' | b'l' | b'L'));
        return (Tok::Int(text[start..end].to_string()), end);
    }
    let mut end = scan(bytes, start, |b| b.is_ascii_digit());
    let mut float = false;
    if bytes.get(end) == Some(&b'.') {
        float = true;
        end = scan(bytes, end + 1, |b| b.is_ascii_digit());
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(bytes.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if bytes.get(e).is_some_and(u8::is_ascii_digit) {
            float = true;
            end = scan(bytes, e, |b| b.is_ascii_digit());
        }
    }
    let suffix_end = scan(bytes, end, |b| {
        matches!(b, b'f' | b'F' | b'u' | b'U' | b'l' | b'L')
    });
    let float = float || text[end..suffix_end].contains(['f', 'F']);
    let body = text[start..suffix_end].to_string();
    (
        if float {
            Tok::Float(body)
        } else {
            Tok::Int(body)
        },
        suffix_end,
    )
}

/// The end (exclusive) of a quoted string or character starting at `start`.
fn quoted(text: &str, start: usize) -> Result<usize, FormulaError> {
    let quote = text.as_bytes()[start];
    let mut escaped = false;
    for (j, b) in text.as_bytes()[start + 1..].iter().enumerate() {
        match (escaped, *b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b) if b == quote => return Ok(start + 2 + j),
            _ => {}
        }
    }
    Err(FormulaError::new(
        DerivativeRule::Syntax,
        start..text.len(),
        "unterminated string",
    )
    .with_hint(format!("close it with `{}`", quote as char)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).expect("lexes").into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn tokens_with_ranges() {
        let t = lex("grad * self.sgn()").expect("lexes");
        assert_eq!(t[0].range, 0..4);
        assert_eq!(t[1].tok, Tok::Punct("*"));
        assert_eq!(t[3].range, 11..12);
        assert_eq!(
            toks("at::zeros({1}, 1.0, -1e-3, 2L, \"a\\\"b\")")[..3],
            [
                Tok::Ident("at".into()),
                Tok::Punct("::"),
                Tok::Ident("zeros".into())
            ]
        );
        assert!(toks("1.0 0.5f 1e-6 3").starts_with(&[
            Tok::Float("1.0".into()),
            Tok::Float("0.5f".into()),
            Tok::Float("1e-6".into()),
            Tok::Int("3".into()),
        ]));
        assert_eq!(
            toks("a /*x=*/ b // c"),
            [Tok::Ident("a".into()), Tok::Ident("b".into())]
        );
        assert_eq!(
            toks("a->b >= c"),
            [
                Tok::Ident("a".into()),
                Tok::Punct("->"),
                Tok::Ident("b".into()),
                Tok::Punct(">="),
                Tok::Ident("c".into()),
            ]
        );
    }

    #[test]
    fn lexical_errors_point_at_the_text() {
        let e = lex("grad @ 2").unwrap_err();
        assert_eq!((e.rule, e.range), (DerivativeRule::Syntax, 5..6));
        assert_eq!(lex("f(\"abc").unwrap_err().range, 2..6);
        assert_eq!(lex("a /* b").unwrap_err().message, "unterminated comment");
    }
}
