//! Native functions: the entries of `native_functions.yaml`, typed and checked, the
//! variants torchgen generates for them, and their grouping (SCHEMA.md §2.5–2.7, §3.3–3.5).
//!
//! [`load_native_functions`] runs torchgen's stages on a whole file: every entry is read and
//! checked (R36–R67); if all are valid, the file-level checks run (R68–R71), then the
//! missing variants are generated (§3.4, R72–R74), then functions are grouped by signature
//! (R75–R81) and view operators by view signature (R82–R83). Within a stage every problem is
//! reported; a stage with errors stops the pipeline. Errors carry `file:line:column`.
//!
//! The result, [`NativeFunctions`], lists every function ([`NativeFunctions::functions`]:
//! entries in file order, then generated ones), the groups ([`NativeFunctions::groups`]),
//! the functions in no group ([`NativeFunctions::ungrouped`]) and the view groups
//! ([`NativeFunctions::view_groups`]); each [`NativeFunction`] carries its typed fields and
//! facts (`is_view_op`, `is_abstract`, `has_composite_implicit_kernel`, ...).
//!
//! [`NativeFunction::from_fields`] builds one native function without YAML (for the
//! `#[native_function]` attribute) and runs the entry rules on it.

mod autogen;
pub mod derivatives;
mod dispatch_table;
mod entry;
mod fields;
mod file;
mod group;
mod keys;
mod load;
mod read;
mod rules;
mod rust_api;
mod source;
mod tags;
#[cfg(test)]
mod tests;
mod view;
mod yaml;

use std::path::Path;

use crate::schema::{Rule, Schema, SchemaError};

pub use crate::dispatch::DispatchKey;
pub use entry::{
    DeviceCheck, Dispatch, DispatchOrigin, EntryError, EntryFields, EntrySource, KernelName,
    NativeFunction, Position, Precomputed, Site, UfuncInnerLoop, Variants,
};
#[cfg(feature = "codegen")]
pub(crate) use fields::split_trimmed;
pub use keys::{Field, ScalarType, UfuncKey};
pub use read::{MAX_FILE_SIZE, read_yaml_file};
pub use rust_api::check_rust_api;
pub use source::LoadError;
pub use tags::{Tags, implicit_tags};

use group::{GroupIds, Item};
use source::{SourceFile, position};
use view::ViewIds;
use yaml::NodeKind;

/// A `HashMap` with the Fx hash, for the maps keyed by schemas and names (std's SipHash
/// made up a tenth of the load time).
pub(crate) type FxHashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// An error of a later stage, attached to a function (by index) and a site in its entry.
#[derive(Debug, Clone)]
pub(crate) struct FnError {
    pub function: usize,
    pub error: EntryError,
}

impl FnError {
    pub fn new(function: usize, site: Site, error: SchemaError) -> FnError {
        FnError {
            function,
            error: EntryError::new(site, error),
        }
    }
}

/// All native functions of a file, generated ones included, with their groups.
#[derive(Debug, Clone)]
pub struct NativeFunctions {
    functions: Vec<NativeFunction>,
    entries: usize,
    groups: Vec<GroupIds>,
    items: Vec<Item>,
    view_groups: Vec<ViewIds>,
    by_name: FxHashMap<String, usize>,
    tags: Tags,
}

/// The functional, in-place, out and mutable variants of one operator (torchgen's
/// `NativeFunctionsGroup`): functions with one signature, including an out variant.
#[derive(Debug, Clone, Copy)]
pub struct NativeFunctionsGroup<'a> {
    /// The functional variant (`add.Tensor`).
    pub functional: &'a NativeFunction,
    /// The in-place variant (`add_.Tensor`), if any.
    pub inplace: Option<&'a NativeFunction>,
    /// The out variant (`add.out`).
    pub out: &'a NativeFunction,
    /// The mutable variant (`_native_batch_norm_legit`), if any.
    pub mutable: Option<&'a NativeFunction>,
    /// The out variant is `structured: True` (the others then delegate to it).
    pub structured: bool,
}

