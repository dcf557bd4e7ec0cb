//! Reading `derivatives.yaml` into raw entries: the YAML shape of R100, R102 and R103.

use super::super::source::{SourceFile, position};
use super::super::yaml::{self, Node, NodeKind, Scalar};
use super::model::DerivativeError;
use crate::formula::DerivativeRule;
use crate::native::Position;

/// A string value and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub text: String,
    pub position: Position,
}

/// One `key: formula` line.
#[derive(Debug, Clone)]
pub(crate) struct RawFormula {
    pub key: Located,
    pub value: Located,
}

/// `output_differentiability` as written.
#[derive(Debug, Clone)]
pub(crate) enum RawOutputs {
    Flags(Vec<bool>),
    Condition(String),
}

#[derive(Debug, Clone)]
pub(crate) struct RawEntry {
    pub name: Located,
    pub output_differentiability: Option<(RawOutputs, Position)>,
    /// Per dispatch key (`Default` for an entry without `dispatch`): the formulas.
    pub dispatch: Vec<(Located, Vec<RawFormula>)>,
}

/// Errors collected while reading, with the file for positions.
pub(crate) struct Reader<'f, 'a> {
    pub file: &'f SourceFile<'a>,
    pub errors: Vec<DerivativeError>,
}

impl Reader<'_, '_> {
    pub fn error(
        &mut self,
        rule: DerivativeRule,
        at: Position,
        text: Option<&str>,
        range: std::ops::Range<usize>,
        message: String,
        hint: Option<String>,
    ) {
        let at = self.file.locate(at, text, range);
        let error = self.file.error(None, at, message, hint);
        self.errors.push(DerivativeError {
            rule: Some(rule),
            error,
        });
    }

    fn at_node(
        &mut self,
        rule: DerivativeRule,
        node: &Node,
        message: String,
        hint: Option<String>,
    ) {
        let text = match &node.kind {
            NodeKind::Scalar { text, .. } => Some(text.clone()),
            _ => None,
        };
        self.error(
            rule,
            position(node.mark),
            text.as_deref(),
            0..0,
            message,
            hint,
        );
    }
}

/// The entries of the file, or the YAML error.
pub(crate) fn read(reader: &mut Reader) -> Vec<RawEntry> {
    let root = match yaml::parse(reader.file.text()) {
        Ok(root) => root,
        Err(e) => {
            let error = reader.file.syntax_error(&e);
            reader.errors.push(DerivativeError { rule: None, error });
            return Vec::new();
        }
    };
    let items = match root.as_ref().map(|r| &r.kind) {
        None => return Vec::new(),
        Some(NodeKind::Seq(items)) => items,
        Some(NodeKind::Scalar { text, .. }) if text.is_empty() => return Vec::new(),
        Some(_) => {
            let root = root
                .as_ref()
                .map(|r| position(r.mark))
                .unwrap_or(Position { line: 1, column: 1 });
            reader.error(
                DerivativeRule::EntryShape,
                root,
                None,
                0..0,
                "the file is not a list of entries".into(),
                Some("write one `- name: ...` item per entry".into()),
            );
            return Vec::new();
        }
    };
    items
        .iter()
        .filter_map(|item| read_entry(reader, item))
        .collect()
}

fn string_of(node: &Node) -> Option<&str> {
    match node.scalar() {
        Some(Scalar::Str(s)) => Some(s),
        _ => None,
    }
}

fn located(node: &Node, text: &str) -> Located {
    Located {
        text: text.to_string(),
        position: position(node.mark),
    }
}

