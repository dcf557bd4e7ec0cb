//! Facts derived from a schema alone (SCHEMA.md §1.6–1.7, §3.1–3.2): kind, self argument, out
//! arguments, the TensorOptions group, signatures for grouping. Every later consumer (the
//! native-function model, the planner, the macros, the dispatcher, the JSON catalog) asks
//! these functions, so they all derive the facts the same way.

use std::fmt;

use super::model::{ArgType, Argument, BaseType, OperatorName, Return, Schema};

/// The kind of a schema (SCHEMA.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchemaKind {
    /// Neither in-place, out nor mutable.
    Functional,
    /// An in-place name (`add_`, `__iand__`).
    Inplace,
    /// Has out arguments.
    Out,
    /// Writes a positional argument other than `self`.
    Mutable,
    /// Has `_scratch_` out arguments.
    Scratch,
}

impl SchemaKind {
    /// The lowercase name used in JSON: `functional`, `inplace`, `out`, `mutable`, `scratch`.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaKind::Functional => "functional",
            SchemaKind::Inplace => "inplace",
            SchemaKind::Out => "out",
            SchemaKind::Mutable => "mutable",
            SchemaKind::Scratch => "scratch",
        }
    }
}

impl fmt::Display for SchemaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The names of the TensorOptions quartet, in order.
pub const TENSOR_OPTIONS: [&str; 4] = ["dtype", "layout", "device", "pin_memory"];

