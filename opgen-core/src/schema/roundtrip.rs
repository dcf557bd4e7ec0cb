//! The round-trip check of R2 without printing: does a schema print exactly as the text it
//! was parsed from?
//!
//! Printing through `fmt` and comparing cost as much as the rest of parsing, so this walks
//! the model the way `Display for Schema` prints it (SCHEMA.md §1.10) and compares each
//! piece with the text as it goes. Only the full parser needs it: what the fast path
//! (`fast.rs`) accepts is canonical by construction. It must agree with the printer byte for byte: the corpus
//! test, the round-trip property tests and the fuzz target (which asserts that an accepted
//! schema prints back as written) all check that.

use super::model::{
    AliasAnnotation, ArgType, Argument, BaseOperatorName, OperatorName, Return, Schema,
};

/// Whether `schema.to_string() == text`, without building the string.
pub(crate) fn prints_as(schema: &Schema, text: &str) -> bool {
    let mut rest = Rest(text.as_bytes());
    rest.operator_name(&schema.name)
        && rest.eat(b"(")
        && rest.arguments(&schema.arguments)
        && rest.eat(b") -> ")
        && rest.returns(&schema.returns)
        && rest.0.is_empty()
}

/// The text not yet matched.
struct Rest<'a>(&'a [u8]);

impl Rest<'_> {
    /// Matches `piece` at the start of the rest. Pieces are short, so a plain loop beats a
    /// call to `memcmp`.
    fn eat(&mut self, piece: &[u8]) -> bool {
        let Some((head, tail)) = self.0.split_at_checked(piece.len()) else {
            return false;
        };
        let mut same = true;
        for (a, b) in head.iter().zip(piece) {
            same &= a == b;
        }
        if same {
            self.0 = tail;
        }
        same
    }

    fn str(&mut self, piece: &str) -> bool {
        self.eat(piece.as_bytes())
    }

    fn char(&mut self, c: char) -> bool {
        self.eat(c.encode_utf8(&mut [0; 4]).as_bytes())
    }

    fn number(&mut self, n: u32) -> bool {
        let mut digits = [0u8; 10];
        let mut at = digits.len();
        let mut n = n;
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.eat(&digits[at..])
    }

    fn operator_name(&mut self, name: &OperatorName) -> bool {
        if let Some(ns) = &name.namespace
            && !(self.str(ns) && self.eat(b"::"))
        {
            return false;
        }
        self.base_name(&name.name)
            && name
                .overload
                .as_ref()
                .is_none_or(|o| self.eat(b".") && self.str(o))
    }

    fn base_name(&mut self, name: &BaseOperatorName) -> bool {
        if name.dunder {
            let i: &[u8] = if name.inplace { b"i" } else { b"" };
            self.eat(b"__") && self.eat(i) && self.str(&name.base) && self.eat(b"__")
        } else if name.inplace {
            self.str(&name.base) && self.eat(b"_")
        } else if name.functional_overload {
            self.str(&name.base) && self.eat(b"_functional")
        } else {
            self.str(&name.base)
        }
    }

    fn arguments(&mut self, arguments: &[Argument]) -> bool {
        let mut first = true;
        let mut star_written = false;
        for pass in [false, true] {
            for arg in arguments.iter().filter(|a| a.kwarg_only == pass) {
                if !first && !self.eat(b", ") {
                    return false;
                }
                first = false;
                if arg.kwarg_only && !star_written {
                    if !self.eat(b"*, ") {
                        return false;
                    }
                    star_written = true;
                }
                if !self.argument(arg) {
                    return false;
                }
            }
        }
        true
    }

    fn argument(&mut self, arg: &Argument) -> bool {
        self.annotated(&arg.ty, arg.annotation.as_ref())
            && self.eat(b" ")
            && self.str(&arg.name)
            && arg
                .default
                .as_ref()
                .is_none_or(|d| self.eat(b"=") && self.str(&d.text))
    }

    fn returns(&mut self, returns: &[Return]) -> bool {
        match returns {
            [] => self.eat(b"()"),
            [one] => self.ret(one),
            many => {
                if !self.eat(b"(") {
                    return false;
                }
                for (i, r) in many.iter().enumerate() {
                    if (i > 0 && !self.eat(b", ")) || !self.ret(r) {
                        return false;
                    }
                }
                self.eat(b")")
            }
        }
    }

    fn ret(&mut self, ret: &Return) -> bool {
        self.annotated(&ret.ty, ret.annotation.as_ref())
            && ret
                .name
                .as_ref()
                .is_none_or(|n| self.eat(b" ") && self.str(n))
    }

    /// As `write_annotated` in the printer: an annotation goes after the word `Tensor`, and
    /// only the outermost `?` or `[]` of the type follows it.
    fn annotated(&mut self, ty: &ArgType, annotation: Option<&AliasAnnotation>) -> bool {
        let Some(a) = annotation else {
            return self.ty(ty);
        };
        let suffix: &[u8] = match ty {
            ArgType::Optional(_) => b"?",
            ArgType::List { size: None, .. } => b"[]",
            _ => b"",
        };
        self.eat(b"Tensor(") && self.annotation(a) && self.eat(b")") && self.eat(suffix)
    }

    fn ty(&mut self, ty: &ArgType) -> bool {
        match ty {
            ArgType::Base(b) => self.str(b.as_str()),
            ArgType::Optional(t) => self.ty(t) && self.eat(b"?"),
            ArgType::List { elem, size: None } => self.ty(elem) && self.eat(b"[]"),
            ArgType::List {
                elem,
                size: Some(n),
            } => self.ty(elem) && self.eat(b"[") && self.number(*n) && self.eat(b"]"),
            ArgType::CustomClass(c) => self.eat(b"__torch__.torch.classes.") && self.str(c),
        }
    }

    fn annotation(&mut self, a: &AliasAnnotation) -> bool {
        self.letters(&a.before)
            && (!a.is_write || self.eat(b"!"))
            && (a.after.is_empty() || (self.eat(b" -> ") && self.letters(&a.after)))
    }

    fn letters(&mut self, letters: &[char]) -> bool {
        letters
            .iter()
            .enumerate()
            .all(|(i, &c)| (i == 0 || self.eat(b"|")) && self.char(c))
    }
}
