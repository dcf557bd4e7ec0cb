//! `include_native_functions!("native_functions.yaml", tensor = "MyTensor", ...)`: every
//! operator of a yaml file declared in one macro call, each expanded as
//! `#[native_function]` expands the same entry without a kernel.
//!
//! Stages (STYLE.md §1): parse (`options.rs`), load (the file through `native`, whose
//! errors carry `FILE:LINE:COL` and rule ids), select (`select.rs`), plan (an
//! [`OpPlan`] per function, from the [`NativeFunction`] instead of an attribute, with
//! unique names, `names.rs`), expand (the shared `expand` functions). Every problem of a
//! stage is reported, one `compile_error!` each, on the path literal.
//!
//! Per function: the arguments struct, the free functions (when `variants` has
//! `function`), the redispatch functions, the cached typed handle, and a registration
//! that `def`s the schema without kernel (so the operator is callable by name, and a call
//! fails with the dispatcher's missing-kernel error until a kernel attaches with
//! `#[native_function(op = "...", dispatch = "...")]`). Methods are gathered into one
//! inherent `impl` of the tensor type (or one extension trait, `methods = "trait NAME"`),
//! rather than one per operator.
//!
//! With `derivatives = "derivatives.yaml"`, every declared operator an entry of that file
//! serves also gets its Autograd kernel and backward node (`autograd.rs`).
//!
//! A function whose schema has no Rust mapping (`validate::check_rust_mapping`, R84–R89,
//! or a default without a Rust value), or more arguments than typed calls take
//! (`dispatch::MAX_ARITY`, 24; three generated out variants of the corpus have 25–30),
//! gets only its registration: it is callable by name with dynamic values, and has no
//! typed API.

mod autograd;
mod names;
mod options;
mod select;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream as TokenStream2;
use quote::{ToTokens, quote};

use super::attribute::Methods;
use super::diag::Diagnostics;
use super::expand::{Cx, Origin, api, docs, group_name, idents_into, link, table_name};
use crate::native::{LoadError, NativeFunction, NativeFunctions, Tags, read_yaml_file};
use crate::plan::{
    MethodsKind, OpPlan, PlanInput, args_struct_name, args_struct_name_for, rename_candidate,
};
use crate::schema::{more_errors, shown_errors};

pub use options::IncludeOptions;

/// Expands `include_native_functions!(input)` for the crate being compiled: the path is
/// relative to `CARGO_MANIFEST_DIR`. Never panics: every problem is a compile error.
pub fn include_native_functions(input: TokenStream2) -> TokenStream2 {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
    include_native_functions_in(&dir, input)
}

/// [`include_native_functions`] with the directory the path is relative to.
///
/// ```
/// use quote::quote;
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
/// let out = opgen_core::codegen::include_native_functions_in(
///     std::path::Path::new(dir),
///     quote!("native_functions.yaml", tensor = "MyTensor", include = "relu"),
/// )
/// .to_string();
/// assert!(out.contains("pub fn relu (self_ : & MyTensor) -> MyTensor"));
/// assert!(out.contains("impl MyTensor { # [doc"));
/// assert!(out.contains("pub fn relu (& self ,) -> MyTensor"));
/// // Errors name the file, line, column and rule.
/// let out = opgen_core::codegen::include_native_functions_in(
///     std::path::Path::new(dir),
///     quote!("native_functions.yaml", tensor = "MyTensor", include = "relux"),
/// )
/// .to_string();
/// assert!(out.contains("`include` pattern `relux` matches no operator"));
/// ```
pub fn include_native_functions_in(manifest_dir: &Path, input: TokenStream2) -> TokenStream2 {
    match run(manifest_dir, input) {
        Ok(tokens) => tokens,
        Err(err) => err.into_compile_error(),
    }
}

