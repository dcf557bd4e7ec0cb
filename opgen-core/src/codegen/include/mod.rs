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
//! A function whose schema has no Rust mapping (`validate::check_rust_mapping`, R84–R89,
//! or a default without a Rust value), or more arguments than typed calls take
//! (`dispatch::MAX_ARITY`, 24; three generated out variants of the corpus have 25–30),
//! gets only its registration: it is callable by name with dynamic values, and has no
//! typed API.

mod names;
mod options;
mod select;

use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Group, TokenStream as TokenStream2};
use quote::quote;

use super::args::Methods;
use super::diag::Diagnostics;
use super::expand::frag::Frag;
use super::expand::free_fn::{self, Scope};
use super::expand::register::{Entry, expand_entry};
use super::expand::{OpPlan, PlanSource, docs, redispatch};
use super::kernel::Output;
use crate::native::{LoadError, NativeFunction, NativeFunctions, Tags, read_yaml_file};
use crate::plan::rust_fn_name;
use crate::schema::{more_errors, shown_errors};
use crate::validate::check_rust_mapping;

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
/// assert!(out.contains("pub fn relu (self_ : & MyTensor ,) -> MyTensor"));
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
    diag.finish(())?;
    let mut out = TokenStream2::new();
    // The build re-runs when a file changes: rustc records included files as dependencies.
    for path in tracked {
        let path = path.to_string_lossy();
        out.extend(quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        ));
    }
    out.extend(expand_functions(&parsed, &nfs, &selected));
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

/// One selected function, prepared for planning.
struct Prepared<'a> {
    function: &'a NativeFunction,
    /// Per argument, the default as a Rust expression (as the attribute's check stage makes
    /// them).
    defaults: Vec<Option<TokenStream2>>,
    /// The schema maps onto the Rust API.
    typed: bool,
    /// The names, when the usual ones clash (see `names.rs`).
    names: Option<(String, String)>,
    /// Says why the names differ from the usual ones.
    note: Option<syn::Attribute>,
    /// The schema as printed, without namespace.
    text: String,
}

fn prepare<'a>(f: &'a NativeFunction, rt: &syn::Path) -> Prepared<'a> {
    let mut typed = check_rust_mapping(&f.func, f.variants.method).is_empty()
        && f.func.arguments.len() <= crate::dispatch::MAX_ARITY;
    if f.variants.method
        && let Some(s) = f.func.self_arg()
        && !s.ty.is_plain_tensor()
    {
        typed = false;
    }
    let mut defaults = Vec::with_capacity(f.func.arguments.len());
    for a in &f.func.arguments {
        let expr = match &a.default {
            Some(d) if !f.cpp_no_default_args.contains(a.name.as_str()) => {
                let expr = super::defaults::default_expr(&a.ty, &d.value, rt);
                typed &= expr.is_some();
                expr
            }
            _ => None,
        };
        defaults.push(expr);
    }
    Prepared {
        function: f,
        defaults,
        typed,
        names: None,
        note: None,
        text: f.func.to_string(),
    }
}

impl Prepared<'_> {
    /// Whether the function gets an arguments struct (as `OpPlan` decides: a default kept
    /// before the out arguments, and a function or method variant).
    fn has_args_struct(&self) -> bool {
        let f = self.function;
        let out_start = f.func.out_start();
        self.typed
            && (f.variants.function || f.variants.method)
            && self.defaults[..out_start.min(self.defaults.len())]
                .iter()
                .any(Option::is_some)
    }
}

/// How many renamed candidates an operator may try before its names are kept as they are.
const MAX_RENAMES: usize = 64;

/// What every plan shares.
struct Shared<'a> {
    parsed: &'a options::Parsed,
    vis: syn::Visibility,
    output: Output,
}

impl Shared<'_> {
    fn plan<'p>(&'p self, p: &'p Prepared<'p>) -> OpPlan<'p> {
        OpPlan::from_source(PlanSource {
            rt: &self.parsed.rt,
            vis: &self.vis,
            kernel: None,
            function: p.function,
            text: &p.text,
            namespace: &p.function.namespace,
            tensor: &self.parsed.tensor,
            output: &self.output,
            defaults: &p.defaults,
            name: p.names.as_ref().map(|(n, _)| n.clone()),
            args_struct: p.names.as_ref().map(|(_, s)| s.clone()),
            keys: Vec::new(),
            docs: p.note.iter().collect(),
            inferred: false,
        })
    }
}