impl<'a> NativeFunctionsGroup<'a> {
    /// The members in torchgen's order: functional, out, in-place, mutable.
    pub fn functions(&self) -> impl Iterator<Item = &'a NativeFunction> {
        [
            Some(self.functional),
            Some(self.out),
            self.inplace,
            self.mutable,
        ]
        .into_iter()
        .flatten()
    }

    /// The signature every member shares (§3.2).
    pub fn signature(&self) -> Schema {
        self.out.func.signature()
    }
}

/// A view operator with its in-place view and `_copy` variant (torchgen's
/// `NativeFunctionsViewGroup`).
#[derive(Debug, Clone, Copy)]
pub struct ViewGroup<'a> {
    /// The view operator (`transpose.int`).
    pub view: &'a NativeFunction,
    /// The in-place view (`transpose_`), tagged `inplace_view`.
    pub view_inplace: Option<&'a NativeFunction>,
    /// The copy variant (`transpose_copy.int`), tagged `view_copy`.
    pub view_copy: Option<&'a NativeFunction>,
}

impl<'a> ViewGroup<'a> {
    /// The members: view, in-place view, copy.
    pub fn functions(&self) -> impl Iterator<Item = &'a NativeFunction> {
        [Some(self.view), self.view_inplace, self.view_copy]
            .into_iter()
            .flatten()
    }
}

/// A group, or a function that is in no group, in torchgen's order (by first member).
#[derive(Debug, Clone, Copy)]
pub enum Grouped<'a> {
    /// A function without group.
    Function(&'a NativeFunction),
    /// A group.
    Group(NativeFunctionsGroup<'a>),
}

impl NativeFunctions {
    /// One function, written alone (what the derivatives of an attribute are loaded
    /// against): no groups, no generated functions, PyTorch's tags.
    #[cfg(feature = "codegen")]
    pub(crate) fn single(f: NativeFunction) -> NativeFunctions {
        let mut by_name = FxHashMap::default();
        by_name.insert(f.qualified_name(), 0);
        NativeFunctions {
            functions: vec![f],
            entries: 1,
            groups: Vec::new(),
            items: vec![Item::Function(0)],
            view_groups: Vec::new(),
            by_name,
            tags: Tags::pytorch(),
        }
    }

    /// Every native function: the entries in file order, then the generated ones.
    pub fn functions(&self) -> &[NativeFunction] {
        &self.functions
    }

    /// The functions written in the file, in file order.
    pub fn entries(&self) -> &[NativeFunction] {
        &self.functions[..self.entries]
    }

    /// The functions torchgen generated (§3.4), in generation order.
    pub fn generated(&self) -> &[NativeFunction] {
        &self.functions[self.entries..]
    }

    /// The function named `name` (`add.Tensor`, `abs`; with `ns::` outside `aten`); the
    /// first one if several share the name.
    pub fn get(&self, name: &str) -> Option<&NativeFunction> {
        self.by_name.get(name).map(|&i| &self.functions[i])
    }

    /// The declared tags.
    pub fn tags(&self) -> &Tags {
        &self.tags
    }

    fn group(&self, g: &GroupIds) -> NativeFunctionsGroup<'_> {
        let f = |i: usize| &self.functions[i];
        NativeFunctionsGroup {
            functional: f(g.functional),
            inplace: g.inplace.map(f),
            out: f(g.out),
            mutable: g.mutable.map(f),
            structured: f(g.out).structured,
        }
    }

    /// The groups (functional + out, maybe in-place and mutable), by first member.
    pub fn groups(&self) -> impl Iterator<Item = NativeFunctionsGroup<'_>> {
        self.groups.iter().map(|g| self.group(g))
    }

    /// The functions that belong to no group, in torchgen's order.
    pub fn ungrouped(&self) -> impl Iterator<Item = &NativeFunction> {
        self.items.iter().filter_map(|it| match it {
            Item::Function(i) => Some(&self.functions[*i]),
            Item::Group(_) => None,
        })
    }

    /// Groups and ungrouped functions interleaved as torchgen lists them.
    pub fn grouped(&self) -> impl Iterator<Item = Grouped<'_>> {
        self.items.iter().map(|it| match it {
            Item::Function(i) => Grouped::Function(&self.functions[*i]),
            Item::Group(g) => Grouped::Group(self.group(&self.groups[*g])),
        })
    }

    /// The view groups, by first member.
    pub fn view_groups(&self) -> impl Iterator<Item = ViewGroup<'_>> {
        self.view_groups.iter().map(|v| ViewGroup {
            view: &self.functions[v.view],
            view_inplace: v.view_inplace.map(|i| &self.functions[i]),
            view_copy: v.view_copy.map(|i| &self.functions[i]),
        })
    }
}