fn run(manifest_dir: &Path, input: TokenStream2) -> syn::Result<TokenStream2> {
    let parsed = options::parse(input)?;
    let (nfs, tracked) = load(manifest_dir, &parsed)?;
    let mut diag = Diagnostics::default();
    let selected = select::select(&nfs, &parsed.options, &mut diag);
    let functions: Vec<&NativeFunction> = selected.iter().map(|&i| &nfs.functions()[i]).collect();
    let tensor = super::kernel_fn::last_ident(&parsed.tensor).map(ToString::to_string);
    let planned = plan_all(&parsed.methods, tensor, &functions);
    check_registered_only(&parsed, &planned, &mut diag);
    check_methods_owner(&parsed, &planned, &mut diag);
    check_names(&parsed, &planned, &mut diag);
    let names = api_names(&functions, &planned);
    let mut tracked = tracked;
    let served = autograd::load(
        manifest_dir,
        &parsed,
        &nfs,
        &selected,
        &names,
        &mut tracked,
        &mut diag,
    );
    diag.finish(())?;
    let mut out = TokenStream2::new();
    // The build re-runs when a file changes: rustc records included files as dependencies.
    for path in tracked {
        let path = path.to_string_lossy();
        out.extend(quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        ));
    }
    out.extend(expand_functions(&parsed, &planned));
    if let Some(lit) = &parsed.options.derivatives {
        for (i, p) in selected.iter().zip(&planned) {
            if let Some(s) = served.get(i) {
                out.extend(autograd::expand_served(&parsed, p, s, lit));
            }
        }
    }
    Ok(out)
}

/// Reads and loads the yaml and its tags; returns the absolute paths read.
fn load(
    manifest_dir: &Path,
    parsed: &options::Parsed,
) -> syn::Result<(NativeFunctions, Vec<PathBuf>)> {
    let lit = &parsed.path;
    let written = lit.value();
    let path = manifest_dir.join(&written);
    let text = read_yaml_file(&path).map_err(|e| read_error(lit, &written, &e))?;
    let mut tracked = vec![path.clone()];
    let (tags_name, tags_text) = match &parsed.options.tags_yaml {
        Some(tags_lit) => {
            let tags_written = tags_lit.value();
            let tags_path = manifest_dir.join(&tags_written);
            let text =
                read_yaml_file(&tags_path).map_err(|e| read_error(tags_lit, &tags_written, &e))?;
            tracked.push(tags_path);
            (tags_written, text)
        }
        None => {
            let beside = path.with_file_name("tags.yaml");
            match read_yaml_file(&beside) {
                Ok(text) => {
                    tracked.push(beside);
                    let name = Path::new(&written).with_file_name("tags.yaml");
                    (name.to_string_lossy().into_owned(), text)
                }
                Err(_) => ("<built-in tags>".to_string(), builtin_tags()),
            }
        }
    };
    crate::native::load_native_functions_with_names(&written, &text, &tags_name, &tags_text)
        .map(|nfs| (nfs, tracked))
        .map_err(|errors| load_errors(lit, &errors))
}

/// PyTorch's tags as a `tags.yaml` text.
fn builtin_tags() -> String {
    Tags::pytorch()
        .iter()
        .map(|t| format!("- tag: {t}\n  desc: built in\n"))
        .collect()
}

/// A file that cannot be read (or is refused, `native::read_yaml_file`), on its literal.
fn read_error(lit: &syn::LitStr, written: &str, e: &LoadError) -> syn::Error {
    let at = match e.line {
        0 => String::new(),
        line => format!(":{line}:{}", e.column),
    };
    syn::Error::new(
        lit.span(),
        format!(
            "`{written}`{at}: {}; the path is relative to the crate's directory \
             (`CARGO_MANIFEST_DIR`)",
            e.message
        ),
    )
}

/// One error per load error, each on the path literal, as the loader renders it for a
/// compiler; bounded as every renderer is (`schema::shown_errors`).
fn load_errors(lit: &syn::LitStr, errors: &[LoadError]) -> syn::Error {
    let (shown, more) = shown_errors(errors, |e| (e.file.as_str(), e.line));
    let mut all = shown.into_iter().map(|e| {
        let text = e.render_for_compiler();
        syn::Error::new(lit.span(), text.trim_end())
    });
    let Some(mut first) = all.next() else {
        return super::diag::internal("the yaml failed to load without an error");
    };
    all.for_each(|e| first.combine(e));
    if more > 0 {
        first.combine(syn::Error::new(lit.span(), more_errors(more)));
    }
    first
}