fn expand_functions(
    parsed: &options::Parsed,
    nfs: &NativeFunctions,
    selected: &[usize],
) -> TokenStream2 {
    let shared = Shared {
        parsed,
        vis: syn::parse_quote!(pub),
        output: Output::Value,
    };
    let functions = nfs.functions();
    let mut prepared: Vec<Prepared<'_>> = selected
        .iter()
        .map(|&i| prepare(&functions[i], &parsed.rt))
        .collect();
    // Unique names (names.rs): underscored functions leave the usual struct names to the
    // others, then clashes are resolved in file order.
    let public_structs: std::collections::HashSet<String> = (prepared.iter())
        .filter(|p| p.has_args_struct() && !rust_fn_name(&p.function.func).starts_with('_'))
        .map(|p| crate::plan::args_struct_name(&p.function.func))
        .collect();
    let mut taken = names::Taken::default();
    for p in prepared.iter_mut().filter(|p| p.typed) {
        let schema = &p.function.func;
        let usual = rust_fn_name(schema);
        let usual = usual.trim_start_matches("r#").to_string();
        let first = (usual.starts_with('_')
            && p.has_args_struct()
            && public_structs.contains(&crate::plan::args_struct_name(schema)))
        .then(|| {
            (
                usual.clone(),
                crate::plan::args_struct_name_for(schema, &usual),
            )
        });
        // Bounded, so that a name rule that never frees a name cannot hang the build: the
        // last candidate is then kept and rustc reports the clash.
        for level in 0..=MAX_RENAMES {
            p.names = match level {
                0 => first.clone(),
                _ => Some(names::candidate(schema, level)),
            };
            let claims = names::claims(&shared.plan(p));
            if taken.is_free(&claims) || level == MAX_RENAMES {
                taken.take(claims);
                break;
            }
        }
        if let Some((name, args)) = &p.names {
            let text = if *name == usual {
                format!(
                    " The arguments struct is `{args}`: `{}` is another operator's.",
                    crate::plan::args_struct_name(schema)
                )
            } else {
                format!(
                    " Named `{name}`, not `{usual}`: another operator of the file has that name."
                )
            };
            p.note = Some(syn::parse_quote!(#[doc = #text]));
        }
    }
    let mut out = TokenStream2::new();
    let mut methods = TokenStream2::new();
    let mut trait_decls = TokenStream2::new();
    for p in &prepared {
        if !p.typed {
            def_only(parsed, p.function, &mut out);
            continue;
        }
        let plan = shared.plan(p);
        free_fn::expand_args_struct(&plan, &mut out);
        if plan.function {
            free_fn::expand_free_fns(&plan, &mut out);
        }
        if plan.receiver.is_some() {
            match &parsed.methods {
                Methods::Inherent => {
                    free_fn::expand_forms(&plan, Scope::Inherent, &mut methods, None)
                }
                Methods::Trait(name) => free_fn::expand_forms(
                    &plan,
                    Scope::Trait(name),
                    &mut methods,
                    Some(&mut trait_decls),
                ),
            }
        }
        redispatch::expand_redispatch(&plan, &mut out);
        redispatch::expand_handle(&plan, &mut out);
        registration(&plan, &mut out);
    }
    let tensor = &parsed.tensor;
    let methods = Group::new(Delimiter::Brace, methods);
    match &parsed.methods {
        Methods::Inherent => out.extend(quote!(impl #tensor #methods)),
        Methods::Trait(name) => {
            let doc = docs::literal(&[format!(
                "The method variants of the operators of `{}`, for a tensor type defined in \
                 another crate.",
                parsed.path.value()
            )]);
            let decls = Group::new(Delimiter::Brace, trait_decls);
            out.extend(quote! {
                #[doc = #doc]
                pub trait #name #decls
                #[automatically_derived]
                impl #name for #tensor #methods
            });
        }
    }
    out
}

/// The registration of an operator with a typed API: its `def`, without kernel.
fn registration(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    let entry = Entry {
        rt: &plan.rt,
        kernel: None,
        namespace: plan.namespace,
        schema: Some(&plan.text),
        name: &plan.full_name,
        keys: &[],
        tensor_hint: None,
        variants: Some(plan.variants),
        device: Some((plan.device_check, plan.device_guard)),
        backend_select: super::expand::backend_select::expand_backend_select(plan),
        device_kernel: None,
        device_register: None,
    };
    expand_entry(entry, None, None, out);
}

/// The registration of an operator without Rust mapping: callable by name only.
fn def_only(parsed: &options::Parsed, f: &NativeFunction, out: &mut TokenStream2) {
    let text = f.func.to_string();
    let name = f.func.name.full_name();
    let rt = Frag::new(quote::ToTokens::to_token_stream(&parsed.rt));
    let entry = Entry {
        rt: &rt,
        kernel: None,
        namespace: &f.namespace,
        schema: Some(&text),
        name: &name,
        keys: &[],
        tensor_hint: None,
        variants: Some(f.variants),
        device: Some((
            f.device_check == crate::native::DeviceCheck::ExactSame,
            f.device_guard,
        )),
        backend_select: None,
        device_kernel: None,
        device_register: None,
    };
    expand_entry(entry, None, None, out);
}

#[cfg(test)]
mod tests;