impl Schema {
    /// Indices of the positional arguments (before `*`).
    pub fn positional(&self) -> impl Iterator<Item = (usize, &Argument)> {
        self.arguments
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.kwarg_only)
    }

    /// Index of the self argument: the first positional argument named `self`.
    pub fn self_index(&self) -> Option<usize> {
        self.positional()
            .find(|(_, a)| a.name == "self")
            .map(|(i, _)| i)
    }

    /// The self argument, if any.
    pub fn self_arg(&self) -> Option<&Argument> {
        self.self_index().map(|i| &self.arguments[i])
    }

    /// Index of the first out argument; out arguments run from here to the end.
    pub fn out_start(&self) -> usize {
        self.arguments
            .iter()
            .position(|a| a.kwarg_only && a.is_write())
            .unwrap_or(self.arguments.len())
    }

    /// The out arguments: keyword-only and written, always last.
    pub fn out_arguments(&self) -> &[Argument] {
        &self.arguments[self.out_start()..]
    }

    /// The keyword-only arguments that are not out arguments.
    pub fn kwarg_only(&self) -> impl Iterator<Item = (usize, &Argument)> {
        let out = self.out_start();
        self.arguments
            .iter()
            .enumerate()
            .filter(move |(i, a)| a.kwarg_only && *i < out)
    }

    /// Positional arguments after `self` (all positional arguments if there is no `self`).
    pub fn post_self_positional(&self) -> impl Iterator<Item = (usize, &Argument)> {
        self.post_self_positional_from(self.self_index())
    }

    /// [`Schema::post_self_positional`], given [`Schema::self_index`].
    pub(crate) fn post_self_positional_from(
        &self,
        self_index: Option<usize>,
    ) -> impl Iterator<Item = (usize, &Argument)> {
        let from = self_index.map_or(0, |i| i + 1);
        self.positional().filter(move |(i, _)| *i >= from)
    }

    /// Index of the first argument of the TensorOptions group (`dtype, layout, device,
    /// pin_memory`), if the schema has one.
    pub fn tensor_options_start(&self) -> Option<usize> {
        self.tensor_options_start_from(self.out_start())
    }

    /// [`Schema::tensor_options_start`], given [`Schema::out_start`].
    pub(crate) fn tensor_options_start_from(&self, out_start: usize) -> Option<usize> {
        const BASES: [BaseType; 4] = [
            BaseType::ScalarType,
            BaseType::Layout,
            BaseType::Device,
            BaseType::Bool,
        ];
        // Four adjacent keyword-only arguments before the outs, so four adjacent entries of
        // `kwarg_only()`; the first such group.
        let before_out = &self.arguments[..out_start];
        before_out.windows(4).position(|w| {
            w.iter()
                .zip(TENSOR_OPTIONS)
                .zip(BASES)
                .all(|((a, name), base)| {
                    a.kwarg_only
                        && a.name == name
                        && (a.ty == ArgType::Base(base) || a.ty.is_optional_of(base))
                })
        })
    }

    /// Whether the schema has a TensorOptions group.
    pub fn has_tensor_options(&self) -> bool {
        self.tensor_options_start().is_some()
    }

    /// Whether torchgen generates a `BackendSelect` kernel for the operator (SCHEMA.md
    /// §5.9): it has a TensorOptions group, and its name neither ends with `_like` nor
    /// starts with `new_` (those take the backend of their tensor argument).
    ///
    /// ```
    /// use opgen_core::schema::parse_schema;
    /// let zeros = parse_schema("zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor").unwrap();
    /// assert!(zeros.needs_backend_select());
    /// let like = parse_schema("zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor").unwrap();
    /// assert!(!like.needs_backend_select());
    /// ```
    pub fn needs_backend_select(&self) -> bool {
        let name = self.name.operator_name();
        self.has_tensor_options() && !name.ends_with("_like") && !name.starts_with("new_")
    }

    /// The kind (SCHEMA.md §3.1). A schema that is both in-place and out (rejected by R35)
    /// reports [`SchemaKind::Inplace`].
    pub fn kind(&self) -> SchemaKind {
        self.kind_from(self.out_start(), self.self_index())
    }

    /// [`Schema::kind`], given [`Schema::out_start`] and [`Schema::self_index`].
    pub(crate) fn kind_from(&self, out_start: usize, self_index: Option<usize>) -> SchemaKind {
        let out = &self.arguments[out_start..];
        if self.name.name.inplace {
            SchemaKind::Inplace
        } else if out.iter().any(|a| a.name.starts_with("_scratch_")) {
            SchemaKind::Scratch
        } else if !out.is_empty() {
            SchemaKind::Out
        } else if self
            .post_self_positional_from(self_index)
            .any(|(_, a)| a.is_write())
        {
            SchemaKind::Mutable
        } else {
            SchemaKind::Functional
        }
    }

    /// Whether some argument is written (`!`): mutable in the JIT sense.
    pub fn is_mutable(&self) -> bool {
        self.arguments.iter().any(Argument::is_write)
    }

    /// Whether the schema has out arguments (selects `_out` names).
    pub fn is_out_fn(&self) -> bool {
        self.out_start() < self.arguments.len()
    }

    /// Whether the overload name contains `functional` (reserved, R34).
    pub fn is_functional_fn(&self) -> bool {
        self.name
            .overload
            .as_deref()
            .is_some_and(|o| o.contains("functional"))
    }

    /// A view operator by schema alone: a return with a non-write annotation, or an argument
    /// with `*` in its after-set. (The `inplace_view` tag also makes an entry a view op; see
    /// the native-function model.)
    pub fn is_view_op_by_schema(&self) -> bool {
        self.returns
            .iter()
            .any(|r| r.annotation.as_ref().is_some_and(|a| !a.is_write))
            || self.arguments.iter().any(|a| {
                a.annotation
                    .as_ref()
                    .is_some_and(|a| a.has_wildcard_after())
            })
    }

    /// Whether any argument or return type is SymInt-like.
    pub fn has_symint(&self) -> bool {
        self.arguments.iter().any(|a| a.ty.is_symint_like())
    }

    /// Whether some return holds tensors (`Tensor`, `Tensor[]`, `Tensor?`).
    pub fn has_tensor_like_return(&self) -> bool {
        self.returns.iter().any(|r| r.ty.is_tensor_like())
    }

    /// The signature used for grouping (SCHEMA.md §3.2): base name only, annotations
    /// removed, out arguments and TensorOptions removed, extra returns for written
    /// arguments that are not returned.
    pub fn signature(&self) -> Schema {
        self.signature_with(false)
    }

    /// The view signature (SCHEMA.md §3.2): like [`Schema::signature`], with `_copy` removed
    /// from the base name and `_scatter` turned into `_inverse`.
    pub fn view_signature(&self) -> Schema {
        self.signature_with(true)
    }

    fn signature_with(&self, view: bool) -> Schema {
        let mut base = self.name.name.base.clone();
        if view {
            // torchgen replaces every occurrence once the suffix matches.
            if base.ends_with("_copy") {
                base = base.replace("_copy", "").into();
            } else if base.ends_with("_scatter") {
                base = base.replace("scatter", "inverse").into();
            }
        }
        let name = OperatorName {
            namespace: None,
            name: super::BaseOperatorName {
                base,
                inplace: false,
                dunder: self.name.name.dunder,
                functional_overload: false,
            },
            overload: None,
        };
        let out_start = self.out_start();
        let to = self.tensor_options_start_from(out_start);
        let is_bernoulli_p =
            self.name.name.base == "bernoulli" && self.name.overload.as_deref() == Some("p");
        let mut arguments = Vec::with_capacity(out_start - if to.is_some() { 4 } else { 0 });
        for (i, a) in self.arguments[..out_start].iter().enumerate() {
            if to.is_some_and(|t| i >= t && i < t + 4) {
                continue;
            }
            let mut default = a.default.clone();
            if is_bernoulli_p && a.name == "p" && default.is_none() {
                default = Some(super::DefaultValue {
                    text: "0.5".into(),
                    value: super::literal::parse_literal("0.5"),
                });
            }
            arguments.push(Argument {
                name: a.name.clone(),
                ty: a.ty.clone(),
                annotation: None,
                default,
                kwarg_only: a.kwarg_only,
            });
        }
        let mut returns: Vec<Return> = self
            .returns
            .iter()
            .map(|r| Return {
                name: None,
                ty: r.ty.clone(),
                annotation: None,
            })
            .collect();
        // Written arguments not returned become extra returns: self, then outs, then the
        // other positional arguments.
        let self_i = self.self_index();
        let order = self_i
            .into_iter()
            .chain(out_start..self.arguments.len())
            .chain(
                self.positional()
                    .map(|(i, _)| i)
                    .filter(|i| Some(*i) != self_i),
            );
        for i in order {
            let a = &self.arguments[i];
            if a.is_write() && !self.returns.iter().any(|r| r.annotation == a.annotation) {
                returns.push(Return {
                    name: None,
                    ty: a.ty.clone(),
                    annotation: None,
                });
            }
        }
        Schema {
            name,
            arguments,
            returns,
        }
    }
}
