//! A YAML document as a tree of nodes that remember where they start, with scalars read the
//! way torchgen's loader (PyYAML, YAML 1.1) reads them.
//!
//! yaml-rust2's event parser reports a position for every event; its own `Yaml` tree drops
//! them and resolves scalars by YAML 1.2 rules, where `on`/`yes` are strings. torchgen sees
//! those as booleans, so the tree is built here from the events.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};

/// Where a node starts: 1-based line, 0-based column counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Mark {
    pub line: usize,
    pub col: usize,
}

impl From<Marker> for Mark {
    fn from(m: Marker) -> Mark {
        Mark {
            line: m.line(),
            col: m.col(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub mark: Mark,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeKind {
    Scalar { text: String, quoted: bool },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// A scalar read by PyYAML's implicit resolvers (YAML 1.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    Int,
    Float,
    Str(&'a str),
}

impl Node {
    pub fn scalar(&self) -> Option<Scalar<'_>> {
        match &self.kind {
            NodeKind::Scalar { text, quoted: true } => Some(Scalar::Str(text)),
            NodeKind::Scalar {
                text,
                quoted: false,
            } => Some(resolve_plain(text)),
            _ => None,
        }
    }

    /// The value if it is a string (a quoted scalar, or a plain one that is no null,
    /// boolean or number).
    pub fn as_str(&self) -> Option<&str> {
        match self.scalar() {
            Some(Scalar::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.scalar() {
            Some(Scalar::Bool(b)) => Some(b),
            _ => None,
        }
    }

    /// The node as a message shows it: `` `12` ``, `a list`, `a mapping`, `nothing`.
    pub fn describe(&self) -> String {
        match &self.kind {
            NodeKind::Seq(_) => "a list".into(),
            NodeKind::Map(_) => "a mapping".into(),
            NodeKind::Scalar { text, .. } => match self.scalar() {
                Some(Scalar::Null) => "nothing".into(),
                Some(Scalar::Bool(_)) => format!("the boolean `{text}`"),
                Some(Scalar::Int | Scalar::Float) => format!("the number `{text}`"),
                _ => format!("the string `{text}`"),
            },
        }
    }
}

fn resolve_plain(text: &str) -> Scalar<'_> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Scalar::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Scalar::Bool(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Scalar::Bool(false)
        }
        _ if is_yaml11_int(text) => Scalar::Int,
        _ if is_yaml11_float(text) => Scalar::Float,
        _ => Scalar::Str(text),
    }
}

fn is_yaml11_int(t: &str) -> bool {
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    let digits =
        |s: &str, ok: fn(char) -> bool| !s.is_empty() && s.chars().all(|c| c == '_' || ok(c));
    if let Some(h) = t.strip_prefix("0x") {
        return digits(h, |c| c.is_ascii_hexdigit());
    }
    if let Some(b) = t.strip_prefix("0b") {
        return digits(b, |c| c == '0' || c == '1');
    }
    digits(t, |c| c.is_ascii_digit()) && t.starts_with(|c: char| c.is_ascii_digit())
}

fn is_yaml11_float(t: &str) -> bool {
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    if matches!(t, ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let Some((int, frac)) = mantissa.split_once('.') else {
        return false;
    };
    let num = |s: &str| s.chars().all(|c| c.is_ascii_digit() || c == '_');
    let mantissa_ok = num(int)
        && num(frac)
        && (int.starts_with(|c: char| c.is_ascii_digit()) || !frac.is_empty());
    let exp_ok = exp.is_none_or(|e| {
        e.strip_prefix(['-', '+'])
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    mantissa_ok && exp_ok
}

/// A YAML syntax error: where and what.
#[derive(Debug, Clone)]
pub(crate) struct SyntaxError {
    pub mark: Mark,
    pub message: String,
}

impl From<ScanError> for SyntaxError {
    fn from(e: ScanError) -> SyntaxError {
        SyntaxError {
            mark: Mark::from(*e.marker()),
            message: e.info().to_string(),
        }
    }
}

/// Parses one YAML document into a node tree (`None` for an empty document).
pub(crate) fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let mut builder = Builder::default();
    Parser::new_from_str(text).load(&mut builder, false)?;
    Ok(builder.root)
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    root: Option<Node>,
    anchors: HashMap<usize, Node>,
}

struct Frame {
    node: Node,
    anchor: usize,
    /// In a mapping: a key whose value has not been seen yet.
    key: Option<Node>,
}

impl Builder {
    fn push_value(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some(frame) = self.stack.last_mut() else {
            self.root.get_or_insert(node);
            return;
        };
        match &mut frame.node.kind {
            NodeKind::Seq(items) => items.push(node),
            NodeKind::Map(pairs) => match frame.key.take() {
                Some(key) => pairs.push((key, node)),
                None => frame.key = Some(node),
            },
            NodeKind::Scalar { .. } => {}
        }
    }

    fn open(&mut self, mark: Mark, anchor: usize, kind: NodeKind) {
        self.stack.push(Frame {
            node: Node { mark, kind },
            anchor,
            key: None,
        });
    }

    fn close(&mut self) {
        if let Some(Frame {
            mut node, anchor, ..
        }) = self.stack.pop()
        {
            // A block mapping's start event sits after its first key; PyYAML (and torchgen's
            // `__line__`) place the mapping at its first key.
            if let NodeKind::Map(pairs) = &node.kind
                && let Some((k, _)) = pairs.first()
                && (k.mark.line, k.mark.col) < (node.mark.line, node.mark.col)
            {
                node.mark = k.mark;
            }
            self.push_value(node, anchor);
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, marker: Marker) {
        let mark = Mark::from(marker);
        match ev {
            Event::Scalar(text, style, anchor, _) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                let kind = NodeKind::Scalar { text, quoted };
                self.push_value(Node { mark, kind }, anchor);
            }
            Event::SequenceStart(anchor, _) => self.open(mark, anchor, NodeKind::Seq(Vec::new())),
            Event::MappingStart(anchor, _) => self.open(mark, anchor, NodeKind::Map(Vec::new())),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Alias(id) => {
                let text = String::new();
                let empty = Node {
                    mark,
                    kind: NodeKind::Scalar {
                        text,
                        quoted: false,
                    },
                };
                let node = self.anchors.get(&id).cloned().unwrap_or(empty);
                self.push_value(node, 0);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_tree_with_marks_and_yaml11_scalars() {
        let text = "- func: abs(Tensor self) -> Tensor\n  dispatch:\n    CPU, CUDA: abs\n  structured: on\n  tags: [core, '12', 12]\n";
        let root = parse(text).unwrap().unwrap();
        let NodeKind::Seq(entries) = &root.kind else {
            panic!()
        };
        let NodeKind::Map(fields) = &entries[0].kind else {
            panic!()
        };
        assert_eq!(entries[0].mark, Mark { line: 1, col: 2 });
        assert_eq!(fields[0].1.as_str(), Some("abs(Tensor self) -> Tensor"));
        assert_eq!(fields[0].1.mark, Mark { line: 1, col: 8 });
        let NodeKind::Map(dispatch) = &fields[1].1.kind else {
            panic!()
        };
        assert_eq!(dispatch[0].0.as_str(), Some("CPU, CUDA"));
        assert_eq!(fields[1].1.mark, Mark { line: 3, col: 4 });
        assert_eq!(fields[2].1.as_bool(), Some(true));
        let NodeKind::Seq(tags) = &fields[3].1.kind else {
            panic!()
        };
        assert_eq!(tags[1].as_str(), Some("12"));
        assert_eq!(tags[2].scalar(), Some(Scalar::Int));
        assert_eq!(resolve_plain("1e-05"), Scalar::Str("1e-05"));
        assert_eq!(resolve_plain("1.0e-05"), Scalar::Float);
        assert_eq!(resolve_plain("0.5"), Scalar::Float);
    }
}
