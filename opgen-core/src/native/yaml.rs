//! A YAML document as a tree of nodes that remember where they start, with scalars read the
//! way torchgen's loader (PyYAML, YAML 1.1) reads them.
//!
//! yaml-rust2's event parser reports a position for every event; its own `Yaml` tree drops
//! them and resolves scalars by YAML 1.2 rules, where `on`/`yes` are strings. torchgen sees
//! those as booleans, so the tree is built here from the events.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser};
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

/// A document this loader refuses: YAML syntax, or one of the limits below. Where and what.
#[derive(Debug, Clone)]
pub(crate) struct SyntaxError {
    pub mark: Mark,
    pub message: String,
    pub hint: Option<String>,
}

impl SyntaxError {
    fn new(mark: Mark, message: impl Into<String>, hint: &str) -> SyntaxError {
        SyntaxError {
            mark,
            message: message.into(),
            hint: Some(hint.to_string()),
        }
    }
}

impl From<ScanError> for SyntaxError {
    fn from(e: ScanError) -> SyntaxError {
        SyntaxError {
            mark: Mark::from(*e.marker()),
            message: e.info().to_string(),
            hint: None,
        }
    }
}

/// How deep collections may nest. An entry of `native_functions.yaml` nests three levels
/// (the list of entries, an entry, a `dispatch` table); PyYAML, torchgen's loader, gives up
/// (Python's recursion limit) at a few hundred.
pub(crate) const MAX_DEPTH: usize = 64;

/// What copies made for anchors and aliases may cost, in bytes of the tree: this many per
/// byte of the file, plus [`ALIAS_BUDGET_BASE`]. An alias repeats its anchor's node, so
/// without a bound a few hundred bytes of nested aliases ("billion laughs") stand for
/// gigabytes; with it, the tree stays within a fixed multiple of the file.
pub(crate) const ALIAS_BUDGET_PER_BYTE: usize = 4;

/// See [`ALIAS_BUDGET_PER_BYTE`].
pub(crate) const ALIAS_BUDGET_BASE: usize = 64 * 1024;

/// Parses one YAML document into a node tree (`None` for an empty stream). As PyYAML
/// (torchgen's loader) does, refuses characters YAML does not allow (a NUL byte, other
/// control characters) and a stream of more than one document; and refuses nesting deeper
/// than [`MAX_DEPTH`] and aliases that expand past the budget.
pub(crate) fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    parse_items(text, None)
}

/// [`parse`], handing each item of a top-level list to `on_item` as soon as it is read
/// instead of keeping it: the root list comes back empty, and the whole file's tree is
/// never in memory at once (an entry's tree is ten times its text).
pub(crate) fn parse_items(
    text: &str,
    on_item: Option<&mut dyn FnMut(Node)>,
) -> Result<Option<Node>, SyntaxError> {
    check_characters(text)?;
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder {
        stack: Vec::new(),
        root: None,
        anchors: HashMap::new(),
        budget: ALIAS_BUDGET_PER_BYTE
            .saturating_mul(text.len())
            .saturating_add(ALIAS_BUDGET_BASE),
        on_item,
    };
    let mut documents = 0;
    loop {
        let (event, marker) = parser.next_token()?;
        let mark = Mark::from(marker);
        match event {
            Event::StreamEnd => return Ok(builder.root.map(|(node, _)| node)),
            Event::DocumentStart if documents > 0 => {
                return Err(SyntaxError::new(
                    mark,
                    "expected a single document in the stream, but found another document",
                    "a native_functions.yaml is one YAML document: remove the `---` or `...` \
                     line, or split the file",
                ));
            }
            Event::DocumentStart => documents += 1,
            event => builder.on_event(event, mark)?,
        }
    }
}

/// PyYAML's rule: the stream holds only printable characters (tab, line breaks, and no C0
/// or C1 control characters, DEL, U+FFFE or U+FFFF).
fn check_characters(text: &str) -> Result<(), SyntaxError> {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}')
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    let Some((at, c)) = text.char_indices().find(|&(_, c)| !printable(c)) else {
        return Ok(());
    };
    let (line, col) = line_and_column(text, at);
    Err(SyntaxError::new(
        Mark { line, col },
        format!(
            "unacceptable character #x{:04x}: special characters are not allowed",
            u32::from(c)
        ),
        "a yaml file is text; remove the character (a NUL byte usually means a binary file)",
    ))
}

/// The 1-based line and 0-based column (in characters) of byte `at`, counting lines as YAML
/// does: `\r\n`, `\r` and `\n` each end one.
pub(crate) fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let bytes = before.as_bytes();
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            line += 1;
            line_start = i + 1;
        }
    }
    (line, before[line_start..].chars().count())
}

