//! Rustdoc of generated items. The schema and the operator's facts appear once, on its main
//! item (the plain free function, else the plain method); every other form says in one line
//! what it is and links to it.

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use super::{Cx, Origin};
use crate::plan::{Api, Form, OpPlan};

/// `#[doc = " line"]` per line, as `///` comments write them.
pub(crate) fn lines<S: AsRef<str>>(lines: &[S]) -> TokenStream2 {
    let texts = lines.iter().map(|l| line(l.as_ref()));
    quote!(#(#[doc = #texts])*)
}

/// The text of `#[doc = ..]` for one line, as a `///` comment writes it (after a space).
pub(crate) fn line(text: &str) -> String {
    match text {
        "" => String::new(),
        l => format!(" {l}"),
    }
}

/// The main item's docs: the user's doc lines, the schema, and the facts.
pub(crate) fn main(plan: &OpPlan, api: &Api, cx: &Cx<'_>) -> TokenStream2 {
    let user = &cx.docs;
    let mut text = Vec::new();
    if !user.is_empty() {
        text.push(String::new());
    }
    // The schema and the facts, one paragraph in one line.
    let mut facts = vec![format!("`{}`", plan.qualified_schema())];
    let fallible = api
        .functions
        .iter()
        .chain(&api.methods)
        .find(|f| f.fallible);
    if let Some(f) = fallible {
        facts.push(format!("Panics on error; [`{}`] returns it.", link(f, api)));
    }
    if let Some(s) = &api.args_struct {
        facts.push(format!("Defaults in [`{}`].", s.name));
    }
    facts.push(origin(plan, cx));
    text.push(facts.join(" "));
    let text = lines(&text);
    quote!(#(#user)* #text)
}

/// Where the operator's kernels come from.
fn origin(plan: &OpPlan, cx: &Cx<'_>) -> String {
    match &cx.origin {
        Origin::Kernel {
            name,
            keys,
            inferred,
        } => {
            let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
            let inferred = if *inferred {
                format!(" (the schema is inferred from `{name}`)")
            } else {
                String::new()
            };
            match keys.as_slice() {
                [] => format!("Kernels are registered by hand{inferred}."),
                keys => format!("Kernel `{name}` at {}{inferred}.", keys.join(", ")),
            }
        }
        Origin::Structured { meta } => format!(
            "Structured: meta function `{meta}`; kernels at `Meta` and at the keys of the \
             impls (`op = \"{}\", structured`).",
            plan.full_name
        ),
        Origin::Delegate { out } => format!(
            "Structured delegate of `{out}`: kernels wherever it has an impl, and at `Meta`."
        ),
        Origin::Yaml { note } => format!(
            "Kernels attach with `op = \"{}::{}\"`.{}",
            plan.namespace,
            plan.full_name,
            note.as_deref().unwrap_or("")
        ),
    }
}

/// How another form links to `f`: a free function by name, a method as `Self::name`.
fn link(f: &Form, _api: &Api) -> String {
    let name = f.name.trim_start_matches("r#");
    match f.receiver {
        Some(_) => format!("Self::{name}"),
        None => name.to_string(),
    }
}

/// The one-line docs of a form other than the main one.
pub(crate) fn form(f: &Form, main: &Form, api: &Api) -> TokenStream2 {
    let main = link(main, api);
    let line = match (f.fallible, f.with) {
        (false, false) => format!("[`{main}`] as a method."),
        (false, true) => format!(
            "[`{main}`] with the defaulted arguments given in [`{}`].",
            api.args_struct.as_ref().map_or("", |s| s.name.as_str())
        ),
        (true, false) => format!("[`{main}`], returning errors instead of panicking."),
        (true, true) => format!(
            "[`{main}`] with the defaulted arguments given, returning errors instead of \
             panicking."
        ),
    };
    lines(&[line])
}
