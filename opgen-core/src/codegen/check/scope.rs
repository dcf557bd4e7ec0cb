//! The names an item list of the kernel's file declares and imports, read with its kernels
//! (`context.rs`), and where a name comes from: this crate, another crate, or somewhere the
//! file does not tell (a glob import, an item written by a macro, the prelude). The checks
//! that use it report only what the file proves; anything unknown is left to rustc.

use std::collections::{BTreeMap, BTreeSet};

/// The names of one item list (a module's, or a block's).
#[derive(Debug, Clone, Default)]
pub(super) struct Scope {
    /// The scope whose names this one also sees: a block sees its module's items; a module
    /// sees none of its parent's.
    pub parent: Option<usize>,
    /// Items declared here (types, modules, functions, the generated markers, ...).
    pub defined: BTreeSet<String>,
    /// Names imported with `use` (or `extern crate .. as`), with the first segment of the
    /// path they come through (`crate`, `super`, a module, or a crate's name; `::foo` for an
    /// absolute path).
    pub imports: BTreeMap<String, String>,
    /// A glob import or an item macro: names of unknown origin may be in scope.
    pub open: bool,
    /// The first segments of the glob imports (`opgen` for `use opgen::prelude::*`).
    pub globs: BTreeSet<String>,
    /// The value names of the items written here (functions, constants, statics, unit and
    /// tuple structs), except those with an attribute that may change them (`#[cfg(..)]`,
    /// `#[test]`, an attribute macro): only what the file proves is there.
    pub values: BTreeSet<String>,
    /// The type names of the items written here (types, traits, modules), likewise.
    pub types: BTreeSet<String>,
    /// An item macro (not `macro_rules!`).
    pub macros: bool,
}

/// Where a name comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    /// This crate.
    Local,
    /// The crate of this name.
    Crate(String),
    /// The file does not tell.
    Unknown,
}

impl Scope {
    /// Records the names `item` declares or imports.
    pub(super) fn record(&mut self, item: &syn::Item) {
        let ident = match item {
            syn::Item::Struct(i) => &i.ident,
            syn::Item::Enum(i) => &i.ident,
            syn::Item::Union(i) => &i.ident,
            syn::Item::Type(i) => &i.ident,
            syn::Item::Trait(i) => &i.ident,
            syn::Item::TraitAlias(i) => &i.ident,
            syn::Item::Mod(i) => &i.ident,
            syn::Item::Fn(i) => &i.sig.ident,
            syn::Item::Const(i) => &i.ident,
            syn::Item::Static(i) => &i.ident,
            syn::Item::Use(u) => {
                let root = u.leading_colon.map(|_| "::".to_string());
                self.use_tree(&u.tree, root);
                return;
            }
            syn::Item::ExternCrate(e) => {
                let name = e.rename.as_ref().map_or(&e.ident, |(_, r)| r);
                let root = if e.ident == "self" {
                    "crate".to_string()
                } else {
                    format!("::{}", e.ident)
                };
                self.imports.insert(name.to_string(), root);
                return;
            }
            // `macro_rules!` declares a macro, no item; any other macro may declare anything.
            syn::Item::Macro(m) => {
                self.macros |= !m.mac.path.is_ident("macro_rules");
                self.open |= self.macros;
                return;
            }
            _ => return,
        };
        self.defined.insert(ident.to_string());
        self.written(item, ident.to_string());
    }

    /// Records the namespaces `item`, named `name`, takes, if its attributes leave it as
    /// written.
    fn written(&mut self, item: &syn::Item, name: String) {
        let (attrs, value, ty) = match item {
            syn::Item::Fn(i) => (&i.attrs, true, false),
            syn::Item::Const(i) => (&i.attrs, true, false),
            syn::Item::Static(i) => (&i.attrs, true, false),
            syn::Item::Struct(i) => (&i.attrs, !matches!(i.fields, syn::Fields::Named(_)), true),
            syn::Item::Enum(i) => (&i.attrs, false, true),
            syn::Item::Union(i) => (&i.attrs, false, true),
            syn::Item::Type(i) => (&i.attrs, false, true),
            syn::Item::Trait(i) => (&i.attrs, false, true),
            syn::Item::TraitAlias(i) => (&i.attrs, false, true),
            syn::Item::Mod(i) => (&i.attrs, false, true),
            _ => return,
        };
        if !attrs.iter().all(keeps_item) {
            return;
        }
        if value {
            self.values.insert(name.clone());
        }
        if ty {
            self.types.insert(name);
        }
    }

