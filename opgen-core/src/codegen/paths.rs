//! The path generated code uses for the runtime.

use syn::LitStr;

/// `::opgen` (the facade users depend on), or the `crate = "some::path"` override for
/// frameworks that re-export opgen (`crate = "crate"` inside opgen-core itself). A typo in
/// the override is reported on its literal.
pub(crate) fn runtime_path(custom: Option<&LitStr>) -> syn::Result<syn::Path> {
    custom.map_or_else(|| Ok(syn::parse_quote!(::opgen)), LitStr::parse)
}