/// How many renamed candidates an operator may try before its names are kept as they are
/// (rustc then reports the clash).
const MAX_RENAMES: usize = 64;

/// The plan of `f` with the names given (default: the usual ones).
fn plan_of(methods: &Methods, f: &NativeFunction, names: Option<&(String, String)>) -> OpPlan {
    OpPlan::new(&PlanInput {
        function: f,
        namespace: &f.namespace,
        name: names.map(|(n, _)| n.clone()),
        args_struct: names.map(|(_, s)| s.clone()),
        methods: match methods {
            Methods::Inherent => MethodsKind::Inherent,
            Methods::Trait(t) => MethodsKind::Trait(t.to_string()),
        },
        reserved: BTreeSet::new(),
    })
}

/// A selected function, planned, with what its docs say about its names.
struct Planned {
    plan: OpPlan,
    note: Option<String>,
}

/// The Rust names (function, arguments struct) `include_native_functions!` gives the
/// operators of `nfs` when it declares them all (inherent methods, on a tensor type named
/// `tensor`), by schema name: the usual ones, or others where they clash (see `names.rs`).
/// What formulas translated against the whole file call
/// ([`ApiIndex::with_names`](crate::formula::translate::ApiIndex::with_names)).
///
/// ```
/// use opgen_core::native::load_native_functions;
/// let natives = load_native_functions("
/// - func: clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
/// - func: clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor
/// ", "").unwrap();
/// let names = opgen_core::codegen::included_names(&natives, "MyTensor");
/// assert_eq!(names["clamp"], ("clamp".to_string(), "ClampArgs".to_string()));
/// assert_eq!(names["clamp.Tensor"], ("clamp_tensor".to_string(), "ClampTensorArgs".to_string()));
/// ```
pub fn included_names(nfs: &NativeFunctions, tensor: &str) -> HashMap<String, (String, String)> {
    let functions: Vec<&NativeFunction> = nfs.functions().iter().collect();
    let planned = plan_all(&Methods::Inherent, Some(tensor.to_string()), &functions);
    api_names(&functions, &planned)
}

/// The planned names of each function with an API (function, arguments struct), by schema
/// name.
fn api_names(
    functions: &[&NativeFunction],
    planned: &[Planned],
) -> HashMap<String, (String, String)> {
    (functions.iter().zip(planned))
        .filter_map(|(f, p)| {
            let api = p.plan.api.as_ref().ok()?;
            let args_struct = (api.args_struct.as_ref())
                .map_or_else(|| args_struct_name(&f.func), |s| s.name.clone());
            Some((f.func.name.full_name(), (api.name.clone(), args_struct)))
        })
        .collect()
}