    /// Records the names a `use` tree imports; `root` is the first segment of the path so
    /// far (`::` alone for a path that starts with it).
    fn use_tree(&mut self, tree: &syn::UseTree, root: Option<String>) {
        let first = |ident: &syn::Ident| match &root {
            Some(r) if r == "::" => format!("::{ident}"),
            Some(r) => r.clone(),
            None => ident.to_string(),
        };
        match tree {
            syn::UseTree::Path(p) => self.use_tree(&p.tree, Some(first(&p.ident))),
            syn::UseTree::Name(n) if n.ident != "self" => {
                self.imports.insert(n.ident.to_string(), first(&n.ident));
            }
            syn::UseTree::Rename(r) => {
                self.imports.insert(r.rename.to_string(), first(&r.ident));
            }
            syn::UseTree::Glob(_) => {
                self.open = true;
                self.globs.insert(root.clone().unwrap_or_default());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(t, root.clone())),
            // `use a::b::{self}` imports `b`, whose first segment is known already.
            syn::UseTree::Name(_) => {}
        }
    }
}

/// Attributes that leave their item as written (lints, docs, derives, codegen hints; the
/// kernel's own `native_function`): an item with any other (`#[cfg]`, `#[test]`, an
/// attribute macro) may not be compiled, or may become something else.
const INERT: &[&str] = &[
    "allow",
    "warn",
    "deny",
    "forbid",
    "expect",
    "doc",
    "derive",
    "repr",
    "inline",
    "cold",
    "must_use",
    "deprecated",
    "non_exhaustive",
    "track_caller",
    "automatically_derived",
    "no_mangle",
    "export_name",
    "link_section",
    "used",
    "path",
    "macro_use",
    "skip",
    "native_function",
];

/// Whether `attr` leaves its item as written.
fn keeps_item(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let first = path.segments.first().map(|s| s.ident.to_string());
    let last = path.segments.last().map(|s| s.ident.to_string());
    // `#[rustfmt::skip]`, `#[clippy::..]` are tool attributes: inert.
    matches!(first.as_deref(), Some("rustfmt" | "clippy"))
        || last.is_some_and(|l| INERT.contains(&l.as_str()))
}

/// The scopes of a file, by the numbers `context.rs` gives them, and the names of the
/// crates the file may use (its package's dependencies, `std`, `core`, `alloc`).
pub(super) struct Scopes<'a>(pub &'a [Scope], pub &'a BTreeSet<String>);

/// The crates the package being compiled depends on, as its code names them (`-` as `_`,
/// renames by their key), from its `Cargo.toml`; with `std`, `core` and `alloc`, and the
/// package's own library (which its tests, examples and binaries use as a crate).
pub(super) fn dependency_crates() -> BTreeSet<String> {
    let mut crates: BTreeSet<String> = ["std", "core", "alloc"].map(String::from).into();
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(|dir| std::path::PathBuf::from(dir).join("Cargo.toml"))
        .and_then(|path| std::fs::read_to_string(path).ok());
    let Some(manifest) = manifest else {
        return crates;
    };
    if let Ok(package) = std::env::var("CARGO_PKG_NAME") {
        crates.insert(package.replace('-', "_"));
    }
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').trim();
            // `[dependencies.foo]`: one dependency per table.
            let table = header.rsplit_once("dependencies.").map(|(_, name)| name);
            if let Some(name) = table {
                crates.insert(name.trim_matches('"').replace('-', "_"));
            }
            in_dependencies = table.is_none() && header.ends_with("dependencies");
            continue;
        }
        if in_dependencies && let Some((key, _)) = line.split_once('=') {
            crates.insert(key.trim().trim_matches('"').replace('-', "_"));
        }
    }
    crates
}

