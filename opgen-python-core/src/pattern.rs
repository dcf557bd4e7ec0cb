//! The small regular-expression subset of torchgen's skip lists (`.*_backward`,
//! `nonzero(_(out|numpy))?`, `_?sparse_(coo|csr)_tensor.*`): literals, `.`, groups with
//! alternatives, and `*` / `?` after an atom. Whole-string match, as `re.match('^p$')`.

#[derive(Debug, Clone, PartialEq)]
enum Atom {
    Char(char),
    Any,
    Group(Vec<Vec<Piece>>),
}

#[derive(Debug, Clone, PartialEq)]
struct Piece {
    atom: Atom,
    /// `None`: exactly once; `Some('*')` or `Some('?')`.
    repeat: Option<char>,
}

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern(Vec<Piece>);

impl Pattern {
    /// Compiles `pattern`; `None` if it uses syntax outside the subset.
    pub fn new(pattern: &str) -> Option<Pattern> {
        let chars: Vec<char> = pattern.chars().collect();
        let (alts, end) = parse_alts(&chars, 0)?;
        match (end == chars.len(), <[_; 1]>::try_from(alts)) {
            (true, Ok([seq])) => Some(Pattern(seq)),
            _ => None,
        }
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        match_seq(&self.0, &chars, &mut |rest| rest.is_empty())
    }
}

/// Parses alternatives until `)` or the end; returns them and the index of the stop.
fn parse_alts(chars: &[char], mut i: usize) -> Option<(Vec<Vec<Piece>>, usize)> {
    let mut alts = vec![Vec::new()];
    while i < chars.len() {
        let atom = match chars[i] {
            ')' => break,
            '|' => {
                alts.push(Vec::new());
                i += 1;
                continue;
            }
            '(' => {
                let (inner, end) = parse_alts(chars, i + 1)?;
                if chars.get(end) != Some(&')') {
                    return None;
                }
                i = end;
                Atom::Group(inner)
            }
            '.' => Atom::Any,
            '*' | '?' | '[' | ']' | '+' | '{' | '}' | '\\' | '^' | '$' => return None,
            c => Atom::Char(c),
        };
        i += 1;
        let repeat = match chars.get(i) {
            Some(&r @ ('*' | '?')) => {
                i += 1;
                Some(r)
            }
            _ => None,
        };
        alts.last_mut()?.push(Piece { atom, repeat });
    }
    Some((alts, i))
}

/// Matches `seq` at the start of `text`, then calls `k` with what is left (backtracking).
fn match_seq(seq: &[Piece], text: &[char], k: &mut dyn FnMut(&[char]) -> bool) -> bool {
    let Some((first, rest)) = seq.split_first() else {
        return k(text);
    };
    match first.repeat {
        None => match_atom(&first.atom, text, &mut |t| match_seq(rest, t, k)),
        Some('?') => {
            match_atom(&first.atom, text, &mut |t| match_seq(rest, t, k))
                || match_seq(rest, text, k)
        }
        _ => match_star(&first.atom, rest, text, k),
    }
}

fn match_star(
    atom: &Atom,
    rest: &[Piece],
    text: &[char],
    k: &mut dyn FnMut(&[char]) -> bool,
) -> bool {
    // Greedy: one more repetition (that consumes something) first, then stop here.
    match_atom(atom, text, &mut |t| {
        t.len() < text.len() && match_star(atom, rest, t, k)
    }) || match_seq(rest, text, k)
}

fn match_atom(atom: &Atom, text: &[char], k: &mut dyn FnMut(&[char]) -> bool) -> bool {
    match atom {
        Atom::Char(c) => text.first() == Some(c) && k(&text[1..]),
        Atom::Any => !text.is_empty() && k(&text[1..]),
        Atom::Group(alts) => alts.iter().any(|alt| match_seq(alt, text, k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Pattern::new(p).unwrap().matches(t)
    }

    #[test]
    fn torchgens_patterns_match_as_python_does() {
        assert!(m(".*_backward", "max_pool2d_backward"));
        assert!(!m(".*_backward", "max_pool2d_backward_out"));
        assert!(m(
            ".*_backward_(out|input|weight|bias)",
            "conv_backward_input"
        ));
        assert!(m("nonzero(_(out|numpy))?", "nonzero"));
        assert!(m("nonzero(_(out|numpy))?", "nonzero_numpy"));
        assert!(!m("nonzero(_(out|numpy))?", "nonzero_static"));
        assert!(m(
            "_?sparse_(coo|compressed|csr|csc|bsr|bsc)_tensor.*",
            "sparse_coo_tensor"
        ));
        assert!(m(
            "_?sparse_(coo|compressed|csr|csc|bsr|bsc)_tensor.*",
            "_sparse_csr_tensor_unsafe"
        ));
        assert!(m("fill.Tensor", "fill.Tensor"));
        assert!(m("lift.*", "lift_fresh"));
        assert!(!m("alias", "alias_copy"));
        assert_eq!(Pattern::new("a[bc]"), None);
    }
}
