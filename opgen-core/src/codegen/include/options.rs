//! Parsing `include_native_functions!("path", key = "value", ...)`: the path literal first,
//! then the options (darling, so an unknown key is an error with "did you mean").

use darling::FromMeta;
use darling::ast::NestedMeta;
use syn::LitStr;

use crate::codegen::attribute::{Methods, parse_methods};
use crate::codegen::diag::Diagnostics;

/// The `key = "value"` options of `include_native_functions!`.
#[derive(Debug, Default, FromMeta)]
pub struct IncludeOptions {
    /// The tensor type (`T` of the type mapping). Required.
    pub tensor: Option<LitStr>,
    /// The runtime path (default `::opgen`).
    #[darling(rename = "crate")]
    pub krate: Option<LitStr>,
    /// `"inherent"` (default) or `"trait NAME"`: one extension trait for every method.
    pub methods: Option<LitStr>,
    /// Name patterns of the operators to declare, comma-separated (default: all).
    pub include: Option<LitStr>,
    /// Name patterns of operators to leave out, comma-separated.
    pub skip: Option<LitStr>,
    /// Only operators with one of these tags, comma-separated.
    pub tags: Option<LitStr>,
    /// Only operators of these namespaces, comma-separated.
    pub namespace: Option<LitStr>,
    /// The `tags.yaml` file (default: `tags.yaml` beside the yaml file, else PyTorch's tags).
    pub tags_yaml: Option<LitStr>,
    /// Name patterns of the operators without a Rust API (nested lists or optionals, more
    /// arguments or returns than typed calls take, ...) that are registered only, callable
    /// by name; any other such operator is an error.
    pub registered_only: Option<LitStr>,
    /// A `derivatives.yaml` (relative to the crate's directory): every declared operator an
    /// entry serves gets its Autograd kernel and backward node.
    pub derivatives: Option<LitStr>,
}

/// The macro's input, parsed.
pub(crate) struct Parsed {
    /// The yaml path as written.
    pub path: LitStr,
    pub options: IncludeOptions,
    pub tensor: syn::Type,
    pub rt: syn::Path,
    pub methods: Methods,
}

const PATH_FIRST: &str = "expected the path of a `native_functions.yaml` first, relative to the \
     crate's directory: `include_native_functions!(\"native_functions.yaml\", tensor = \"MyTensor\")`";

/// Parses the macro's input, reporting every problem found.
pub(crate) fn parse(input: proc_macro2::TokenStream) -> syn::Result<Parsed> {
    let metas = NestedMeta::parse_meta_list(input)?;
    let (path, rest) = match metas.split_first() {
        Some((NestedMeta::Lit(syn::Lit::Str(lit)), rest)) => (lit.clone(), rest),
        Some((NestedMeta::Lit(other), _)) => {
            return Err(syn::Error::new_spanned(other, PATH_FIRST));
        }
        Some((other, _)) => return Err(syn::Error::new_spanned(other, PATH_FIRST)),
        None => return Err(syn::Error::new(proc_macro2::Span::call_site(), PATH_FIRST)),
    };
    let mut diag = Diagnostics::default();
    for meta in rest {
        if let NestedMeta::Lit(lit) = meta {
            diag.at(
                lit,
                "unexpected literal; only the path comes without a key, and it comes first",
            );
        }
    }
    let metas: Vec<NestedMeta> = rest
        .iter()
        .filter(|m| matches!(m, NestedMeta::Meta(_)))
        .cloned()
        .collect();
    let options = match IncludeOptions::from_list(&metas) {
        Ok(options) => options,
        Err(err) => {
            diag.push(err.into());
            return diag.finish(()).and(Err(crate::codegen::diag::internal(
                "darling failed without an error",
            )));
        }
    };
    let tensor = match &options.tensor {
        Some(lit) => match lit.parse::<syn::Type>() {
            // `LitStr::parse` spans the type on the literal, where errors about it go.
            Ok(ty) => Some(ty),
            Err(_) => {
                diag.at(
                    lit,
                    format!(
                        "`tensor` must be a type such as `MyTensor`, not `{}`",
                        lit.value()
                    ),
                );
                None
            }
        },
        None => {
            diag.at(
                &path,
                "missing `tensor = \"...\"`: the tensor type of the generated functions, \
                 e.g. `tensor = \"MyTensor\"`",
            );
            None
        }
    };
    let rt = crate::codegen::paths::runtime_path_or_report(options.krate.as_ref(), &mut diag);
    let methods = options
        .methods
        .as_ref()
        .map_or(Methods::Inherent, |lit| parse_methods(lit, &mut diag));
    let tensor = diag.finish(tensor)?;
    let Some(tensor) = tensor else {
        return Err(crate::codegen::diag::internal("no tensor type"));
    };
    Ok(Parsed {
        path,
        options,
        tensor,
        rt,
        methods,
    })
}