impl Scopes<'_> {
    /// The scope `id` and those whose names it sees.
    fn chain(&self, id: usize) -> impl Iterator<Item = &Scope> + '_ {
        std::iter::successors(self.0.get(id), |s| s.parent.and_then(|p| self.0.get(p)))
    }

    /// Whether the item `name` of this crate (a generated marker) is declared or imported
    /// in scope `id`, or may be: a macro, or a glob import other than of a module of one of
    /// `crates` (the runtime's, which holds no item of this crate).
    pub(super) fn may_see(&self, id: usize, name: &str, crates: &[&str]) -> bool {
        (self.chain(id)).any(|s| {
            let globs = (s.globs.iter()).any(|g| !crates.contains(&g.trim_start_matches("::")));
            s.macros || globs || s.defined.contains(name) || s.imports.contains_key(name)
        })
    }

    /// Where the first segment `name` of a path written in scope `id` comes from. A name
    /// not in scope is a crate's (in Rust 2018 and later, the first segment of a path is an
    /// item in scope or a crate): with a glob import in scope, only if the package depends
    /// on a crate of that name (rustc refuses a glob-imported name that is also a crate's).
    pub(super) fn path_root(&self, id: usize, name: &str) -> Origin {
        self.root(id, name, 0)
    }

    fn root(&self, id: usize, name: &str, depth: usize) -> Origin {
        if matches!(name, "crate" | "self" | "super" | "Self") {
            return Origin::Local;
        }
        if let Some(krate) = name.strip_prefix("::") {
            return Origin::Crate(krate.to_string());
        }
        let mut open = false;
        for scope in self.chain(id) {
            if scope.defined.contains(name) {
                return Origin::Local;
            }
            if let Some(via) = scope.imports.get(name) {
                return match via {
                    _ if depth > 8 => Origin::Unknown,
                    // `use foo;` or `use foo::{self}`: the crate `foo`.
                    via if via == name => Origin::Crate(name.to_string()),
                    via => self.root(id, via, depth + 1),
                };
            }
            open |= scope.open;
        }
        if open && !self.1.contains(name) {
            return Origin::Unknown;
        }
        Origin::Crate(name.to_string())
    }

    /// Where the type `ty`, written in scope `id`, is defined; [`Origin::Unknown`] for a
    /// name the file does not declare or import (the prelude, a glob) and for anything but
    /// a path.
    pub(super) fn type_origin(&self, id: usize, ty: &syn::Type) -> Origin {
        match ty {
            syn::Type::Group(g) => self.type_origin(id, &g.elem),
            syn::Type::Paren(p) => self.type_origin(id, &p.elem),
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(first) = p.path.segments.first() else {
                    return Origin::Unknown;
                };
                let name = first.ident.to_string();
                if p.path.leading_colon.is_some() {
                    return Origin::Crate(name);
                }
                if p.path.segments.len() > 1 {
                    return self.path_root(id, &name);
                }
                // A single name: declared or imported here, or unknown.
                for scope in self.chain(id) {
                    if scope.defined.contains(&name) {
                        return Origin::Local;
                    }
                    if let Some(via) = scope.imports.get(&name) {
                        return match via {
                            via if *via == name => Origin::Crate(name),
                            via => self.path_root(id, via),
                        };
                    }
                    if scope.open {
                        return Origin::Unknown;
                    }
                }
                Origin::Unknown
            }
            _ => Origin::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(text: &str) -> Scope {
        let file = syn::parse_file(text).expect("the sample parses");
        let mut scope = Scope::default();
        file.items.iter().for_each(|i| scope.record(i));
        scope
    }

    fn origin(text: &str, ty: &str) -> Origin {
        let scopes = [scope(text)];
        let ty: syn::Type = syn::parse_str(ty).expect("a type");
        let crates = ["std", "dep"].map(String::from).into();
        Scopes(&scopes, &crates).type_origin(0, &ty)
    }

    /// Items written in a scope are recorded in the namespaces they take: functions,
    /// constants, statics and unit or tuple structs take a value name; every struct, enum,
    /// union, alias, trait and module a type name; an item under `#[cfg]`, `#[test]` or an
    /// attribute macro none, nor an import (its namespace is not written) or an item macro.
    #[test]
    fn written_items_take_their_namespaces() {
        let s = scope(
            "fn f() {} const C: u8 = 0; static S: u8 = 0; struct Unit; struct Tuple(u8); \
             struct Braced {} enum E {} union U { a: u8 } type A = u8; trait Tr {} mod m {} \
             #[cfg(any())] fn gone() {} #[cfg(test)] struct Gone; use other::imported; \
             decoys!(hidden); #[test] fn tested() {} #[tokio::main] fn changed() {} \
             #[inline] #[allow(unused)] #[rustfmt::skip] fn kept() {}",
        );
        let names = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(" ");
        assert_eq!(names(&s.values), "C S Tuple Unit f kept");
        assert_eq!(names(&s.types), "A Braced E Tr Tuple U Unit m");
    }

    /// Types imported from another crate, or written with its path, are the crate's; types
    /// declared or imported through `crate`/`self`/`super`/a local module are this crate's;
    /// a glob or an item macro makes an unknown name unknown.
    #[test]
    fn the_crate_of_a_type_is_read_from_the_file() {
        let krate = |c: &str| Origin::Crate(c.to_string());
        let uses = "use other::MyTensor; use crate::t::Local; mod m {} use m::Inner; \
                    use other::{sub::{Deep as Renamed}}; use ::abs::Abs; struct Here;";
        assert_eq!(origin(uses, "MyTensor"), krate("other"));
        assert_eq!(origin(uses, "Renamed"), krate("other"));
        assert_eq!(origin(uses, "Abs"), krate("abs"));
        assert_eq!(origin(uses, "other::sub::T"), krate("other"));
        assert_eq!(origin(uses, "::other::T"), krate("other"));
        assert_eq!(origin(uses, "Local"), Origin::Local);
        assert_eq!(origin(uses, "Inner"), Origin::Local);
        assert_eq!(origin(uses, "Here"), Origin::Local);
        assert_eq!(origin(uses, "m::Inner"), Origin::Local);
        assert_eq!(origin(uses, "crate::T"), Origin::Local);
        assert_eq!(origin(uses, "Unheard"), Origin::Unknown);
        assert_eq!(origin("use other::*;", "other::T"), Origin::Unknown);
        // A marker of this crate is not in the runtime's prelude, but may be in any other
        // glob, or come from a macro.
        let seen =
            |text: &str| Scopes(&[scope(text)], &BTreeSet::new()).may_see(0, "m", &["opgen"]);
        assert!(!seen("use opgen::prelude::*; use other::x;"));
        assert!(seen("use opgen::prelude::*; use super::*;"));
        assert!(seen("use other::m;") && seen("fn m() {}") && seen("include!(\"x\");"));
        // A glob cannot bring a name the package has as a crate.
        assert_eq!(origin("use other::*; use dep::T;", "T"), krate("dep"));
        assert_eq!(origin("use other::*;", "dep::T"), krate("dep"));
        assert_eq!(origin("use other::*;", "T"), Origin::Unknown);
        assert_eq!(origin("use other::*; use x::T;", "T"), Origin::Unknown);
        assert_eq!(origin("some_macro!(); ", "sub::T"), Origin::Unknown);
        assert_eq!(
            origin("extern crate self as me; use me::T;", "T"),
            Origin::Local
        );
        assert_eq!(origin("use other as o; use o::T;", "T"), krate("other"));
    }
}
