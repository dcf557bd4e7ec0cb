//! Mistakes that only the kernel's surroundings show: the attribute on a function inside an
//! `impl` or `trait` block, two attributes declaring one operator in one module, two
//! operators declaring one methods trait. rustc would report each as errors inside the
//! generated code (items an `impl` cannot hold, names defined twice); the macro reads the
//! kernel's source file instead (the compiler tells where the kernel is written,
//! `proc_macro::Span::local_file`), finds the
//! kernel and its neighbours there, and reports one error on the user's text with the fix.
//!
//! Each file is read and parsed once per compilation (the facts are cached); a kernel whose
//! file cannot be read or whose place is not in it (code written by another macro, a
//! process without span locations such as a unit test) is not checked here.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

extern crate proc_macro;

use proc_macro2::{Span, TokenTree};

use syn::LitStr;

use crate::codegen::Input;
use crate::codegen::diag::Diagnostics;
use crate::codegen::kernel_fn::KernelFn;

use super::scope::{Origin, Scope, Scopes};

/// One `#[native_function]` kernel of a file.
#[derive(Debug, Clone)]
pub(super) struct Site {
    /// The line of the kernel's name.
    pub(super) line: usize,
    /// The kernel's name.
    pub(super) name: String,
    /// Written as an associated function of an `impl` or `trait` block.
    pub(super) in_impl: bool,
    /// The item list the kernel is in (a module, a block): neighbours share it.
    pub(super) scope: usize,
    /// The operator it declares (`aten::add.Tensor`), unless it attaches to one (`op =`).
    pub(super) declares: Option<String>,
    /// The name its API takes (`add`: the functions, the marker, the arguments struct are
    /// named after it): the `name` option, else the schema's.
    pub(super) api: Option<String>,
    /// The methods trait it declares (`methods = "trait Ops"`).
    pub(super) methods_trait: Option<String>,
    /// Under `#[cfg(..)]`: it may be compiled without its neighbours, so they are not
    /// compared.
    pub(super) conditional: bool,
}

impl Site {
    /// The marker of the operator it declares (`add`), which a kernel attaches to by path.
    fn marker(&self) -> Option<String> {
        self.api.as_deref().map(crate::plan::marker_name)
    }
}

/// One `include_native_functions!` call of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IncludeSite {
    /// The line of its first argument (the yaml path).
    line: usize,
    /// The item list the call is in.
    scope: usize,
}

/// The kernels and `include_native_functions!` calls of a file and the names of its scopes.
pub(super) struct Facts {
    pub(super) sites: Vec<Site>,
    includes: Vec<IncludeSite>,
    pub(super) scopes: Vec<Scope>,
}

/// The facts of a file, as last read.
struct FileFacts {
    modified: Option<SystemTime>,
    len: u64,
    facts: Arc<Facts>,
}

static FILES: Mutex<Option<HashMap<PathBuf, FileFacts>>> = Mutex::new(None);

/// The facts of the kernel's file, and the kernel's place among its sites.
pub(super) fn locate(kernel: &KernelFn) -> Option<(Arc<Facts>, usize)> {
    let (path, line) = place_of(kernel.ident().span())?;
    let facts = file_facts(path)?;
    let name = kernel.ident().to_string();
    let me = (facts.sites.iter()).position(|s| s.line == line && s.name == name)?;
    Some((facts, me))
}

/// The facts of the file of an `include_native_functions!` call, placed by its yaml path's
/// literal `path`, and the scope the call is in.
pub(super) fn locate_include(path: &LitStr) -> Option<(Arc<Facts>, usize)> {
    let (file, line) = place_of(path.span())?;
    let facts = file_facts(file)?;
    let scope = facts.includes.iter().find(|i| i.line == line)?.scope;
    Some((facts, scope))
}

