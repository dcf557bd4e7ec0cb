//! Turning one YAML entry into [`EntryFields`] (the YAML side of R36–R38: an entry is a
//! mapping with a string `func`, known fields, values of the right YAML type).

use crate::schema::Rule;

use super::entry::{EntryError, EntryFields, Site};
use super::keys::Field;
use super::source::{LoadError, SourceFile, position, scalar_text};
use super::yaml::{Node, NodeKind, Scalar};

/// The nodes of one entry, kept to locate [`EntryError`]s.
pub(crate) struct EntryNodes<'n> {
    pub entry: &'n Node,
    pub fields: Vec<(Field, &'n Node)>,
}

impl<'n> EntryNodes<'n> {
    fn field(&self, field: Field) -> Option<&'n Node> {
        self.fields
            .iter()
            .rev()
            .find(|(f, _)| *f == field)
            .map(|(_, n)| *n)
    }

    /// The node an [`EntryError`]'s site names.
    pub fn node(&self, site: Site) -> &'n Node {
        let (field, index, key) = match site {
            Site::Entry => return self.entry,
            Site::Value(f) => return self.field(f).unwrap_or(self.entry),
            Site::Element(f, i) => (f, i, false),
            Site::Key(f, i) => (f, i, true),
            Site::PairValue(f, i) => (f, i, false),
        };
        let Some(value) = self.field(field) else {
            return self.entry;
        };
        match &value.kind {
            NodeKind::Seq(items) => items.get(index).unwrap_or(value),
            NodeKind::Map(pairs) => pairs
                .get(index)
                .map_or(value, |(k, v)| if key { k } else { v }),
            NodeKind::Scalar { .. } => value,
        }
    }

    pub fn load_error(&self, file: &SourceFile, e: EntryError) -> LoadError {
        let node = self.node(e.site);
        file.schema_error(position(node.mark), scalar_text(node), e.error)
    }
}

/// Reads one entry's fields, checking R36 (mapping with a string `func`), R37 (known
/// fields) and R38 (YAML value types; R45/R57 for `precomputed`/`ufunc_inner_loop`).
/// Unknown fields (R37) are returned with the fields, as the other fields can still be
/// checked; a value of the wrong type stops the entry.
pub(crate) fn read_entry<'n>(
    node: &'n Node,
    file: &SourceFile,
) -> Result<(EntryFields, EntryNodes<'n>, Vec<LoadError>), Vec<LoadError>> {
    let NodeKind::Map(pairs) = &node.kind else {
        let msg = format!("entry is {}, not a mapping", node.describe());
        let hint = Some("write each entry as `- func: ...` followed by its fields".to_string());
        return Err(vec![file.error_at_node(node, Rule::EntryFunc, msg, hint)]);
    };
    let mut nodes = EntryNodes {
        entry: node,
        fields: Vec::new(),
    };
    let mut unknown = Vec::new();
    for (key, value) in pairs {
        match key.as_str().and_then(Field::from_name) {
            Some(f) => nodes.fields.push((f, value)),
            None if key.as_str() == Some("__line__") => {}
            None => {
                let name = key.as_str().unwrap_or("?");
                let names = Field::ALL.iter().map(|f| f.as_str());
                let hint = match crate::schema::suggest::closest(name, names) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => "remove it; see SCHEMA.md §3.5 for the fields an entry may have".into(),
                };
                let msg = format!("unknown field `{name}` in entry");
                unknown.push(file.error_at_node(key, Rule::UnknownField, msg, Some(hint)));
            }
        }
    }
    let mut r = Reader {
        nodes: &nodes,
        file,
        errors: Vec::new(),
    };
    let fields = r.fields();
    let Reader { mut errors, .. } = r;
    if errors.is_empty() {
        Ok((fields, nodes, unknown))
    } else {
        unknown.append(&mut errors);
        Err(unknown)
    }
}

struct Reader<'r, 'n, 'f> {
    nodes: &'r EntryNodes<'n>,
    file: &'r SourceFile<'f>,
    errors: Vec<LoadError>,
}

