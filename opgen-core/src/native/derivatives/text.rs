//! torchgen's regular expressions over formula text, reproduced without a regex engine:
//! `IDENT_REGEX = r"(^|\W){}($|\W)"` and the patterns of `saved_variables`, with Python's
//! `re.search`/`re.sub` semantics (non-overlapping matches, left to right).

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The next match of `(^|\W)name($|\W)` starting at or after byte `from`: (match end,
/// start of `name`). `^` matches only at 0; the delimiters are part of the match.
fn find_ident(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut search = from;
    while let Some(i) = text.get(search..)?.find(name).map(|i| search + i) {
        let end = i + name.len();
        let leading = if i == 0 {
            from == 0
        } else {
            i > from && !is_word(bytes[i - 1])
        };
        let trailing = end == bytes.len() || !is_word(bytes[end]);
        if leading && trailing {
            return Some((if end == bytes.len() { end } else { end + 1 }, i));
        }
        search = i + 1;
    }
    None
}

/// Whether `name` occurs as an identifier (`re.search(IDENT_REGEX.format(name), text)`).
pub(crate) fn has_ident(text: &str, name: &str) -> bool {
    find_ident(text, name, 0).is_some()
}

/// How many times `name` occurs as an identifier (`len(re.findall(IDENT_REGEX...))`).
pub(crate) fn count_ident(text: &str, name: &str) -> usize {
    let (mut n, mut pos) = (0, 0);
    while let Some((end, _)) = find_ident(text, name, pos) {
        n += 1;
        pos = end;
    }
    n
}

/// `re.sub(IDENT_REGEX.format(name), ...)`: each occurrence of `name` as an identifier
/// replaced by `replacement`, keeping the delimiters.
pub(crate) fn sub_ident(text: &str, name: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    while let Some((end, at)) = find_ident(text, name, pos) {
        out.push_str(&text[pos..at]);
        out.push_str(replacement);
        out.push_str(&text[at + name.len()..end]);
        pos = end;
    }
    out.push_str(&text[pos..]);
    out
}

/// The indices of `grads[N]` (`re.findall(r"grads\[(\d+)\]", text)`).
pub(crate) fn grads_indices(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("grads[") {
        let after = &rest[i + 6..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && after[digits.len()..].starts_with(']') {
            out.push(digits.parse().unwrap_or(usize::MAX));
        }
        rest = &rest[i + 6..];
    }
    out
}

/// One piece of a `saved_variables` pattern.
#[derive(Clone, Copy)]
pub(crate) enum Piece {
    /// The variable's name, matched literally.
    Name,
    /// Any one character (the regex's unescaped `.`).
    Any,
    /// Literal text.
    Lit(&'static str),
    /// `(-?\w+)`, captured.
    Word,
}

/// `re.sub(pattern, repl, text)` for a pattern made of `pieces` with `name` filled in;
/// `repl` gets the whole match and the captured word (if any).
pub(crate) fn sub_pattern(
    text: &str,
    name: &str,
    pieces: &[Piece],
    mut repl: impl FnMut(&str, Option<&str>) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let mut i = 0;
    while i <= text.len() {
        match match_at(text, i, name, pieces) {
            Some((end, word)) if end > i => {
                out.push_str(&text[pos..i]);
                out.push_str(&repl(&text[i..end], word.map(|(a, b)| &text[a..b])));
                pos = end;
                i = end;
            }
            _ => i += text[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out.push_str(&text[pos.min(text.len())..]);
    out
}

type Capture = Option<(usize, usize)>;

fn match_at(text: &str, start: usize, name: &str, pieces: &[Piece]) -> Option<(usize, Capture)> {
    let mut i = start;
    let mut word = None;
    for piece in pieces {
        let rest = text.get(i..)?;
        match piece {
            Piece::Name => i += rest.starts_with(name).then_some(name.len())?,
            Piece::Lit(l) => i += rest.starts_with(l).then_some(l.len())?,
            Piece::Any => i += rest.chars().next().filter(|c| *c != '\n')?.len_utf8(),
            Piece::Word => {
                let sign = usize::from(rest.starts_with('-'));
                let n = rest[sign..].bytes().take_while(|b| is_word(*b)).count();
                if n == 0 {
                    return None;
                }
                word = Some((i, i + sign + n));
                i += sign + n;
            }
        }
    }
    Some((i, word))
}

/// Python's `str.title()`: the first letter of each run of letters upper case, the others
/// lower case (`conv2d` → `Conv2D`).
pub(crate) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if c.is_alphabetic() {
            if prev_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            prev_cased = true;
        } else {
            out.push(c);
            prev_cased = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ident_search_and_substitution_follow_python_re() {
        assert!(has_ident("grad * self", "grad"));
        assert!(!has_ident("grads[0]", "grad"));
        assert!(!has_ident("grad_input_mask", "grad"));
        assert!(has_ident("f(grad)", "grad"));
        assert_eq!(
            sub_ident("grad * self.sgn()", "grad", "self_t.conj()"),
            "self_t.conj() * self.sgn()"
        );
        assert_eq!(
            sub_ident("self * self", "self", "self_p"),
            "self_p * self_p"
        );
        // Adjacent occurrences share a delimiter that the first match consumes, as in Python.
        assert_eq!(sub_ident("f(x,x)", "x", "y"), "f(y,x)");
        assert_eq!(sub_ident("x", "x", "y"), "y");
    }

    #[test]
    fn grads_indices_and_patterns() {
        assert_eq!(grads_indices("grads[0] + grads[12] + grads[i]"), [0, 12]);
        let sizes = [Piece::Name, Piece::Any, Piece::Lit("sym_sizes()")];
        let s = sub_pattern(
            "grad.expand_symint(self.sym_sizes())",
            "self",
            &sizes,
            |_, _| "self_sym_sizes".into(),
        );
        assert_eq!(s, "grad.expand_symint(self_sym_sizes)");
        let size = [
            Piece::Name,
            Piece::Any,
            Piece::Lit("sym_size("),
            Piece::Word,
            Piece::Lit(")"),
        ];
        let s = sub_pattern(
            "self.sym_size(-1) + self.sym_size(dim)",
            "self",
            &size,
            |_, w| {
                format!(
                    "self_sym_argsize_{}",
                    w.unwrap_or("").replace('-', "minus_")
                )
            },
        );
        assert_eq!(s, "self_sym_argsize_minus_1 + self_sym_argsize_dim");
    }

    #[test]
    fn title_case_as_python() {
        assert_eq!(title("adaptive_avg_pool2d"), "Adaptive_Avg_Pool2D");
        assert_eq!(title("linalg_LU"), "Linalg_Lu");
        assert_eq!(title("add"), "Add");
    }
}