/// Loads a whole `native_functions.yaml` with its `tags.yaml` (file names are used in error
/// positions: `native_functions.yaml` and `tags.yaml`).
///
/// ```
/// use opgen_core::native::load_native_functions;
/// let yaml = "
/// - func: abs(Tensor self) -> Tensor
///   variants: function, method
///   dispatch:
///     CompositeExplicitAutograd: abs
///   tags: [core, pointwise]
///
/// - func: abs_(Tensor(a!) self) -> Tensor(a!)
///   dispatch:
///     CompositeExplicitAutograd: abs_
///   autogen: abs.out
/// ";
/// let tags = "- tag: core\n  desc: core\n- tag: pointwise\n  desc: pointwise\n";
/// let nfs = load_native_functions(yaml, tags).unwrap();
/// assert_eq!(nfs.generated()[0].func.to_string(), "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
/// let group = nfs.groups().next().unwrap();
/// assert_eq!(group.inplace.unwrap().func.name.to_string(), "abs_");
///
/// let errors = load_native_functions("- func: abs(Tensr self) -> Tensor\n", tags).unwrap_err();
/// assert!(errors[0].to_string().starts_with("native_functions.yaml:1:13: error[R16]: unknown type `Tensr`"));
/// assert!(errors[0].render().contains("  - func: abs(Tensr self) -> Tensor\n              ^^^^^\n"));
/// ```
///
/// # Errors
///
/// Every problem of the first stage that has any (YAML syntax, entries, file checks,
/// generation, groups), each located at the offending value.
pub fn load_native_functions(
    yaml_text: &str,
    tags_text: &str,
) -> Result<NativeFunctions, Vec<LoadError>> {
    load_native_functions_with_names("native_functions.yaml", yaml_text, "tags.yaml", tags_text)
}

/// [`load_native_functions`] on two files; errors name the paths as given.
///
/// # Errors
///
/// As [`load_native_functions`], plus an error (without rule) for a file that cannot be
/// read or is refused (see [`read_yaml_file`]).
pub fn load_native_functions_from_paths(
    yaml: &Path,
    tags: &Path,
) -> Result<NativeFunctions, Vec<LoadError>> {
    let read = |p: &Path| read_yaml_file(p).map_err(|e| vec![e]);
    let (yaml_text, tags_text) = (read(yaml)?, read(tags)?);
    load_native_functions_with_names(
        &yaml.display().to_string(),
        &yaml_text,
        &tags.display().to_string(),
        &tags_text,
    )
}

/// [`load_native_functions`] with the file names to use in errors.
///
/// # Errors
///
/// As [`load_native_functions`].
pub fn load_native_functions_with_names(
    yaml_name: &str,
    yaml_text: &str,
    tags_name: &str,
    tags_text: &str,
) -> Result<NativeFunctions, Vec<LoadError>> {
    let tags = tags::parse_tags_yaml(&SourceFile::new(tags_name, tags_text))?;
    let file = SourceFile::new(yaml_name, yaml_text);
    let mut functions = read_entries(&file, &tags)?;
    let entries = functions.len();
    let to_load_errors = |fs: &[NativeFunction], errors: Vec<FnError>| -> Vec<LoadError> {
        errors
            .into_iter()
            .map(|e| fn_load_error(&file, &fs[e.function], e.error))
            .collect()
    };
    let errors = file::check_file(&functions);
    if !errors.is_empty() {
        return Err(to_load_errors(&functions, errors));
    }
    let mut errors = Vec::new();
    let buckets = autogen::generate(&mut functions, &tags, &mut errors);
    if !errors.is_empty() {
        return Err(to_load_errors(&functions, errors));
    }
    let (groups, items) = group::group(&functions, &buckets, &mut errors);
    let view_groups = view::view_groups(&functions, &buckets, &mut errors);
    if !errors.is_empty() {
        return Err(to_load_errors(&functions, errors));
    }
    let mut by_name = FxHashMap::default();
    for (i, f) in functions.iter().enumerate() {
        by_name.entry(f.qualified_name()).or_insert(i);
    }
    Ok(NativeFunctions {
        functions,
        entries,
        groups,
        items,
        view_groups,
        by_name,
        tags,
    })
}