/// Reports the mistakes of the attribute `input` that its kernel's surroundings show.
pub(crate) fn check_context(input: &Input, diag: &mut Diagnostics) {
    let kernel = &input.kernel;
    let Some((facts, me)) = locate(kernel) else {
        return;
    };
    let sites = &facts.sites;
    let name = kernel.ident().to_string();
    let Some(me) = sites.get(me) else {
        return;
    };
    if me.in_impl {
        diag.at(
            kernel.ident(),
            format!(
                "`#[native_function]` goes on a free function, but `{name}` is in an `impl` or \
                 `trait` block; move `{name}` out of the block, to the module"
            ),
        );
        return;
    }
    let earlier = || {
        let compared = !me.conditional;
        (sites.iter()).filter(move |s| {
            compared && s.scope == me.scope && !s.in_impl && !s.conditional && s.line < me.line
        })
    };
    if let Some(op) = &me.declares
        && let Some(first) = earlier().find(|s| s.declares.as_ref() == Some(op))
    {
        let marker = first.marker().unwrap_or_else(|| format!("\"{op}\""));
        diag.at(
            at_or(input.lit.as_ref(), kernel),
            format!(
                "`{op}` is declared already in this module, by the attribute of `{}` (line {}); \
                 attach `{name}` to it with `op = {marker}` (its marker: the kernel is checked \
                 against it at compile time) and `dispatch`, instead of the schema",
                first.name, first.line
            ),
        );
    }
    if let (Some(op), Some(api)) = (&me.declares, &me.api)
        && let Some(first) = earlier()
            .find(|s| s.api.as_ref() == Some(api) && s.declares.as_ref().is_some_and(|o| o != op))
    {
        let other = first.declares.as_deref().unwrap_or_default();
        diag.at(
            at_or(input.options.name.as_ref().or(input.lit.as_ref()), kernel),
            format!(
                "`{op}` takes the name `{api}`, which `{other}` of the attribute of `{}` (line \
                 {}) takes already in this module: an operator's functions, marker and \
                 arguments struct are named after it; give one of them another name with \
                 `name = \"...\"`",
                first.name, first.line
            ),
        );
    }
    if let Some(lit) = &input.options.structured_delegate {
        check_delegate(input, lit, me, &facts, diag);
    }
    if let Some(t) = &me.methods_trait
        && let Some(first) = earlier().find(|s| s.methods_trait.as_ref() == Some(t))
    {
        diag.at(
            at_or(input.options.methods.as_ref(), kernel),
            format!(
                "trait `{t}` is declared already in this module, for the methods of `{}`'s \
                 operator (line {}); each `#[native_function]` declares its own trait: name \
                 another one (`methods = \"trait {t}2\"`), or declare the operators together \
                 with `include_native_functions!`, whose methods share one trait",
                first.name, first.line
            ),
        );
    }
}

/// A `structured_delegate` naming no operator declared beside the delegate: a similar one
/// is named as the operator meant; with none, and no import that may bring the operator's
/// marker, the missing operator is named with the two ways to provide it. (A glob import or
/// an item macro may bring the marker: rustc then reports a missing one, at the string.)
fn check_delegate(input: &Input, lit: &LitStr, me: &Site, facts: &Facts, diag: &mut Diagnostics) {
    let namespace = (input.schema.as_ref())
        .and_then(|s| s.name.namespace.as_deref())
        .unwrap_or("aten");
    let wanted = format!("{namespace}::{}", lit.value());
    let beside = || (facts.sites.iter()).filter(|s| s.scope == me.scope && !s.in_impl);
    if beside().any(|s| s.declares.as_ref() == Some(&wanted)) {
        return;
    }
    let names = beside().filter_map(|s| s.declares.as_deref());
    let Some(meant) = crate::schema::suggest::closest(&wanted, names) else {
        let Ok(name) = crate::schema::parse_operator_name(&lit.value()) else {
            return;
        };
        let marker = crate::plan::marker_of(&name);
        // The runtime's modules (`use opgen::prelude::*`) hold no marker of this crate.
        let rt = (input.rt.segments.first()).map(|s| s.ident.to_string());
        let runtime = ["opgen", "opgen_core", rt.as_deref().unwrap_or("opgen")];
        if Scopes(&facts.scopes, &BTreeSet::new()).may_see(me.scope, &marker, &runtime) {
            return;
        }
        diag.at(
            lit,
            format!(
                "`structured_delegate` names `{}`, which is not declared in this module; declare \
                 it here (`#[native_function(\"{}(...) -> Tensor(a!)\", structured)]` on its meta \
                 function) or import its marker (`use path::to::{marker};`)",
                lit.value(),
                lit.value(),
            ),
        );
        return;
    };
    let Some(site) = beside().find(|s| s.declares.as_deref() == Some(meant)) else {
        return;
    };
    let short = meant
        .strip_prefix(&format!("{namespace}::"))
        .unwrap_or(meant);
    diag.at(
        lit,
        format!(
            "`structured_delegate` names `{}`, which is not declared in this module; did you \
             mean `{short}` (declared by the attribute of `{}`, line {})?",
            lit.value(),
            site.name,
            site.line
        ),
    );
}

