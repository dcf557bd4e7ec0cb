//! The path generated code uses for the runtime.

use syn::LitStr;

/// `::opgen` (the facade users depend on), or the `crate = "some::path"` override for
/// frameworks that re-export opgen (`crate = "crate"` inside opgen-core itself). A typo in
/// the override is reported on its literal.
pub(crate) fn runtime_path(custom: Option<&LitStr>) -> syn::Result<syn::Path> {
    custom.map_or_else(|| Ok(syn::parse_quote!(::opgen)), LitStr::parse)
}

/// [`runtime_path`], reporting a malformed override on its literal and going on with
/// `::opgen` so that later stages still run.
pub(crate) fn runtime_path_or_report(
    custom: Option<&LitStr>,
    diag: &mut super::diag::Diagnostics,
) -> syn::Path {
    match runtime_path(custom) {
        Ok(rt) => rt,
        Err(_) => {
            if let Some(lit) = custom {
                diag.at(
                    lit,
                    format!(
                        "`crate` must be a path such as `::my_framework::opgen`, not `{}`",
                        lit.value()
                    ),
                );
            }
            syn::parse_quote!(::opgen)
        }
    }
}