/// Plans every selected function with unique names (see `names.rs`); `tensor` is the
/// tensor type's name, which no generated type may take.
fn plan_all(
    methods: &Methods,
    tensor: Option<String>,
    functions: &[&NativeFunction],
) -> Vec<Planned> {
    let usual: Vec<OpPlan> = functions
        .iter()
        .map(|f| plan_of(methods, f, None))
        .collect();
    // Structs of public operators: an underscored operator leaves them to those.
    let public_structs: HashSet<String> = (usual.iter())
        .filter_map(|p| p.api.as_ref().ok())
        .filter(|api| !api.name.starts_with('_'))
        .filter_map(|api| api.args_struct.as_ref().map(|s| s.name.clone()))
        .collect();
    let mut taken = names::Taken::with_types(tensor);
    let mut out = Vec::with_capacity(functions.len());
    for (f, plan) in functions.iter().zip(usual) {
        let Ok(api) = &plan.api else {
            out.push(Planned { plan, note: None });
            continue;
        };
        let usual_name = api.name.clone();
        let usual_struct = api.args_struct.as_ref().map(|s| s.name.clone());
        let mut plan = plan;
        // An underscored operator whose struct is a public operator's keeps its underscores.
        if usual_name.starts_with('_')
            && usual_struct
                .as_ref()
                .is_some_and(|s| public_structs.contains(s))
        {
            let names = (
                usual_name.clone(),
                args_struct_name_for(&f.func, &usual_name),
            );
            plan = plan_of(methods, f, Some(&names));
        }
        let mut level = 0;
        while !taken.is_free(&plan.claims()) && level < MAX_RENAMES {
            level += 1;
            plan = plan_of(methods, f, Some(&rename_candidate(&f.func, level)));
        }
        taken.take(plan.claims());
        let note = plan.api.as_ref().ok().and_then(|api| {
            if api.name != usual_name {
                Some(format!(
                    " Named `{}`, not `{usual_name}`: another operator of the file has that name.",
                    api.name
                ))
            } else {
                let s = api.args_struct.as_ref().map(|s| s.name.clone());
                (s != usual_struct).then(|| {
                    format!(
                        " The arguments struct is `{}`: `{}` is another operator's.",
                        s.unwrap_or_default(),
                        usual_struct.unwrap_or_default()
                    )
                })
            }
        });
        out.push(Planned { plan, note });
    }
    out
}

/// Inherent methods (no `methods = "trait NAME"`) on a tensor type the call's file shows is
/// another crate's: one error, at `methods` or `tensor`, with the fix (the attribute's rule,
/// `check::check_include_methods_owner`).
fn check_methods_owner(parsed: &options::Parsed, planned: &[Planned], diag: &mut Diagnostics) {
    let (Methods::Inherent, Some(tensor)) = (&parsed.methods, &parsed.options.tensor) else {
        return;
    };
    let operators: Vec<String> = (planned.iter())
        .filter(|p| p.plan.api.as_ref().is_ok_and(|api| !api.methods.is_empty()))
        .map(|p| p.plan.full_name.clone())
        .collect();
    if !operators.is_empty() {
        super::check::check_include_methods_owner(
            &parsed.path,
            (&parsed.tensor, tensor),
            parsed.options.methods.as_ref(),
            &operators,
            diag,
        );
    }
}

/// Names the expansion defines that an item written beside the call has: one error, at
/// the yaml path (`check::check_include_names`).
fn check_names(parsed: &options::Parsed, planned: &[Planned], diag: &mut Diagnostics) {
    let claims: Vec<(String, crate::plan::Claims)> = (planned.iter())
        .map(|p| {
            (
                format!("{}::{}", p.plan.namespace, p.plan.full_name),
                p.plan.claims(),
            )
        })
        .collect();
    let methods_trait = match &parsed.methods {
        Methods::Trait(t) => Some(t.to_string()),
        Methods::Inherent => None,
    };
    super::check::check_include_names(&parsed.path, &claims, methods_trait.as_deref(), diag);
}