/// Inherent methods asked for (`variants = "method"` without `methods = "trait NAME"`) on
/// the tensor type `tensor`, which the kernel's file shows is another crate's (imported
/// from it or written with its path): rustc would refuse the generated `impl` (E0116); the
/// error names the fix. A type the file does not place (a glob import, the prelude) is left
/// to rustc, whose error is at the same option.
pub(crate) fn check_methods_owner(input: &Input, tensor: &syn::Type, diag: &mut Diagnostics) {
    let Some((facts, me)) = locate(&input.kernel) else {
        return;
    };
    let Some(me) = facts.sites.get(me) else {
        return;
    };
    let Some(krate) = foreign_crate(&facts, me.scope, tensor) else {
        return;
    };
    let suggested = (input.schema.as_ref())
        .map(crate::plan::args_struct_name)
        .and_then(|n| n.strip_suffix("Args").map(|n| format!("{n}Ext")))
        .unwrap_or_else(|| "OpsExt".to_string());
    let at = (input.options.methods.as_ref()).or(input.options.variants.as_ref());
    diag.at(
        at_or(at, &input.kernel),
        foreign_methods(tensor, &krate, "", &suggested),
    );
}

/// [`check_methods_owner`] for `include_native_functions!`, whose methods (of `operators`,
/// the functions of the file with a method variant) go in one inherent `impl` of `tensor`
/// (the `tensor` option's type) unless `methods = "trait NAME"`: the error is at the
/// `methods` option if written, else at `tensor`. `path` is the yaml path's literal, which
/// places the call in its file.
pub(crate) fn check_include_methods_owner(
    path: &LitStr,
    tensor: (&syn::Type, &LitStr),
    methods: Option<&LitStr>,
    operators: &[String],
    diag: &mut Diagnostics,
) {
    let Some((facts, me)) = locate_include(path) else {
        return;
    };
    let Some(krate) = foreign_crate(&facts, me, tensor.0) else {
        return;
    };
    let name = crate::codegen::kernel_fn::last_ident(tensor.0)
        .map_or_else(|| "Tensor".to_string(), ToString::to_string);
    let mut shown: Vec<String> = operators.iter().take(3).map(|o| format!("`{o}`")).collect();
    if operators.len() > shown.len() {
        shown.push("...".to_string());
    }
    let why = match operators.len() {
        1 => format!(
            " (1 operator of the file has a `method` variant: {})",
            shown.join("")
        ),
        n => format!(
            " ({n} operators of the file have a `method` variant: {})",
            shown.join(", ")
        ),
    };
    diag.at(
        methods.unwrap_or(tensor.1),
        foreign_methods(tensor.0, &krate, &why, &format!("{name}Methods")),
    );
}

