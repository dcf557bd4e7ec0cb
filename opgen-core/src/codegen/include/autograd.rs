//! `derivatives = "derivatives.yaml"`: the Autograd kernel and backward node of every
//! declared operator an entry of the file serves, as torchgen matches them (the entry's own
//! function; in-place and out variants through their functional operator's entry; `_copy`
//! operators through their view's). Formulas are translated against the file's operators;
//! one that does not translate is an error naming its entry and its place in the file.

use std::collections::HashMap;
use std::path::Path;

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;

use super::Planned;
use super::options::Parsed;
use crate::codegen::derivatives::check::translate_formula;
use crate::codegen::diag::Diagnostics;
use crate::codegen::expand::autograd::expand_autograd;
use crate::codegen::expand::link::{self, Params};
use crate::codegen::expand::{Cx, Origin, ident};
use crate::formula::translate::{ApiIndex, Options, scope_for};
use crate::native::derivatives::{
    DifferentiabilityInfo, MatchKind, load_derivatives, match_functions, node_name,
};
use crate::native::{NativeFunctions, read_yaml_file};
use crate::plan::{AutogradInput, AutogradPlan, TranslatedFormula};
use crate::schema::SchemaKind;

/// One operator's formulas, ready to plan: torchgen's facts for its own schema, its node's
/// name, the formulas in Rust.
pub(super) struct Served {
    info: DifferentiabilityInfo,
    node: String,
    translated: Vec<TranslatedFormula>,
}

/// Reads and loads the file of `derivatives = "..."` against `nfs`; for each function index
/// an entry serves, what its kernel needs (formulas call the operators by the names the
/// macro gives them, `names`). Problems are reported on the literal.
pub(super) fn load(
    manifest_dir: &Path,
    parsed: &Parsed,
    nfs: &NativeFunctions,
    selected: &[usize],
    names: &HashMap<String, (String, String)>,
    tracked: &mut Vec<std::path::PathBuf>,
    diag: &mut Diagnostics,
) -> HashMap<usize, Served> {
    let Some(lit) = &parsed.options.derivatives else {
        return HashMap::new();
    };
    let written = lit.value();
    let path = manifest_dir.join(&written);
    let text = match read_yaml_file(&path) {
        Ok(text) => text,
        Err(e) => {
            diag.push(super::read_error(lit, &written, &e));
            return HashMap::new();
        }
    };
    tracked.push(path);
    let d = match load_derivatives(&written, &text, nfs) {
        Ok(d) => d,
        Err(errors) => {
            for e in errors.iter().take(crate::schema::MAX_ERRORS) {
                diag.at(lit, e.render().trim_end());
            }
            return HashMap::new();
        }
    };
    let api = ApiIndex::with_names(nfs, names);
    let (rt, tensor) = (&parsed.rt, &parsed.tensor);
    let options = Options {
        runtime: quote!(#rt).to_string(),
        api_path: String::new(),
        tensor: quote!(#tensor).to_string(),
    };
    let mut out = HashMap::new();
    for m in match_functions(&d, nfs) {
        // A generated functional variant of a mutable operator would reuse formulas written
        // for the mutation; torchgen's kernels for those come from functionalization.
        if !selected.contains(&m.function) || m.kind == MatchKind::Mutable {
            continue;
        }
        let Some(info) = m.entry.default_info() else {
            continue;
        };
        let f = &nfs.functions()[m.function];
        let info = DifferentiabilityInfo {
            func: f.func.clone(),
            ..info.clone()
        };
        let node = node_name(&info, m.kind).unwrap_or_default();
        let translated = if f.func.kind() == SchemaKind::Out {
            Vec::new()
        } else {
            translate_all(&info, &options, &api, &written, lit, diag)
        };
        out.insert(
            m.function,
            Served {
                info,
                node,
                translated,
            },
        );
    }
    out
}

/// Every backward formula of `info` in Rust; each that does not translate is reported.
fn translate_all(
    info: &DifferentiabilityInfo,
    options: &Options,
    api: &ApiIndex,
    file: &str,
    lit: &syn::LitStr,
    diag: &mut Diagnostics,
) -> Vec<TranslatedFormula> {
    let scope = scope_for(info, false);
    let mut out = Vec::new();
    for d in &info.derivatives {
        match translate_formula(d, &scope, options, api, &d.original_formula) {
            Ok(t) => out.push(t),
            Err(messages) => {
                for m in messages {
                    diag.at(
                        lit,
                        format!(
                            "{file}:{}:{}: `{}`: {m}\nhelp: or leave the operator out (`skip = \"{}\"`)",
                            d.position.line,
                            d.position.column,
                            info.func.name,
                            info.func.name.name,
                        ),
                    );
                }
            }
        }
    }
    out
}

/// The kernel and node of a planned operator served by an entry: its own hidden block and
/// link entry (node names repeat across an operator's variants).
pub(super) fn expand_served(
    parsed: &Parsed,
    p: &Planned,
    served: &Served,
    lit: &syn::LitStr,
) -> TokenStream2 {
    let Ok(api) = &p.plan.api else {
        return TokenStream2::new();
    };
    let vis: syn::Visibility = syn::parse_quote!(pub);
    let cx = Cx {
        rt: &parsed.rt,
        tensor: &parsed.tensor,
        vis: &vis,
        docs: Vec::new(),
        origin: Origin::Yaml { note: None },
        methods_span: Span::call_site(),
    };
    let autograd = AutogradPlan::new(&AutogradInput {
        info: &served.info,
        node: served.node.clone(),
        formulas: &served.translated,
    });
    let spans = vec![lit.span(); autograd.steps.len()];
    let params = Params::avoiding(&Default::default());
    let marker = ident(&api.marker);
    let e = expand_autograd(&p.plan, &marker, &autograd, &spans, &params, &cx);
    let name = syn::Ident::new("__OPGEN_AUTOGRAD_LINK", Span::call_site());
    link::group(
        &parsed.rt,
        &name,
        None,
        TokenStream2::new(),
        &[e.entry],
        e.items,
    )
}