/// Reads and checks every entry (R36–R67), reporting the problems of all entries.
fn read_entries(file: &SourceFile, tags: &Tags) -> Result<Vec<NativeFunction>, Vec<LoadError>> {
    let mut functions = Vec::new();
    let mut errors = Vec::new();
    // Each entry is read as soon as the parser has it, and its tree dropped.
    let mut on_entry =
        |item: yaml::Node| read_entry(&item, file, tags, &mut functions, &mut errors);
    let root = yaml::parse_items(file.text(), Some(&mut on_entry))
        .map_err(|e| vec![file.syntax_error(&e)])?;
    if let Some(root) = root {
        let empty = matches!(&root.kind, NodeKind::Scalar { text, .. } if text.is_empty());
        if !empty && !matches!(root.kind, NodeKind::Seq(_)) {
            return Err(vec![file.error_at_document(
                &root,
                Rule::EntryFunc,
                "the file is not a list of entries".into(),
                "write one `- func: ...` item per entry".into(),
            )]);
        }
    }
    if errors.is_empty() {
        Ok(functions)
    } else {
        Err(errors)
    }
}

/// Reads and checks one entry (R36–R67), adding it to `functions` or its problems to
/// `errors`.
fn read_entry(
    item: &yaml::Node,
    file: &SourceFile,
    tags: &Tags,
    functions: &mut Vec<NativeFunction>,
    errors: &mut Vec<LoadError>,
) {
    let (fields, nodes) = match load::read_entry(item, file) {
        Ok((fields, nodes, mut unknown)) => {
            errors.append(&mut unknown);
            (fields, nodes)
        }
        Err(mut e) => {
            errors.append(&mut e);
            return;
        }
    };
    match rules::build(&fields, tags) {
        Ok((mut f, func_offset)) => {
            // A field written twice counts once, with its last value (as in PyYAML).
            let mut positions: Vec<(Field, Position)> = Vec::new();
            for (k, n) in &nodes.fields {
                positions.retain(|(f, _)| f != k);
                positions.push((*k, position(n.mark)));
            }
            f.source = Some(EntrySource {
                entry: position(nodes.entry.mark),
                fields: positions,
                func_offset,
            });
            functions.push(f);
        }
        Err(es) => errors.extend(es.into_iter().map(|e| nodes.load_error(file, e))),
    }
}

/// Locates a later-stage error through the positions kept in the function's source.
fn fn_load_error(file: &SourceFile, f: &NativeFunction, e: EntryError) -> LoadError {
    let Some(src) = &f.source else {
        return file.schema_error(Position { line: 1, column: 1 }, None, e.error);
    };
    let field = match e.site {
        Site::Entry => None,
        Site::Value(x) | Site::Element(x, _) | Site::Key(x, _) | Site::PairValue(x, _) => Some(x),
    };
    let pos = field.and_then(|x| src.field(x));
    match (field, pos) {
        (Some(Field::Func), Some(pos)) => {
            let prefix = match src.func_offset {
                0 => String::new(),
                2 => "::".to_string(),
                _ => format!("{}::", f.namespace),
            };
            let text = format!("{prefix}{}", f.func);
            file.schema_error(pos, Some(&text), e.error)
        }
        (_, Some(pos)) => file.schema_error(
            pos,
            None,
            SchemaError {
                range: 0..0,
                ..e.error
            },
        ),
        (_, None) => file.schema_error(
            src.entry,
            None,
            SchemaError {
                range: 0..0,
                ..e.error
            },
        ),
    }
}