/// The crate, other than this one, where the file's text shows `tensor` (written in scope
/// `scope`) is defined; `None` for this crate's types and those the file does not place.
fn foreign_crate(facts: &Facts, scope: usize, tensor: &syn::Type) -> Option<String> {
    let crates = super::scope::dependency_crates();
    match Scopes(&facts.scopes, &crates).type_origin(scope, tensor) {
        Origin::Crate(krate) => Some(krate),
        Origin::Local | Origin::Unknown => None,
    }
}

/// The error for inherent methods on `tensor`, a type of `krate` (`why`: which methods),
/// with the fix: the extension trait `suggested`.
fn foreign_methods(tensor: &syn::Type, krate: &str, why: &str, suggested: &str) -> String {
    let shown = quote::ToTokens::to_token_stream(tensor)
        .to_string()
        .replace(' ', "");
    format!(
        "inherent methods on `{shown}`, a type of the crate `{krate}`, can only be defined in \
         that crate{why}; declare them in an extension trait: add `methods = \"trait \
         {suggested}\"` and import the trait where the methods are called"
    )
}

/// The literal if written, else the kernel's name.
pub(super) fn at_or<'a>(lit: Option<&'a LitStr>, kernel: &'a KernelFn) -> &'a dyn quote::ToTokens {
    match lit {
        Some(lit) => lit,
        None => kernel.ident(),
    }
}

/// The file and line of `at`, from the compiler (none outside a macro's run: unit tests and
/// benchmarks expand in process, with no source file).
fn place_of(at: Span) -> Option<(PathBuf, usize)> {
    if !proc_macro::is_available() {
        return None;
    }
    let at = at.unwrap();
    Some((at.local_file()?, at.line()))
}

/// The facts of the file `path` (cached while the file is unchanged).
fn file_facts(path: PathBuf) -> Option<Arc<Facts>> {
    let meta = std::fs::metadata(&path).ok()?;
    let (modified, len) = (meta.modified().ok(), meta.len());
    let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    let files = files.get_or_insert_with(HashMap::new);
    if let Some(f) = files.get(&path)
        && f.modified == modified
        && f.len == len
    {
        return Some(f.facts.clone());
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let facts = Arc::new(read_facts(&text)?);
    let file = FileFacts {
        modified,
        len,
        facts: facts.clone(),
    };
    files.insert(path, file);
    Some(facts)
}

/// The kernels and scopes of a file's text.
fn read_facts(text: &str) -> Option<Facts> {
    let file = syn::parse_file(text).ok()?;
    let mut reader = Reader::default();
    reader.items(&file.items, false, None);
    let mut sites = reader.sites;
    place(text, &mut sites);
    let mut includes = reader.includes;
    place_includes(text, &mut includes);
    Some(Facts {
        sites,
        includes,
        scopes: reader.scopes,
    })
}

/// Sets each kernel's line: the line of the `fn NAME` that is its in source order. (The
/// tokens of a file parsed inside a compiler's macro carry no place of their own.)
fn place(text: &str, sites: &mut [Site]) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for site in sites.iter_mut() {
        let nth = seen.entry(site.name.as_str()).or_default();
        site.line = fn_lines(text, &site.name).nth(*nth).unwrap_or(0);
        *nth += 1;
    }
}

/// Sets each `include_native_functions!` call's line: the line of its first argument, in
/// source order; none (0) unless the text shows as many calls as the items do (a call
/// inside another macro's input, say), so that no call is taken for another.
fn place_includes(text: &str, includes: &mut [IncludeSite]) {
    let lines: Vec<usize> = macro_argument_lines(text, INCLUDE).collect();
    if lines.len() == includes.len() {
        (includes.iter_mut().zip(lines)).for_each(|(site, line)| site.line = line);
    }
}

/// The name of the macro whose calls [`IncludeSite`]s are.
const INCLUDE: &str = "include_native_functions";