/// Every function without a Rust API must be listed in `registered_only`: one error naming
/// each that is not, and one for each pattern that lists no such function.
fn check_registered_only(parsed: &options::Parsed, planned: &[Planned], diag: &mut Diagnostics) {
    let listed = select::patterns(parsed.options.registered_only.as_ref());
    let mut used = vec![false; listed.len()];
    let mut unlisted = Vec::new();
    for p in planned {
        let Err(blockers) = &p.plan.api else { continue };
        let mut any = false;
        for (i, pattern) in listed.iter().enumerate() {
            if select::matches(&pattern.0, &p.plan.schema.name) {
                used[i] = true;
                any = true;
            }
        }
        if !any {
            let why: Vec<String> = blockers
                .iter()
                .map(|b| b.describe(&p.plan.schema))
                .collect();
            unlisted.push(format!(
                "`{}::{}` ({})",
                p.plan.namespace,
                p.plan.full_name,
                why.join("; ")
            ));
        }
    }
    const SHOWN: usize = 20;
    if !unlisted.is_empty() {
        let more = unlisted.len().saturating_sub(SHOWN);
        let mut list = unlisted[..unlisted.len().min(SHOWN)].join(", ");
        if more > 0 {
            list.push_str(&format!(", and {more} more"));
        }
        diag.at(
            &parsed.path,
            format!(
                "{} operator{} of the file {} no Rust API: {list}; list {} in \
                 `registered_only = \"name.overload, ...\"` to register {} callable by name only \
                 (`Dispatcher::find(..)?.call_boxed(..)`), or `skip` {}",
                unlisted.len(),
                if unlisted.len() == 1 { "" } else { "s" },
                if unlisted.len() == 1 { "has" } else { "have" },
                if unlisted.len() == 1 { "it" } else { "them" },
                if unlisted.len() == 1 { "it" } else { "them" },
                if unlisted.len() == 1 { "it" } else { "them" },
            ),
        );
    }
    for ((pattern, lit), used) in listed.iter().zip(used) {
        if !used {
            diag.at(
                lit,
                format!(
                    "`registered_only` pattern `{pattern}` matches no selected operator without a \
                     Rust API; remove it"
                ),
            );
        }
    }
}

/// The items of every selected function: the API of those with one, their methods gathered
/// in one `impl` (or one trait), and one link group with every `def`.
fn expand_functions(parsed: &options::Parsed, planned: &[Planned]) -> TokenStream2 {
    let vis: syn::Visibility = syn::parse_quote!(pub);
    let rt = &parsed.rt;
    let at = proc_macro2::Span::call_site();
    let mut out = TokenStream2::new();
    let mut methods = TokenStream2::new();
    let mut decls = TokenStream2::new();
    let mut entries = Vec::with_capacity(planned.len());
    // The markers' `impl Operator`, in the hidden block, each naming the expansion's table
    // and its `def`'s place in the link group.
    let mut operators = TokenStream2::new();
    // The hidden block refers to the tensor type and the markers: its own items take
    // names that none of them has.
    let mut reserved = BTreeSet::new();
    idents_into(parsed.tensor.to_token_stream(), &mut reserved);
    reserved.extend(
        (planned.iter()).filter_map(|p| p.plan.api.as_ref().ok().map(|api| api.marker.clone())),
    );
    let table = table_name(&reserved);
    let trait_name = match &parsed.methods {
        Methods::Trait(t) => Some(t.clone()),
        Methods::Inherent => None,
    };
    for p in planned {
        let plan = &p.plan;
        let Ok(api) = &plan.api else {
            entries.push(link::def_only(plan, rt, at));
            continue;
        };
        let cx = Cx {
            rt,
            tensor: &parsed.tensor,
            vis: &vis,
            docs: Vec::new(),
            origin: Origin::Yaml {
                note: p.note.clone(),
            },
            methods_span: at,
        };
        out.extend(api::expand_api(plan, api, &cx, false));
        operators.extend(api::expand_operator(plan, api, &cx, &table, entries.len()));
        match &trait_name {
            None => methods.extend(api::inherent_methods(plan, api, &cx)),
            Some(name) => {
                let (d, b) = api::trait_items(plan, api, name, &cx);
                decls.extend(d);
                methods.extend(b);
            }
        }
        entries.push(link::declare(plan, api, rt, at));
    }
    let tensor = &parsed.tensor;
    match &trait_name {
        None if !methods.is_empty() => out.extend(quote!(impl #tensor { #methods })),
        None => {}
        Some(name) => {
            let doc = docs::lines(&[format!(
                "The method variants of the operators of `{}`, for a tensor type defined in \
                 another crate.",
                parsed.path.value()
            )]);
            out.extend(quote! {
                #doc
                pub trait #name { #decls }
                #[automatically_derived]
                impl #name for #tensor { #methods }
            });
        }
    }
    let name = group_name(&reserved);
    out.extend(link::group(
        rt,
        &name,
        Some(&table),
        operators,
        &entries,
        TokenStream2::new(),
    ));
    out
}

#[cfg(test)]
mod tests;
