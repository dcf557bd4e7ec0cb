//! The declared tags (`tags.yaml`) that entries may use (R47).

use std::collections::HashSet;

use crate::schema::{Rule, Schema};

use super::source::{LoadError, SourceFile};
use super::yaml::{self, Node, NodeKind};

/// The tags declared in a `tags.yaml`, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    names: Vec<String>,
    set: HashSet<String>,
}

/// The 20 tags PyTorch declares (the corpus `tags.yaml`), for callers without a file.
const PYTORCH_TAGS: [&str; 20] = [
    "core",
    "cudagraph_unsafe",
    "data_dependent_output",
    "dynamic_output_shape",
    "flexible_layout",
    "generated",
    "inplace",
    "inplace_view",
    "maybe_aliasing_or_mutating",
    "needs_contiguous_strides",
    "needs_exact_strides",
    "needs_fixed_stride_order",
    "nondeterministic_bitwise",
    "nondeterministic_seeded",
    "out",
    "out_variant",
    "pointwise",
    "pt2_compliant_tag",
    "reduction",
    "view_copy",
];

/// The tags torchgen adds to an entry of `namespace` with `schema` (when `tags.yaml`
/// declares them): `pt2_compliant_tag` in `aten`, `out` for out functions, `inplace` for
/// in-place names. The yaml loader and the runtime catalog both use it.
///
/// ```
/// use opgen_core::native::implicit_tags;
/// use opgen_core::schema::parse_schema;
/// let schema = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").unwrap();
/// assert_eq!(implicit_tags("aten", &schema), ["pt2_compliant_tag", "inplace"]);
/// assert_eq!(implicit_tags("vision", &schema), ["inplace"]);
/// ```
pub fn implicit_tags(namespace: &str, schema: &Schema) -> Vec<&'static str> {
    let mut tags = Vec::new();
    if namespace == "aten" {
        tags.push("pt2_compliant_tag");
    }
    if schema.is_out_fn() {
        tags.push("out");
    }
    if schema.name.name.inplace {
        tags.push("inplace");
    }
    tags
}

impl Tags {
    /// A tag set from names.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Tags {
        let mut tags = Tags::default();
        for n in names {
            tags.insert(n.into());
        }
        tags
    }

    /// The 20 tags of PyTorch's `tags.yaml`, sorted by name.
    pub fn pytorch() -> Tags {
        Tags::new(PYTORCH_TAGS)
    }

    fn insert(&mut self, name: String) {
        if self.set.insert(name.clone()) {
            self.names.push(name);
        }
    }

    /// Whether `tag` is declared.
    pub fn contains(&self, tag: &str) -> bool {
        self.set.contains(tag)
    }

    /// The declared tags, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// How many tags are declared.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no tag is declared.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Reads a `tags.yaml`: a list of `{tag: NAME, desc: TEXT}` mappings with a non-empty `desc`.
/// Problems are reported under R47 (the rule that uses the declarations).
pub(crate) fn parse_tags_yaml(file: &SourceFile) -> Result<Tags, Vec<LoadError>> {
    let root = yaml::parse(file.text()).map_err(|e| vec![file.syntax_error(&e)])?;
    let mut tags = Tags::default();
    let mut errors = Vec::new();
    let Some(root) = root else {
        return Ok(tags);
    };
    let NodeKind::Seq(items) = &root.kind else {
        errors.push(file.error_at_document(
            &root,
            Rule::UnknownTag,
            "`tags.yaml` is not a list of tags".into(),
            "write one `- tag: NAME` item per tag, each with a `desc`".into(),
        ));
        return Err(errors);
    };
    for item in items {
        let NodeKind::Map(pairs) = &item.kind else {
            errors.push(bad(
                file,
                item,
                "tag declaration is not a mapping",
                "write `- tag: NAME` and `desc: TEXT`",
            ));
            continue;
        };
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(key, _)| key.as_str() == Some(k))
                .map(|(_, v)| v)
        };
        let desc_ok = get("desc")
            .and_then(Node::as_str)
            .is_some_and(|d| !d.is_empty());
        match get("tag").and_then(Node::as_str) {
            Some(name) if desc_ok => tags.insert(name.to_string()),
            Some(name) => errors.push(bad(
                file,
                item,
                &format!("tag `{name}` has no description"),
                "add a non-empty `desc`",
            )),
            None => errors.push(bad(
                file,
                item,
                "tag declaration without a string `tag`",
                "write `tag: NAME`",
            )),
        }
    }
    if errors.is_empty() {
        Ok(tags)
    } else {
        Err(errors)
    }
}

fn bad(file: &SourceFile, node: &Node, message: &str, hint: &str) -> LoadError {
    file.error_at_node(
        node,
        Rule::UnknownTag,
        message.to_string(),
        Some(hint.to_string()),
    )
}