/// The lines (from 1) of the first argument of each call of the macro `name`
/// (`name!(` followed by the argument), in order; not in a line comment.
fn macro_argument_lines<'t>(text: &'t str, name: &'t str) -> impl Iterator<Item = usize> + 't {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).filter_map(move |(at, _)| {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = text[..at].chars().next_back();
        if before.is_some_and(is_ident) || text[line_start..at].contains("//") {
            return None;
        }
        let rest = text[at + name.len()..].trim_start().strip_prefix('!')?;
        let rest = rest.trim_start().strip_prefix(['(', '[', '{'])?;
        let argument = text.len() - rest.trim_start().len();
        Some(text[..argument].matches('\n').count() + 1)
    })
}

/// The lines (from 1) where `fn name` is written, in order.
fn fn_lines<'t>(text: &'t str, name: &'t str) -> impl Iterator<Item = usize> + 't {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.lines().enumerate().flat_map(move |(i, line)| {
        // Not in a line comment.
        let line = line.split("//").next().unwrap_or_default();
        let found = line.match_indices("fn ").filter(move |&(at, _)| {
            let before = line[..at].chars().next_back();
            let rest = line[at + 3..].trim_start();
            before.is_none_or(|c| !is_ident(c))
                && rest
                    .strip_prefix(name)
                    .is_some_and(|after| !after.starts_with(is_ident))
        });
        found.map(move |_| i + 1)
    })
}

/// Walks a file's items, recording the kernels and the names of each scope.
#[derive(Default)]
struct Reader {
    sites: Vec<Site>,
    includes: Vec<IncludeSite>,
    /// By number: a site's `scope`.
    scopes: Vec<Scope>,
}

impl Reader {
    /// A new scope, which sees the names of `parent`'s.
    fn scope(&mut self, parent: Option<usize>) -> usize {
        self.scopes.push(Scope {
            parent,
            ..Scope::default()
        });
        self.scopes.len() - 1
    }