fn read_entry(reader: &mut Reader, item: &Node) -> Option<RawEntry> {
    let NodeKind::Map(pairs) = &item.kind else {
        let msg = format!("entry is {}, not a mapping", item.describe());
        let hint = "write each entry as `- name: SCHEMA` followed by its formulas".into();
        reader.at_node(DerivativeRule::EntryShape, item, msg, Some(hint));
        return None;
    };
    let mut name = None;
    let mut outputs = None;
    let mut dispatch = None;
    let mut formulas = Vec::new();
    for (key, value) in pairs {
        let Some(k) = key.as_str() else {
            let msg = format!("key {} is not a string", key.describe());
            reader.at_node(DerivativeRule::FieldType, key, msg, None);
            continue;
        };
        match k {
            "name" => match string_of(value) {
                Some(s) => name = Some(located(value, s)),
                None => {
                    let msg = format!("`name` is {}, not a schema string", value.describe());
                    reader.at_node(DerivativeRule::EntryShape, value, msg, None);
                }
            },
            "output_differentiability" => outputs = read_outputs(reader, value),
            "dispatch" => dispatch = Some(read_dispatch(reader, value)),
            _ => formulas.extend(read_formula(reader, key, k, value)),
        }
    }
    let Some(name) = name else {
        let hint = "start the entry with `- name: SCHEMA`".into();
        reader.at_node(
            DerivativeRule::EntryShape,
            item,
            "entry has no `name`".into(),
            Some(hint),
        );
        return None;
    };
    let dispatch = match dispatch {
        Some(d) => {
            if let Some(f) = formulas.first() {
                let msg = format!("formula `{}` next to `dispatch`", f.key.text);
                let hint =
                    "put the formulas under a key of `dispatch` (`Default:` for all keys)".into();
                reader.error(
                    DerivativeRule::FieldType,
                    f.key.position,
                    Some(&f.key.text),
                    0..0,
                    msg,
                    Some(hint),
                );
            }
            d
        }
        None => vec![(
            Located {
                text: "Default".into(),
                position: name.position,
            },
            formulas,
        )],
    };
    Some(RawEntry {
        name,
        output_differentiability: outputs,
        dispatch,
    })
}

fn read_formula(reader: &mut Reader, key: &Node, k: &str, value: &Node) -> Option<RawFormula> {
    // torchgen reads every value with PyYAML and uses it as a string; a number or a boolean
    // there is a mistake.
    let text = match (value.scalar(), &value.kind) {
        (Some(Scalar::Str(s)), _) => s.to_string(),
        _ => {
            let msg = format!("the formula of `{k}` is {}, not a string", value.describe());
            reader.at_node(
                DerivativeRule::FieldType,
                value,
                msg,
                Some("write a C++ expression".into()),
            );
            return None;
        }
    };
    Some(RawFormula {
        key: located(key, k),
        value: located(value, &text),
    })
}

fn read_outputs(reader: &mut Reader, value: &Node) -> Option<(RawOutputs, Position)> {
    let at = position(value.mark);
    let NodeKind::Seq(items) = &value.kind else {
        let msg = format!(
            "`output_differentiability` is {}, not a list",
            value.describe()
        );
        reader.at_node(
            DerivativeRule::FieldType,
            value,
            msg,
            Some("write `[True, False]`".into()),
        );
        return None;
    };
    let bools: Option<Vec<bool>> = items.iter().map(Node::as_bool).collect();
    if let Some(bools) = bools {
        return Some((RawOutputs::Flags(bools), at));
    }
    match items.as_slice() {
        [one] if string_of(one).is_some() => Some((
            RawOutputs::Condition(string_of(one).unwrap_or_default().to_string()),
            at,
        )),
        _ => {
            let msg = "`output_differentiability` must be a list of booleans or a single condition"
                .to_string();
            let hint = "a condition is only supported for operators with one output".into();
            reader.at_node(DerivativeRule::FieldType, value, msg, Some(hint));
            None
        }
    }
}

fn read_dispatch(reader: &mut Reader, value: &Node) -> Vec<(Located, Vec<RawFormula>)> {
    let NodeKind::Map(pairs) = &value.kind else {
        let msg = format!("`dispatch` is {}, not a mapping", value.describe());
        reader.at_node(
            DerivativeRule::FieldType,
            value,
            msg,
            Some("write `dispatch:` then `Default:` and autograd keys".into()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, formulas) in pairs {
        let Some(k) = key.as_str() else {
            reader.at_node(
                DerivativeRule::FieldType,
                key,
                format!("key {} is not a string", key.describe()),
                None,
            );
            continue;
        };
        let NodeKind::Map(items) = &formulas.kind else {
            let msg = format!(
                "the formulas of `{k}` are {}, not a mapping",
                formulas.describe()
            );
            reader.at_node(DerivativeRule::FieldType, formulas, msg, None);
            continue;
        };
        let mut list = Vec::new();
        for (fk, fv) in items {
            match fk.as_str() {
                Some(name) => list.extend(read_formula(reader, fk, name, fv)),
                None => reader.at_node(
                    DerivativeRule::FieldType,
                    fk,
                    format!("key {} is not a string", fk.describe()),
                    None,
                ),
            }
        }
        out.push((located(key, k), list));
    }
    out
}
