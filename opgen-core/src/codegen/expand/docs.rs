//! Rustdoc for generated items: the user's doc lines, what the item does, then the schema,
//! the variants and the keys with kernels in this crate. The last part is the same on every
//! item of an operator, so it is one `#[doc]` attribute made once and shared (its bracket
//! group is reference counted), as are the user's doc attributes.

use proc_macro2::{Ident, Literal, Punct, Spacing, Span, TokenStream as TokenStream2, TokenTree};
use quote::ToTokens;

use super::frag::Frag;
use super::plan::OpPlan;

/// Doc text as one literal: each line after a space, as `///` comments read.
pub(crate) fn literal<S: AsRef<str>>(lines: &[S]) -> Literal {
    let len: usize = lines.iter().map(|l| l.as_ref().len() + 3).sum();
    let mut doc = Doc::with_capacity(len);
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            doc.newline();
        }
        doc.text(l.as_ref());
    }
    doc.finish()
}

/// Doc text written straight into the escaped form of its literal, line by line: each
/// non-empty line after a space, as `///` comments read, the lines joined by `\n`.
pub(crate) struct Doc {
    repr: String,
    /// Nothing written on the current line yet (its leading space is still to come).
    line_start: bool,
}

impl Doc {
    /// An empty first line, with room for about `len` bytes of text.
    pub fn with_capacity(len: usize) -> Doc {
        let mut repr = String::with_capacity(len + 8);
        repr.push('"');
        Doc {
            repr,
            line_start: true,
        }
    }

    /// Ends the current line.
    pub fn newline(&mut self) -> &mut Doc {
        self.repr.push_str("\\n");
        self.line_start = true;
        self
    }

    fn start(&mut self) {
        if self.line_start {
            self.repr.push(' ');
            self.line_start = false;
        }
    }

    /// Appends `text` to the current line.
    pub fn text(&mut self, text: &str) -> &mut Doc {
        if !text.is_empty() {
            self.start();
            escape_into(&mut self.repr, text);
        }
        self
    }

    /// Appends `text`, which holds no character to escape (checked in debug builds).
    pub fn raw(&mut self, text: &'static str) -> &mut Doc {
        debug_assert!(
            !text.bytes().any(|b| ESCAPES[usize::from(b)]),
            "{text:?} needs escaping"
        );
        if !text.is_empty() {
            self.start();
            self.repr.push_str(text);
        }
        self
    }

    /// Appends `value` as it displays, with no escaping: for identifiers, dispatch keys and
    /// the like, which never hold a character to escape (nor display as nothing).
    pub fn plain(&mut self, value: impl std::fmt::Display) -> &mut Doc {
        use std::fmt::Write;
        self.start();
        let _ = write!(self.repr, "{value}");
        self
    }

    /// `value` as it displays, in backticks.
    pub fn code(&mut self, value: impl std::fmt::Display) -> &mut Doc {
        self.raw("`").plain(value).raw("`")
    }

    /// What the plain forms do on error, after an empty line.
    pub fn panics(&mut self, try_name: impl std::fmt::Display) -> &mut Doc {
        self.newline()
            .newline()
            .raw("# Panics")
            .newline()
            .raw("On error, with its message; [`")
            .plain(try_name)
            .raw("`] returns the error instead.")
    }

    /// The literal.
    pub fn finish(mut self) -> Literal {
        self.repr.push('"');
        self.repr
            .parse()
            .expect("escaped doc text lexes as a string literal")
    }
}

/// A string literal, built from its escaped form: `Literal::string` escapes char by char
/// through `escape_debug`, which made up a tenth of the expansion time.
pub(crate) fn string(text: &str) -> Literal {
    let mut repr = String::with_capacity(text.len() + 8);
    repr.push('"');
    escape_into(&mut repr, text);
    repr.push('"');
    repr.parse().unwrap_or_else(|_| Literal::string(text))
}

/// The bytes that start a character to escape: `"`, `\`, the ASCII controls, and 0xC2,
/// the lead byte of the C1 controls (U+0080–U+009F), a candidate looked at as a char.
static ESCAPES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b == b'"' as usize || b == b'\\' as usize || b < 0x20 || b == 0x7f || b == 0xc2;
        b += 1;
    }
    table
};