    fn items(&mut self, items: &[syn::Item], in_impl: bool, parent: Option<usize>) {
        let scope = self.scope(parent);
        for item in items {
            if let Some(names) = self.scopes.get_mut(scope) {
                names.record(item);
            }
            match item {
                syn::Item::Fn(f) => {
                    self.kernel(&f.attrs, &f.sig, scope, in_impl);
                    self.block(&f.block, scope);
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.items(items, false, None);
                    }
                }
                syn::Item::Impl(i) => self.impl_items(&i.items, scope),
                syn::Item::Trait(t) => self.trait_items(&t.items, scope),
                syn::Item::Const(c) => self.expr(&c.expr, scope),
                syn::Item::Macro(m) => self.include(&m.mac, scope),
                // `fn relu();`: a structured delegate's bodyless kernel.
                syn::Item::Verbatim(tokens) => {
                    if let Ok((attrs, sig)) = syn::parse::Parser::parse2(bodyless, tokens.clone()) {
                        self.kernel(&attrs, &sig, scope, in_impl);
                    }
                }
                _ => {}
            }
        }
    }

    fn impl_items(&mut self, items: &[syn::ImplItem], outer: usize) {
        let scope = self.scope(Some(outer));
        for item in items {
            if let syn::ImplItem::Fn(f) = item {
                self.kernel(&f.attrs, &f.sig, scope, true);
                self.block(&f.block, outer);
            }
        }
    }

    fn trait_items(&mut self, items: &[syn::TraitItem], outer: usize) {
        let scope = self.scope(Some(outer));
        for item in items {
            if let syn::TraitItem::Fn(f) = item {
                self.kernel(&f.attrs, &f.sig, scope, true);
                if let Some(block) = &f.default {
                    self.block(block, outer);
                }
            }
        }
    }

    /// Items in a block (`fn main() { #[native_function] fn k() {} }`, `const _: () = {}`),
    /// which see the names of `outer`.
    fn block(&mut self, block: &syn::Block, outer: usize) {
        let items: Vec<syn::Item> = (block.stmts.iter())
            .filter_map(|s| match s {
                syn::Stmt::Item(item) => Some(item.clone()),
                // `include_native_functions!(..);` in a block is a statement: as an item.
                syn::Stmt::Macro(m) if is_include(&m.mac) => {
                    Some(syn::Item::Macro(syn::ItemMacro {
                        attrs: m.attrs.clone(),
                        ident: None,
                        mac: m.mac.clone(),
                        semi_token: m.semi_token,
                    }))
                }
                _ => None,
            })
            .collect();
        if !items.is_empty() {
            self.items(&items, false, Some(outer));
        }
    }

    /// Records `mac` if it is an `include_native_functions!` call.
    fn include(&mut self, mac: &syn::Macro, scope: usize) {
        if is_include(mac) {
            self.includes.push(IncludeSite { line: 0, scope });
        }
    }

    fn expr(&mut self, expr: &syn::Expr, outer: usize) {
        if let syn::Expr::Block(b) = expr {
            self.block(&b.block, outer);
        }
    }

    fn kernel(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        scope: usize,
        in_impl: bool,
    ) {
        let Some(attr) = attrs
            .iter()
            .find(|a| (a.path().segments.last()).is_some_and(|s| s.ident == "native_function"))
        else {
            return;
        };
        let args = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => proc_macro2::TokenStream::new(),
        };
        let (schema, methods_trait, name) = declared(args);
        let declares = schema.as_ref().map(|s| {
            let ns = s.name.namespace.as_deref().unwrap_or("aten");
            format!("{ns}::{}", s.name.full_name())
        });
        let api = (schema.as_ref()).map(|s| {
            let api = name.unwrap_or_else(|| crate::plan::rust_fn_name(s));
            api.trim_start_matches("r#").to_string()
        });
        // The marker is an item of the kernel's scope, as is the kernel (a delegate's
        // bodyless `fn` is no item `Scope::record` sees).
        if let Some(names) = self.scopes.get_mut(scope) {
            names
                .defined
                .extend(api.as_deref().map(crate::plan::marker_name));
            names.defined.insert(sig.ident.to_string());
        }
        self.sites.push(Site {
            line: 0,
            name: sig.ident.to_string(),
            in_impl,
            scope,
            declares,
            api,
            methods_trait,
            conditional: attrs.iter().any(|a| a.path().is_ident("cfg")),
        });
    }
}

/// Whether `mac` is an `include_native_functions!` call.
fn is_include(mac: &syn::Macro) -> bool {
    (mac.path.segments.last()).is_some_and(|s| s.ident == INCLUDE)
}

/// A function without a body: attributes, visibility, signature, `;`.
fn bodyless(
    input: syn::parse::ParseStream<'_>,
) -> syn::Result<(Vec<syn::Attribute>, syn::Signature)> {
    let attrs = input.call(syn::Attribute::parse_outer)?;
    let _: syn::Visibility = input.parse()?;
    let sig: syn::Signature = input.parse()?;
    let _: syn::Token![;] = input.parse()?;
    Ok((attrs, sig))
}