/// What a node and its subtree cost in memory, roughly: for the alias budget.
const NODE_COST: usize = std::mem::size_of::<Node>() + std::mem::size_of::<(Node, Node)>() / 2;

struct Builder<'f> {
    stack: Vec<Frame>,
    /// The document's node and its cost.
    root: Option<(Node, usize)>,
    /// Anchored nodes with their cost.
    anchors: HashMap<usize, (Node, usize)>,
    /// Bytes that copies for anchors and aliases may still take.
    budget: usize,
    /// Takes the items of a root list (see [`parse_items`]).
    on_item: Option<&'f mut dyn FnMut(Node)>,
}

struct Frame {
    node: Node,
    anchor: usize,
    /// The cost of the node and of its children so far.
    cost: usize,
    /// In a mapping: a key whose value has not been seen yet.
    key: Option<Node>,
}

impl Builder<'_> {
    fn on_event(&mut self, event: Event, mark: Mark) -> Result<(), SyntaxError> {
        match event {
            Event::Scalar(text, style, anchor, _) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                let cost = NODE_COST + text.len();
                let kind = NodeKind::Scalar { text, quoted };
                self.push_value(Node { mark, kind }, cost, anchor)
            }
            Event::SequenceStart(anchor, _) => self.open(mark, anchor, NodeKind::Seq(Vec::new())),
            Event::MappingStart(anchor, _) => self.open(mark, anchor, NodeKind::Map(Vec::new())),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Alias(id) => {
                let Some(&(_, cost)) = self.anchors.get(&id) else {
                    let kind = NodeKind::Scalar {
                        text: String::new(),
                        quoted: false,
                    };
                    return self.push_value(Node { mark, kind }, NODE_COST, 0);
                };
                self.spend(cost, mark)?;
                let node = self.anchors[&id].0.clone();
                self.push_value(node, cost, 0)
            }
            _ => Ok(()),
        }
    }

    /// Takes `cost` bytes from the alias budget, or fails at `mark`.
    fn spend(&mut self, cost: usize, mark: Mark) -> Result<(), SyntaxError> {
        match self.budget.checked_sub(cost) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(SyntaxError::new(
                mark,
                format!(
                    "anchors and aliases expand the document past {ALIAS_BUDGET_PER_BYTE} \
                     times the file's size"
                ),
                "write the repeated values out, or alias fewer and smaller nodes",
            )),
        }
    }

    fn push_value(&mut self, node: Node, cost: usize, anchor: usize) -> Result<(), SyntaxError> {
        if anchor > 0 {
            self.spend(cost, node.mark)?;
            self.anchors.insert(anchor, (node.clone(), cost));
        }
        let root = self.stack.len() == 1;
        let Some(frame) = self.stack.last_mut() else {
            self.root.get_or_insert((node, cost));
            return Ok(());
        };
        frame.cost = frame.cost.saturating_add(cost);
        match &mut frame.node.kind {
            NodeKind::Seq(_) if root && self.on_item.is_some() => {
                if let Some(on_item) = self.on_item.as_mut() {
                    on_item(node);
                }
            }
            NodeKind::Seq(items) => items.push(node),
            NodeKind::Map(pairs) => match frame.key.take() {
                Some(key) => pairs.push((key, node)),
                None => frame.key = Some(node),
            },
            NodeKind::Scalar { .. } => {}
        }
        Ok(())
    }

    fn open(&mut self, mark: Mark, anchor: usize, kind: NodeKind) -> Result<(), SyntaxError> {
        if self.stack.len() == MAX_DEPTH {
            return Err(SyntaxError::new(
                mark,
                format!("the document nests lists and mappings more than {MAX_DEPTH} deep"),
                "an entry nests a few levels (the list of entries, its fields, a `dispatch` \
                 table); flatten the value",
            ));
        }
        self.stack.push(Frame {
            node: Node { mark, kind },
            anchor,
            cost: NODE_COST,
            key: None,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), SyntaxError> {
        let Some(Frame {
            mut node,
            anchor,
            cost,
            ..
        }) = self.stack.pop()
        else {
            return Ok(());
        };
        // A block mapping's start event sits after its first key; PyYAML (and torchgen's
        // `__line__`) place the mapping at its first key.
        if let NodeKind::Map(pairs) = &node.kind
            && let Some((k, _)) = pairs.first()
            && (k.mark.line, k.mark.col) < (node.mark.line, node.mark.col)
        {
            node.mark = k.mark;
        }
        self.push_value(node, cost, anchor)
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
