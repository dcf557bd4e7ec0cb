//! Rustdoc for generated items: the user's doc lines, what the item does, then the schema,
//! the variants and the keys with kernels in this crate. The last part is the same on every
//! item of an operator, so it is one literal made once and cloned.

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::quote;

use super::plan::OpPlan;

/// Doc text as one literal: each line after a space, as `///` comments read.
pub(crate) fn literal<S: AsRef<str>>(lines: &[S]) -> Literal {
    let mut text = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let l = l.as_ref();
        if !l.is_empty() {
            text.push(' ');
            text.push_str(l);
        }
    }
    string(&text)
}

/// A string literal, built from its escaped form: `Literal::string` escapes char by char
/// through `escape_debug`, which made up a tenth of the expansion time.
pub(crate) fn string(text: &str) -> Literal {
    let mut repr = String::with_capacity(text.len() + 8);
    repr.push('"');
    let mut rest = text;
    // Runs of characters that need no escape are copied at once. The scan is over bytes:
    // the characters to escape are ASCII or C1 controls (U+0080–U+009F, lead byte 0xC2), so
    // a 0xC2 byte is only a candidate, looked at as a char below.
    while let Some(i) = rest
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < 0x20 || b == 0x7f || b == 0xc2)
    {
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
    repr.push('"');
    repr.parse().unwrap_or_else(|_| Literal::string(text))
}

/// The user's docs, then `what`, then the operator's facts.
pub(crate) fn item<S: AsRef<str>>(plan: &OpPlan<'_>, what: &[S]) -> TokenStream2 {
    let user = &plan.docs;
    let blank = plan.has_docs.then(|| quote!(#[doc = ""]));
    let what = literal(what);
    let facts = &plan.facts;
    quote! {
        #user
        #blank
        #[doc = #what]
        #[doc = #facts]
    }
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
