//! Rustdoc for generated items: the user's doc lines, what the item does, then the schema,
//! the variants and the keys with kernels in this crate. The last part is the same on every
//! item of an operator, so it is one `#[doc]` attribute made once and shared (its bracket
//! group is reference counted), as are the user's doc attributes.

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt};

use super::frag::{Frag, ident, punct};
use super::plan::OpPlan;

/// Doc text as one literal: each line after a space, as `///` comments read.
pub(crate) fn literal<S: AsRef<str>>(lines: &[S]) -> Literal {
    let len: usize = lines.iter().map(|l| l.as_ref().len() + 3).sum();
    let mut repr = String::with_capacity(len + 8);
    repr.push('"');
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            repr.push_str("\\n");
        }
        let l = l.as_ref();
        if !l.is_empty() {
            repr.push(' ');
            escape_into(&mut repr, l);
        }
    }
    repr.push('"');
    repr.parse().unwrap_or_else(|_| {
        let text: Vec<String> = lines
            .iter()
            .map(|l| match l.as_ref() {
                "" => String::new(),
                l => format!(" {l}"),
            })
            .collect();
        Literal::string(&text.join("\n"))
    })
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
    let mut content = TokenStream2::new();
    ident(&mut content, "doc");
    punct(&mut content, '=');
    content.append(lit);
    Frag::attr(content)
}

/// Writes an item's docs: the user's, then `what`, then the operator's facts.
pub(crate) fn item<S: AsRef<str>>(plan: &OpPlan<'_>, what: &[S], out: &mut TokenStream2) {
    item_with(plan, &attr(literal(what)), out);
}

/// Writes an item's docs, with `what` as its `#[doc]` attribute.
pub(crate) fn item_with(plan: &OpPlan<'_>, what: &Frag, out: &mut TokenStream2) {
    plan.doc_head.to_tokens(out);
    what.to_tokens(out);
    plan.facts.to_tokens(out);
}

/// The schema, variants and keys, after an empty line.
pub(crate) fn facts(plan: &OpPlan<'_>) -> Literal {
    let mut v = vec![
        String::new(),
        "# Schema".to_string(),
        "```text".to_string(),
        format!("{}::{}", plan.namespace, plan.text),
        "```".to_string(),
    ];
    if let (true, Some(kernel)) = (plan.inferred, plan.kernel) {
        v.push(format!(
            "Inferred from the signature of the kernel `{kernel}`."
        ));
        v.push(String::new());
    }
    let variants = match (plan.function, plan.receiver.is_some()) {
        (true, true) => "function, method",
        (false, true) => "method",
        _ => "function",
    };
    let keys: Vec<String> = plan.keys.iter().map(|k| format!("`{k}`")).collect();
    let kernels = match plan.kernel {
        // Declared from a yaml file: kernels attach by name.
        None => "none; attach them with `#[native_function(op = ...)]`".to_string(),
        Some(_) if keys.is_empty() => "none (registered by hand)".to_string(),
        Some(kernel) => format!("{} (`{kernel}`)", keys.join(", ")),
    };
    v.push(format!(
        "Variants: `{variants}`. Kernels in this crate: {kernels}."
    ));
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
        v.push(String::new());
        v.push(
            "Unless a `Meta` kernel is registered elsewhere, a call on a meta `self` returns it \
             unchanged (the in-place-on-Meta short circuit)."
                .to_string(),
        );
    }
    literal(&v)
}

/// What the plain forms do on error.
pub(crate) fn panics(try_name: &str) -> [String; 3] {
    [
        String::new(),
        "# Panics".to_string(),
        format!("On error, with its message; [`{try_name}`] returns the error instead."),
    ]
}
