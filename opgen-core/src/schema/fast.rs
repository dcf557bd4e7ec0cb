//! The parser's fast path: one forward pass over the bytes that reads a valid schema written
//! the usual way (ASCII identifiers, base types with `?`/`[]`/`[N]`, annotations on
//! `Tensor`, defaults without spaces or parentheses) straight into the model. Every corpus
//! schema takes it.
//!
//! It never reports an error: on anything it does not read (any broken rule, any text that
//! torchgen would split differently or that would not print back as written, any rarer
//! form such as a custom class) it gives up, and the full parser in `parser.rs` reads the
//! text again and reports the errors with their rules and ranges. So what it accepts must be
//! a subset of what the full parser accepts, read as the same model: in builds with debug
//! assertions (the tests) and under cargo-fuzz, `parse_schema` checks exactly that for every
//! schema this path accepts.
//!
//! Why what it accepts is canonical (R2) without printing it: the name is
//! `[ns::]op[.overload]` of identifier bytes (and dots in the overload), which the printer
//! writes back verbatim; arguments are separated by exactly `", "`, with `*, ` only once and
//! before an argument; a type is read in the one way the printer writes it; an annotation is
//! read by its grammar, which has one spelling per value; a default is kept as written; the
//! returns are `()`, one return without parentheses, or at least two within them.

use smol_str::SmolStr;

use super::invariants::check_invariants;
use super::literal::parse_literal;
use super::model::{
    AliasAnnotation, AliasSet, ArgType, Argument, BaseOperatorName, BaseType, DefaultValue,
    Literal, OperatorName, Return, Schema, TypeBox,
};
use super::parser::{Layout, MAX_NESTING};

/// The schema, if `text` is in the subset this path reads and breaks no rule; `None` means
/// "ask the full parser", not "invalid".
pub(super) fn parse(text: &str) -> Option<Schema> {
    let mut p = Fast {
        src: text,
        s: text.as_bytes(),
        i: 0,
    };
    let name = p.operator_name()?;
    let arguments = p.arguments()?;
    let returns = p.returns()?;
    let schema = Schema {
        name,
        arguments: arguments.list,
        returns,
    };
    // R24–R35 need an in-place name or a written argument or return (see `check_invariants`).
    // Their errors point at the text, so a schema breaking one goes to the full parser, which
    // knows where each argument is.
    if (schema.name.name.inplace
        || arguments.any_write
        || schema.returns.iter().any(|r| r.is_write()))
        && !check_invariants(&schema, &Layout::default()).is_empty()
    {
        return None;
    }
    // A name the full parser rejects (R91, R92), which it reports with its place.
    if !super::names::names_ok(&schema) {
        return None;
    }
    Some(schema)
}

/// Bytes of identifiers: `[A-Za-z0-9_]`.
const IDENT: u8 = 1;
/// Bytes that may appear in a default on this path: printable ASCII but space, `=`, `(`,
/// `)` and `,` (a `,` not followed by a space is taken separately).
const DEFAULT: u8 = 2;

static CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut b = 0x21;
    while b < 0x7f {
        class[b] = DEFAULT;
        b += 1;
    }
    class[b'=' as usize] = 0;
    class[b'(' as usize] = 0;
    class[b')' as usize] = 0;
    class[b',' as usize] = 0;
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            class[b] |= IDENT;
        }
        b += 1;
    }
    class
};

/// What [`Fast::arguments`] found besides the arguments.
struct Arguments {
    list: Vec<Argument>,
    any_write: bool,
}

struct Fast<'a> {
    src: &'a str,
    /// `src` as bytes.
    s: &'a [u8],
    /// The cursor: a byte offset into `src`.
    i: usize,
}

impl<'a> Fast<'a> {
    /// The byte at the cursor, or 0 past the end (0 is in no class, so it ends every loop).
    #[inline(always)]
    fn peek(&self) -> u8 {
        self.s.get(self.i).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn peek_at(&self, k: usize) -> u8 {
        self.s.get(self.i + k).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == b;
        self.i += usize::from(hit);
        hit
    }

    /// Consumes `", "` if it is next.
    #[inline(always)]
    fn comma_space(&mut self) -> bool {
        let hit = self.peek() == b',' && self.peek_at(1) == b' ';
        self.i += 2 * usize::from(hit);
        hit
    }

    /// The text of `start..self.i`. Only ASCII bytes are ever consumed, so the cut falls on
    /// character boundaries (which slicing checks, cheaply).
    #[inline(always)]
    fn text(&self, start: usize) -> &'a str {
        &self.src[start..self.i]
    }