impl Reader<'_, '_, '_> {
    fn bad(&mut self, node: &Node, rule: Rule, message: String, hint: &str) {
        self.errors.push(
            self.file
                .error_at_node(node, rule, message, Some(hint.to_string())),
        );
    }

    fn wrong_type(&mut self, field: Field, node: &Node, expected: &str) {
        let msg = format!("`{field}` must be {expected}, not {}", node.describe());
        self.bad(
            node,
            Rule::FieldType,
            msg,
            &format!("write `{field}` as {expected}"),
        );
    }

    /// A string field; `null_ok` fields treat a YAML null as absent, as torchgen does.
    fn string(&mut self, field: Field, null_ok: bool) -> Option<String> {
        let node = self.nodes.field(field)?;
        match node.scalar() {
            Some(Scalar::Str(s)) => Some(s.to_string()),
            Some(Scalar::Null) if null_ok => None,
            _ => {
                self.wrong_type(field, node, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, field: Field) -> Option<bool> {
        let node = self.nodes.field(field)?;
        let b = node.as_bool();
        if b.is_none() {
            self.wrong_type(field, node, "`True` or `False`");
        }
        b
    }

    /// A list of strings (a lone string is a one-element list when `single_ok`). Scalars that
    /// are not strings keep their text, so that the field's own rule reports them.
    fn strings(&mut self, field: Field, single_ok: bool, not_list: Rule) -> Option<Vec<String>> {
        let node = self.nodes.field(field)?;
        let items = match &node.kind {
            NodeKind::Seq(items) => items,
            NodeKind::Scalar { text, .. } if single_ok && node.as_str().is_some() => {
                return Some(vec![text.clone()]);
            }
            _ => {
                let msg = format!("`{field}` must be a list, not {}", node.describe());
                self.bad(
                    node,
                    not_list,
                    msg,
                    &format!("write `{field}` as a list: `[a, b]`"),
                );
                return None;
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match &item.kind {
                NodeKind::Scalar { text, .. } => out.push(text.clone()),
                _ => self.wrong_type(field, item, "a list of strings"),
            }
        }
        Some(out)
    }

    fn pairs(&mut self, field: Field, rule: Rule) -> Option<Vec<(String, String)>> {
        let node = self.nodes.field(field)?;
        let NodeKind::Map(pairs) = &node.kind else {
            if field == Field::UfuncInnerLoop
                && let Some(s) = node.as_str()
            {
                return Some(vec![("Generic".into(), s.to_string())]);
            }
            if field == Field::Dispatch && node.scalar() == Some(Scalar::Null) {
                return None;
            }
            let expected = if field == Field::Dispatch {
                "a mapping"
            } else {
                "a string or a mapping"
            };
            let msg = format!("`{field}` must be {expected}, not {}", node.describe());
            self.bad(
                node,
                rule,
                msg,
                &format!("write `{field}` as `KEY: VALUE` lines"),
            );
            return None;
        };
        let mut out = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            match (k.as_str(), v.as_str()) {
                (Some(k), Some(v)) => out.push((k.to_string(), v.to_string())),
                (None, _) => {
                    let msg = format!("`{field}` key is {}, not a string", k.describe());
                    self.bad(k, rule, msg, "write keys as plain names");
                }
                (_, None) => {
                    let msg = format!("`{field}` value is {}, not a string", v.describe());
                    self.bad(v, rule, msg, "write each value as a string");
                }
            }
        }
        Some(out)
    }

    fn fields(&mut self) -> EntryFields {
        let func = match self.nodes.field(Field::Func) {
            None => {
                let msg = "entry has no `func` field".to_string();
                let hint = Some("start the entry with `- func: name(args) -> returns`".to_string());
                self.errors.push(self.file.error_at_node(
                    self.nodes.entry,
                    Rule::EntryFunc,
                    msg,
                    hint,
                ));
                String::new()
            }
            Some(node) => match node.as_str() {
                Some(s) => s.to_string(),
                None => {
                    let msg = format!("`func` must be a schema string, not {}", node.describe());
                    self.bad(
                        node,
                        Rule::EntryFunc,
                        msg,
                        "quote the schema if YAML reads it as another type",
                    );
                    String::new()
                }
            },
        };
        EntryFields {
            func,
            variants: self.string(Field::Variants, false),
            dispatch: self.pairs(Field::Dispatch, Rule::FieldType),
            structured: self.boolean(Field::Structured),
            structured_delegate: self.string(Field::StructuredDelegate, true),
            structured_inherits: self.string(Field::StructuredInherits, true),
            precomputed: match self.nodes.field(Field::Precomputed) {
                Some(n) if n.scalar() == Some(Scalar::Null) => None,
                _ => self.strings(Field::Precomputed, false, Rule::PrecomputedSyntax),
            },
            autogen: self.string(Field::Autogen, false),
            tags: self.strings(Field::Tags, true, Rule::FieldType),
            device_guard: self.boolean(Field::DeviceGuard),
            device_check: self.string(Field::DeviceCheck, true),
            python_module: self.string(Field::PythonModule, true),
            category_override: self.string(Field::CategoryOverride, true),
            manual_kernel_registration: self.boolean(Field::ManualKernelRegistration),
            manual_cpp_binding: self.boolean(Field::ManualCppBinding),
            cpp_no_default_args: self.strings(Field::CppNoDefaultArgs, false, Rule::FieldType),
            use_const_ref_for_mutable_tensors: self.boolean(Field::UseConstRefForMutableTensors),
            ufunc_inner_loop: self.pairs(Field::UfuncInnerLoop, Rule::UfuncSyntax),
        }
    }
}