/// What an attribute's arguments declare: the operator of its schema literal (none with
/// `op =`, which attaches), the trait of `methods = "trait NAME"`, and the `name` option.
fn declared(
    args: proc_macro2::TokenStream,
) -> (
    Option<crate::schema::Schema>,
    Option<String>,
    Option<String>,
) {
    let tokens: Vec<TokenTree> = args.into_iter().collect();
    let option = |key: &str| {
        tokens.windows(3).find_map(|w| match w {
            [TokenTree::Ident(k), TokenTree::Punct(p), value] if k == key && p.as_char() == '=' => {
                Some(value.clone())
            }
            _ => None,
        })
    };
    let string = |tree: &TokenTree| syn::parse2::<syn::LitStr>(tree.clone().into()).ok();
    let operator = match (tokens.first().and_then(string), option("op")) {
        (Some(lit), None) => crate::schema::parse_schema(&lit.value()).ok(),
        _ => None,
    };
    let methods = (option("methods").as_ref().and_then(string)).and_then(|lit| {
        lit.value()
            .strip_prefix("trait ")
            .map(|t| t.trim().to_string())
    });
    let name = option("name")
        .as_ref()
        .and_then(string)
        .map(|lit| lit.value());
    (operator, methods, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(text: &str) -> Vec<Site> {
        read_facts(text).expect("the sample parses").sites
    }

    /// Every kernel is found with its line, its block, and what its attribute declares.
    #[test]
    fn kernels_are_read_with_their_place_and_declarations() {
        let text = r#"
#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(t: &T) -> T { t.clone() }

struct Ops;
impl Ops {
    #[opgen::native_function("neg(Tensor self) -> Tensor")]
    fn neg_cpu(t: &T) -> T { t.clone() }
}

mod inner {
    // fn relu_cpu in a comment is not a function
    #[native_function(op = "aten::relu", dispatch = "Meta")]
    fn relu_cpu(t: &T) -> T { t.clone() }
}

fn main() {
    #[native_function("ns::abs.x(Tensor self) -> Tensor", variants = "method", methods = "trait Ops")]
    fn abs_cpu(t: &T) -> T { t.clone() }
}

#[native_function("relu_(Tensor(a!) self) -> Tensor(a!)", structured_delegate = "relu.out")]
fn relu_();
"#;
        type Found = (usize, String, bool, Option<String>, Option<String>);
        let found: Vec<Found> = (sites(text))
            .into_iter()
            .map(|s| (s.line, s.name, s.in_impl, s.declares, s.methods_trait))
            .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            found,
            [
                (3, "relu_cpu".into(), false, some("aten::relu"), None),
                (8, "neg_cpu".into(), true, some("aten::neg"), None),
                (14, "relu_cpu".into(), false, None, None),
                (19, "abs_cpu".into(), false, some("ns::abs.x"), some("Ops")),
                (23, "relu_".into(), false, some("aten::relu_"), None),
            ]
        );
        let scopes: Vec<usize> = sites(text).iter().map(|s| s.scope).collect();
        assert!(scopes[0] != scopes[1] && scopes[0] != scopes[2] && scopes[2] != scopes[3]);
    }

    /// `include_native_functions!` calls are found in modules and blocks, each placed at the
    /// line of its first argument, and in its scope, whose imports place the tensor type.
    #[test]
    fn include_calls_are_read_with_their_line_and_scope() {
        let text = r#"
mod aten {
    use other::MyTensor;
    // include_native_functions!("not a call");
    opgen::include_native_functions!(
        "native_functions.yaml",
        tensor = "MyTensor"
    );
}

fn main() {
    include_native_functions! { "x.yaml", tensor = "crate::T" }
}
"#;
        let facts = read_facts(text).expect("the sample parses");
        let lines: Vec<usize> = facts.includes.iter().map(|i| i.line).collect();
        assert_eq!(lines, [6, 12]);
        // The call is an item macro, which may declare anything: `other` is a crate because
        // the package depends on it.
        let crates = BTreeSet::from(["other".to_string()]);
        let scopes = Scopes(&facts.scopes, &crates);
        let tensor: syn::Type = syn::parse_quote!(MyTensor);
        let first = facts.includes[0].scope;
        assert_eq!(
            scopes.type_origin(first, &tensor),
            Origin::Crate("other".to_string())
        );
        let local: syn::Type = syn::parse_quote!(crate::T);
        assert_eq!(
            scopes.type_origin(facts.includes[1].scope, &local),
            Origin::Local
        );
        // A call the items do not show (inside another macro's input) places none.
        let hidden = "m! { opgen::include_native_functions!(\"a.yaml\"); }\n\
                      opgen::include_native_functions!(\"b.yaml\");";
        let facts = read_facts(hidden).expect("the sample parses");
        assert_eq!(facts.includes, [IncludeSite { line: 0, scope: 0 }]);
    }
}