/// Appends `text` escaped as in a string literal (as `escape_debug` would, for the
/// characters that need it).
fn escape_into(repr: &mut String, text: &str) {
    let mut rest = text;
    // Runs of characters that need no escape are copied at once.
    while let Some(i) = rest.bytes().position(|b| ESCAPES[usize::from(b)]) {
        repr.push_str(&rest[..i]);
        let mut chars = rest[i..].chars();
        match chars.next() {
            Some('"') => repr.push_str("\\\""),
            Some('\\') => repr.push_str("\\\\"),
            Some('\n') => repr.push_str("\\n"),
            Some('\r') => repr.push_str("\\r"),
            Some('\t') => repr.push_str("\\t"),
            Some(c) if c.is_control() => repr.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            Some(c) => repr.push(c),
            None => {}
        }
        rest = chars.as_str();
    }
    repr.push_str(rest);
}

/// `#[doc = lit]`.
pub(crate) fn attr(lit: Literal) -> Frag {
    // Collected at once: one stream, not three pushes onto an empty one.
    Frag::attr(TokenStream2::from_iter([
        TokenTree::Ident(Ident::new("doc", Span::call_site())),
        TokenTree::Punct(Punct::new('=', Spacing::Alone)),
        TokenTree::Literal(lit),
    ]))
}

/// Writes an item's docs: the user's, then `what`, then the operator's facts.
/// The lines of `what` need no escaping.
pub(crate) fn item(plan: &OpPlan<'_>, what: &[&'static str], out: &mut TokenStream2) {
    let mut doc = Doc::with_capacity(what.iter().map(|l| l.len() + 3).sum());
    for (i, l) in what.iter().enumerate() {
        if i > 0 {
            doc.newline();
        }
        doc.raw(l);
    }
    item_with(plan, &attr(doc.finish()), out);
}

/// Writes an item's docs, with `what` as its `#[doc]` attribute.
pub(crate) fn item_with(plan: &OpPlan<'_>, what: &Frag, out: &mut TokenStream2) {
    plan.doc_head.to_tokens(out);
    what.to_tokens(out);
    plan.facts.to_tokens(out);
}

/// The schema, variants and keys, after an empty line.
pub(crate) fn facts(plan: &OpPlan<'_>) -> Literal {
    let mut doc = Doc::with_capacity(plan.namespace.len() + plan.text.len() + 240);
    doc.newline()
        .raw("# Schema")
        .newline()
        .raw("```text")
        .newline()
        .text(plan.namespace)
        .raw("::")
        .text(&plan.text)
        .newline()
        .raw("```")
        .newline();
    if let (true, Some(kernel)) = (plan.inferred, plan.kernel) {
        doc.raw("Inferred from the signature of the kernel `")
            .plain(kernel)
            .raw("`.")
            .newline()
            .newline();
    }
    let variants = match (plan.function, plan.receiver.is_some()) {
        (true, true) => "function, method",
        (false, true) => "method",
        _ => "function",
    };
    doc.raw("Variants: `")
        .raw(variants)
        .raw("`. Kernels in this crate: ");
    match plan.kernel {
        // Declared from a yaml file: kernels attach by name.
        None => {
            doc.raw("none; attach them with `#[native_function(op = ...)]`");
        }
        Some(_) if plan.keys.is_empty() => {
            doc.raw("none (registered by hand)");
        }
        Some(kernel) => {
            for (i, k) in plan.keys.iter().enumerate() {
                if i > 0 {
                    doc.raw(", ");
                }
                doc.code(k);
            }
            doc.raw(" (`").plain(kernel).raw("`)");
        }
    }
    doc.raw(".");
    // The runtime's own decision (`structured::derived_wrapper`), from what this crate knows.
    let at_meta = crate::structured::WrapperFacts {
        kind: plan.schema.kind(),
        key: crate::dispatch::DispatchKey::Meta,
        has_kernel: plan.keys.contains(&crate::dispatch::DispatchKey::Meta),
        has_composite: plan.keys.iter().any(|k| k.is_composite()),
        functional_has_kernel: false,
        returns: plan.schema.returns.len(),
    };
    if crate::structured::derived_wrapper(&at_meta)
        == Some(crate::structured::DerivedWrapper::InPlaceMetaShortCircuit)
    {
        doc.newline().newline().raw(
            "Unless a `Meta` kernel is registered elsewhere, a call on a meta `self` returns it \
             unchanged (the in-place-on-Meta short circuit).",
        );
    }
    doc.finish()
}