    /// A run of identifier bytes (possibly empty).
    #[inline(always)]
    fn ident(&mut self) -> &'a str {
        let start = self.i;
        self.i += ident_len(&self.s[start..]);
        self.text(start)
    }

    /// `[ns::]op[.overload]` followed by `(`.
    fn operator_name(&mut self) -> Option<OperatorName> {
        let first = self.ident();
        let (namespace, op) = if self.peek() == b':' && self.peek_at(1) == b':' {
            self.i += 2;
            (Some(first), self.ident())
        } else {
            (None, first)
        };
        let overload = if self.eat(b'.') {
            let start = self.i;
            while CLASS[usize::from(self.peek())] & IDENT != 0 || self.peek() == b'.' {
                self.i += 1;
            }
            Some(self.text(start))
        } else {
            None
        };
        if !self.eat(b'(')
            || op.is_empty()
            || namespace.is_some_and(str::is_empty)
            || overload.is_some_and(str::is_empty)
        {
            return None;
        }
        Some(OperatorName {
            namespace: namespace.map(small),
            name: base_operator_name(op)?,
            overload: overload.map(small),
        })
    }

    /// The arguments after `(`, up to and including `) -> `.
    fn arguments(&mut self) -> Option<Arguments> {
        #[derive(PartialEq, Clone, Copy)]
        enum State {
            Positional,
            KwargOnly,
            Out,
        }
        let mut out = Arguments {
            list: Vec::new(),
            any_write: false,
        };
        if !self.eat(b')') {
            // An upper bound for the number of arguments, so the vector is allocated once.
            out.list = Vec::with_capacity(1 + count_commas(&self.s[self.i..]));
            let mut state = State::Positional;
            let mut seen_self = false;
            let mut written_before_self = false;
            let mut pin_memory = 0;
            loop {
                if self.peek() == b'*' {
                    // `*` once, and followed by an argument (R12, R2).
                    if state != State::Positional {
                        return None;
                    }
                    self.i += 1;
                    if !self.comma_space() {
                        return None;
                    }
                    state = State::KwargOnly;
                }
                let (ty, annotation, _) = self.annotated_type()?;
                if self.peek() != b' ' {
                    return None;
                }
                self.i += 1;
                let name = self.ident();
                if name.is_empty() {
                    return None;
                }
                let default = if self.peek() == b'=' {
                    self.i += 1;
                    Some(self.default()?)
                } else {
                    None
                };
                let is_write = annotation.as_ref().is_some_and(|a| a.is_write);
                if is_write {
                    out.any_write = true;
                    if state == State::KwargOnly {
                        state = State::Out;
                    }
                } else if state == State::Out {
                    return None; // R13
                }
                let kwarg_only = state != State::Positional;
                if kwarg_only {
                    // Two TensorOptions groups (R15) need two `pin_memory`s.
                    pin_memory += usize::from(name == "pin_memory");
                } else if name == "self" {
                    seen_self = true;
                } else if is_write && !seen_self {
                    written_before_self = true;
                }
                out.list.push(Argument {
                    name: argument_name(name),
                    ty,
                    annotation,
                    default,
                    kwarg_only,
                });
                match self.peek() {
                    b',' if self.peek_at(1) == b' ' => self.i += 2,
                    b')' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
            // R14 (a written argument before `self`), R15.
            if (seen_self && written_before_self) || pin_memory > 1 {
                return None;
            }
        }
        (self.s.get(self.i..self.i + 4) == Some(b" -> ")).then(|| {
            self.i += 4;
            out
        })
    }

    /// A default after `=`: the text up to `, ` or `)`.
    fn default(&mut self) -> Option<DefaultValue> {
        let start = self.i;
        loop {
            let b = self.peek();
            if CLASS[usize::from(b)] & DEFAULT != 0 || (b == b',' && self.peek_at(1) != b' ') {
                self.i += 1;
            } else {
                break;
            }
        }
        Some(match self.text(start) {
            "" => return None,
            // Two defaults in three; their text need not be copied.
            "None" => DefaultValue {
                text: SmolStr::new_static("None"),
                value: Literal::None,
            },
            "False" => DefaultValue {
                text: SmolStr::new_static("False"),
                value: Literal::Bool(false),
            },
            "True" => DefaultValue {
                text: SmolStr::new_static("True"),
                value: Literal::Bool(true),
            },
            // A deep list (R90) is reported by the full parser; counting `[` bounds it.
            text if text.bytes().filter(|&b| b == b'[').count() > MAX_NESTING => return None,
            text => DefaultValue {
                text: small(text),
                value: parse_literal(text),
            },
        })
    }

    /// The returns after ` -> `, to the end of the text.
    fn returns(&mut self) -> Option<Vec<Return>> {
        let returns = if self.eat(b'(') {
            if self.eat(b')') {
                Vec::new()
            } else {
                let mut returns = Vec::with_capacity(1 + count_commas(&self.s[self.i..]));
                loop {
                    returns.push(self.ret()?);
                    if self.comma_space() {
                        continue;
                    }
                    if self.eat(b')') {
                        break;
                    }
                    return None;
                }
                // One return is written without parentheses (R2).
                if returns.len() < 2 {
                    return None;
                }
                returns
            }
        } else {
            vec![self.ret()?]
        };
        (self.i == self.s.len()).then_some(returns)
    }

    fn ret(&mut self) -> Option<Return> {
        let (ty, annotation, arrow) = self.annotated_type()?;
        let name = if self.eat(b' ') {
            let name = self.ident();
            if name.is_empty() {
                return None;
            }
            Some(small(name))
        } else {
            // torchgen splits an unnamed return at the space of ` -> ` and rejects it.
            if arrow {
                return None;
            }
            None
        };
        Some(Return {
            name,
            ty,
            annotation,
        })
    }

    /// A type with its annotation, and whether the annotation has ` -> `.
    #[inline(always)]
    fn annotated_type(&mut self) -> Option<(ArgType, Option<AliasAnnotation>, bool)> {
        let base = self.base_type()?;
        if base == BaseType::Tensor && self.peek() == b'(' {
            self.i += 1;
            let (annotation, arrow) = self.annotation()?;
            // Only `Tensor(a)`, `Tensor(a)?` and `Tensor(a)[]` (R18); the caller rejects
            // whatever follows that is not a space or a separator.
            let ty = match self.peek() {
                b'?' => {
                    self.i += 1;
                    ArgType::Optional(TypeBox::base(BaseType::Tensor))
                }
                b'[' if self.peek_at(1) == b']' => {
                    self.i += 2;
                    ArgType::List {
                        elem: TypeBox::base(BaseType::Tensor),
                        size: None,
                    }
                }
                _ => ArgType::Base(BaseType::Tensor),
            };
            return Some((ty, Some(annotation), arrow));
        }
        let mut ty = ArgType::Base(base);
        for _ in 0..=MAX_NESTING {
            match self.peek() {
                b'?' => {
                    self.i += 1;
                    ty = ArgType::Optional(TypeBox::new(ty));
                }
                b'[' => {
                    self.i += 1;
                    let size = self.list_size()?;
                    ty = ArgType::List {
                        elem: TypeBox::new(ty),
                        size,
                    };
                }
                _ => return Some((ty, None, false)),
            }
        }
        // Deeper than R90 allows: the full parser reports it.
        None
    }

    /// A base type's name, not followed by an identifier byte. Compared as a prefix chosen by
    /// the first byte, which costs less than reading an identifier and then matching it.
    #[inline(always)]
    fn base_type(&mut self) -> Option<BaseType> {
        let rest = &self.s[self.i..];
        let (base, len) = match rest.first()? {
            b'T' if rest.starts_with(b"Tensor") => (BaseType::Tensor, 6),
            b'i' if rest.starts_with(b"int") => (BaseType::Int, 3),
            b'b' if rest.starts_with(b"bool") => (BaseType::Bool, 4),
            b'f' if rest.starts_with(b"float") => (BaseType::Float, 5),
            b's' if rest.starts_with(b"str") => (BaseType::Str, 3),
            b'S' => match rest.get(1)? {
                b'c' if rest.starts_with(b"ScalarType") => (BaseType::ScalarType, 10),
                b'c' if rest.starts_with(b"Scalar") => (BaseType::Scalar, 6),
                b'y' if rest.starts_with(b"SymInt") => (BaseType::SymInt, 6),
                b'y' if rest.starts_with(b"SymBool") => (BaseType::SymBool, 7),
                b't' if rest.starts_with(b"Storage") => (BaseType::Storage, 7),
                b't' if rest.starts_with(b"Stream") => (BaseType::Stream, 6),
                _ => return None,
            },
            b'D' if rest.starts_with(b"DeviceIndex") => (BaseType::DeviceIndex, 11),
            b'D' if rest.starts_with(b"Device") => (BaseType::Device, 6),
            b'D' if rest.starts_with(b"DimVector") => (BaseType::DimVector, 9),
            b'L' if rest.starts_with(b"Layout") => (BaseType::Layout, 6),
            b'M' if rest.starts_with(b"MemoryFormat") => (BaseType::MemoryFormat, 12),
            b'G' if rest.starts_with(b"Generator") => (BaseType::Generator, 9),
            b'G' if rest.starts_with(b"GraphModule") => (BaseType::GraphModule, 11),
            b'Q' if rest.starts_with(b"QScheme") => (BaseType::QScheme, 7),
            _ => return None,
        };
        if CLASS[usize::from(rest.get(len).copied().unwrap_or(0))] & IDENT != 0 {
            return None;
        }
        self.i += len;
        Some(base)
    }

    /// The size after `[`, and the `]`: none, or a positive number without leading zeros
    /// that fits a `u32` (R17).
    fn list_size(&mut self) -> Option<Option<u32>> {
        if self.eat(b']') {
            return Some(None);
        }
        let first = self.peek();
        if !(b'1'..=b'9').contains(&first) {
            return None;
        }
        let mut n = 0u32;
        while self.peek().is_ascii_digit() {
            n = n
                .checked_mul(10)?
                .checked_add(u32::from(self.peek() - b'0'))?;
            self.i += 1;
        }
        self.eat(b']').then_some(Some(n))
    }

    /// An annotation after `Tensor(`, and its `)`: `a`, `a!`, `a|b`, `a -> *`, `a! -> b|c`,
    /// within R19–R22.
    fn annotation(&mut self) -> Option<(AliasAnnotation, bool)> {
        let before = self.letters()?;
        let is_write = self.eat(b'!');
        let arrow = self.s.get(self.i..self.i + 4) == Some(b" -> ");
        let after = if arrow {
            self.i += 4;
            if self.eat(b'*') {
                let mut star = AliasSet::new();
                star.push('*');
                star
            } else {
                self.letters()?
            }
        } else {
            AliasSet::new()
        };
        // R20, R21, R22.
        if !self.eat(b')')
            || (is_write && before.len() > 1)
            || (before.len() > 1 && after.len() > 1)
            || before.len() > 2
        {
            return None;
        }
        Some((
            AliasAnnotation {
                before,
                is_write,
                after,
            },
            arrow,
        ))
    }

    /// Lowercase letters joined by `|`.
    fn letters(&mut self) -> Option<AliasSet> {
        let mut set = AliasSet::new();
        loop {
            let c = self.peek();
            if !c.is_ascii_lowercase() {
                return None;
            }
            self.i += 1;
            set.push(char::from(c));
            if !(self.peek() == b'|' && self.peek_at(1).is_ascii_lowercase()) {
                return Some(set);
            }
            self.i += 1;
        }
    }
}

/// `text` as a [`SmolStr`]. The names of a schema are short: copied inline byte by byte, they
/// cost less than through `SmolStr::new` (which calls `memcpy`).
#[inline(always)]
fn small(text: &str) -> SmolStr {
    if text.len() <= 23 {
        SmolStr::new_inline(text)
    } else {
        SmolStr::new(text)
    }
}

/// An argument's name; the most common ones (one argument in three) are not copied.
#[inline(always)]
fn argument_name(name: &str) -> SmolStr {
    match name {
        "self" => SmolStr::new_static("self"),
        "out" => SmolStr::new_static("out"),
        "other" => SmolStr::new_static("other"),
        _ => small(name),
    }
}

/// The length of the run of identifier bytes (`[A-Za-z0-9_]`) that `bytes` starts with.
///
/// Eight bytes at a time while there are eight: with every lane's high bit set, subtracting
/// `c` from each lane cannot borrow from the next one, and leaves a lane's high bit set
/// exactly when its low seven bits are at least `c`; so each range of identifier bytes is
/// two subtractions. Lanes with their own high bit set (non-ASCII) are no identifier bytes.
#[inline(always)]
pub(crate) fn ident_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let at_least = |lanes: u64, c: u8| lanes.wrapping_sub(ONES * u64::from(c));
    let mut n = 0;
    while let Some(word) = bytes.get(n..).and_then(|rest| rest.first_chunk::<8>()) {
        let x = u64::from_le_bytes(*word);
        let y = x | HIGH;
        // Letters, folded to lower case: `A`-`Z` and `a`-`z`, and no other byte, become
        // `a`-`z` with bit 5 set.
        let z = y | (ONES * 0x20);
        let digit = at_least(y, b'0') & !at_least(y, b'9' + 1);
        let letter = at_least(z, b'a') & !at_least(z, b'z' + 1);
        let underscore = at_least(y, b'_') & !at_least(y, b'_' + 1);
        let ident = (digit | letter | underscore) & !x & HIGH;
        let stop = !ident & HIGH;
        if stop != 0 {
            return n + (stop.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let rest = &bytes[n..];
    n + rest
        .iter()
        .position(|&b| CLASS[usize::from(b)] & IDENT == 0)
        .unwrap_or(rest.len())
}

/// The number of `,` in `bytes`, eight bytes at a time: for each byte lane of a word, the
/// exact "byte is zero" test on `word ^ ",,,,,,,,"` leaves 1 in the lanes that hold a comma;
/// the lanes are summed as bytes (at most 31 words, so no lane, nor their total, passes 255)
/// and then added up by one multiplication.
fn count_commas(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const LOW7: u64 = ONES * 0x7f;
    const COMMAS: u64 = ONES * b',' as u64;
    let (words, tail) = bytes.as_chunks::<8>();
    let mut n = tail.iter().filter(|&&b| b == b',').count();
    for batch in words.chunks(31) {
        let mut lanes = 0;
        for word in batch {
            let x = u64::from_ne_bytes(*word) ^ COMMAS;
            // The high bit of a lane is set where the byte of `x` is not zero.
            let nonzero = ((x & LOW7) + LOW7) | x;
            lanes += (!nonzero >> 7) & ONES;
        }
        n += (lanes.wrapping_mul(ONES) >> 56) as usize;
    }
    n
}

const AUGMENTED_ASSIGNMENT: [&str; 11] = [
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or",
];

/// The decomposition of an operator name (SCHEMA.md §1.4), or `None` where the full parser
/// reports R4–R6.
fn base_operator_name(op: &str) -> Option<BaseOperatorName> {
    if op.ends_with("_out") {
        return None; // R4
    }
    let dunder_word = op
        .strip_prefix("__")
        .and_then(|s| s.strip_suffix("__"))
        .filter(|w| !w.is_empty() && !w.contains('_'));
    let (base, inplace, dunder) = match dunder_word {
        Some(word) => match word.strip_prefix('i') {
            Some(rest) if AUGMENTED_ASSIGNMENT.contains(&rest) => (rest, true, true),
            Some(_) => return None, // R5
            None => (word, false, true),
        },
        None => match op.strip_suffix('_') {
            Some(b) => (b, true, false),
            None => (op, false, false),
        },
    };
    let (base, functional_overload) = match base.strip_suffix("_functional") {
        Some(_) if dunder || inplace => return None, // R6
        Some(b) => (b, true),
        None => (base, false),
    };
    Some(BaseOperatorName {
        base: small(base),
        inplace,
        dunder,
        functional_overload,
    })
}

#[cfg(test)]
mod tests {
    use super::{CLASS, IDENT, count_commas, ident_len};

    #[test]
    fn ident_len_agrees_with_a_byte_loop() {
        let bytewise = |s: &[u8]| {
            s.iter()
                .position(|&b| CLASS[usize::from(b)] & IDENT == 0)
                .unwrap_or(s.len())
        };
        for b in 0..=255u8 {
            for at in 0..20 {
                let mut s =
                    b"abcdefghijklmnopqrstuvwxyz_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".to_vec();
                s[at] = b;
                for len in [at + 1, at + 5, at + 9, s.len()] {
                    assert_eq!(ident_len(&s[..len]), bytewise(&s[..len]), "{b:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn count_commas_agrees_with_a_byte_loop() {
        let text: Vec<u8> = (0..600)
            .map(|i| {
                if i % 3 == 0 || i % 7 == 0 {
                    b','
                } else {
                    (i % 251) as u8
                }
            })
            .collect();
        for start in 0..20 {
            for end in (start..text.len()).step_by(13) {
                let s = &text[start..end];
                assert_eq!(count_commas(s), s.iter().filter(|&&b| b == b',').count());
            }
        }
    }
}
