//! Where each entry's `func` value is written: the YAML parser says which scalars are `func`
//! values (entries of the top-level list, read as the loader reads them), the scanner's
//! tokens bound each one, and the scalar's own syntax gives its exact end, so the bytes
//! around it (comments, quotes of other values, line ends) are never touched.

use std::ops::Range;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, ScanError, Scanner, TScalarStyle, TokenType};

/// One `func` value of the file.
#[derive(Debug, Clone)]
pub struct FuncValue {
    /// The bytes of the scalar in the text: quotes, block header and content included;
    /// comments and line breaks around it excluded.
    pub span: Range<usize>,
    /// 1-based line and 0-based column (in characters) where it starts.
    pub line: usize,
    pub col: usize,
    /// How it is written.
    pub style: TScalarStyle,
    /// The value as YAML reads it.
    pub value: String,
    /// Inside a flow collection (`{func: ...}`), where `,` `[` `]` `{` `}` end a plain scalar.
    pub in_flow: bool,
    /// The column of the `func` key: block scalar content is indented past it.
    pub key_col: usize,
}

/// A YAML syntax error: 1-based line, 0-based column, message.
pub struct SyntaxError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl From<ScanError> for SyntaxError {
    fn from(e: ScanError) -> SyntaxError {
        SyntaxError {
            line: e.marker().line(),
            col: e.marker().col(),
            message: e.info().to_string(),
        }
    }
}

/// Every entry's `func` value in `text`, in file order.
pub fn func_values(text: &str) -> Result<Vec<FuncValue>, SyntaxError> {
    let mut finder = Finder::default();
    Parser::new_from_str(text).load(&mut finder, false)?;
    let lines = LineStarts::new(text);
    let tokens = token_starts(text, &lines);
    let mut values = Vec::with_capacity(finder.found.len());
    for found in finder.found {
        let token = lines.byte(text, found.mark.line(), found.mark.col());
        let mut start = token;
        if matches!(found.style, TScalarStyle::Literal | TScalarStyle::Folded) {
            // A block scalar's token starts at its content; its header (`|-`, `>`) follows
            // the token before it (the `:`, or a tag or anchor).
            let prev = tokens
                .iter()
                .rev()
                .find(|t| t.at < token)
                .map_or(0, |t| t.at);
            start = text[prev..token]
                .find(['|', '>'])
                .map_or(token, |i| prev + i);
        }
        let next = tokens.iter().find(|t| t.at > token);
        let bound = next.map_or(text.len(), |t| t.at);
        let in_flow = tokens
            .iter()
            .find(|t| t.at == token)
            .is_some_and(|t| t.flow_level > 0);
        let end = scalar_end(text, start, bound, found.style, found.key_col);
        values.push(FuncValue {
            span: start..end,
            line: found.mark.line(),
            col: found.mark.col(),
            style: found.style,
            value: found.value,
            in_flow,
            key_col: found.key_col,
        });
    }
    Ok(values)
}

/// A `func` value as the parser reports it.
struct Found {
    mark: Marker,
    style: TScalarStyle,
    value: String,
    key_col: usize,
}

/// One open collection while parsing.
enum Frame {
    Seq,
    Map {
        /// The next node is a key.
        at_key: bool,
        /// The last key was `func` (and where it starts).
        func_key: Option<usize>,
    },
}

/// Finds the scalars that are `func` values of the mappings in the top-level list (what
/// the loader reads as entries).
#[derive(Default)]
struct Finder {
    stack: Vec<Frame>,
    found: Vec<Found>,
}

impl Finder {
    /// The mapping on top of the stack is an entry: an item of the top-level list.
    fn in_entry(&self) -> bool {
        matches!(self.stack.as_slice(), [Frame::Seq, Frame::Map { .. }])
    }

    /// Notes in the parent that a node (not a `func` key) took its key or value slot.
    fn node_in_parent(&mut self) {
        if let Some(Frame::Map { at_key, func_key }) = self.stack.last_mut() {
            *func_key = None;
            *at_key = !*at_key;
        }
    }
}

impl MarkedEventReceiver for Finder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(value, style, _, _) => {
                let in_entry = self.in_entry();
                let Some(Frame::Map { at_key, func_key }) = self.stack.last_mut() else {
                    return;
                };
                if *at_key {
                    *func_key = (in_entry && value == "func").then_some(mark.col());
                    *at_key = false;
                    return;
                }
                if let Some(key_col) = func_key.take() {
                    self.found.push(Found {
                        mark,
                        style,
                        value,
                        key_col,
                    });
                }
                *at_key = true;
            }
            Event::Alias(_) => self.node_in_parent(),
            Event::SequenceStart(..) => {
                self.node_in_parent();
                self.stack.push(Frame::Seq);
            }
            Event::MappingStart(..) => {
                self.node_in_parent();
                self.stack.push(Frame::Map {
                    at_key: true,
                    func_key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

/// Byte offsets of line starts, counting lines as the YAML scanner does (`\r\n`, `\n` and a
/// lone `\r` each end a line).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> LineStarts {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let ends = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends {
                starts.push(i + 1);
            }
        }
        LineStarts(starts)
    }

    /// The byte offset of 1-based `line`, 0-based character column `col`.
    fn byte(&self, text: &str, line: usize, col: usize) -> usize {
        let start = self
            .0
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(text.len());
        text[start..]
            .char_indices()
            .nth(col)
            .map_or(text.len(), |(i, _)| start + i)
    }
}

/// Where a token starts and how deep in flow collections it is.
struct TokenStart {
    at: usize,
    flow_level: usize,
}

fn token_starts(text: &str, lines: &LineStarts) -> Vec<TokenStart> {
    let mut level = 0usize;
    let mut starts = Vec::new();
    for token in Scanner::new(text.chars()) {
        let at = lines.byte(text, token.0.line(), token.0.col());
        match token.1 {
            TokenType::FlowSequenceStart | TokenType::FlowMappingStart => level += 1,
            TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd => {
                level = level.saturating_sub(1);
            }
            _ => {}
        }
        starts.push(TokenStart {
            at,
            flow_level: level,
        });
    }
    starts
}

/// The end of the scalar that starts at `start`, before the next token at `bound`.
fn scalar_end(
    text: &str,
    start: usize,
    bound: usize,
    style: TScalarStyle,
    key_col: usize,
) -> usize {
    let bound = bound.max(start).min(text.len());
    match style {
        TScalarStyle::SingleQuoted => quoted_end(text, start, bound, '\''),
        TScalarStyle::DoubleQuoted => quoted_end(text, start, bound, '"'),
        TScalarStyle::Literal | TScalarStyle::Folded => block_end(text, start, bound, key_col),
        TScalarStyle::Plain => plain_end(text, start, bound),
    }
}

/// After the closing quote (`''` inside single quotes and `\"` inside double quotes do not
/// close).
fn quoted_end(text: &str, start: usize, bound: usize, quote: char) -> usize {
    let mut chars = text[start..bound].char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.peek().is_some_and(|&(_, n)| n == '\'') {
                chars.next();
            } else {
                return start + i + 1;
            }
        }
    }
    bound
}

/// The end of the last non-blank text before a comment: a plain scalar may continue on
/// more-indented lines, and a comment (`#` after a blank or at a line's start) ends it.
fn plain_end(text: &str, start: usize, bound: usize) -> usize {
    let mut end = start;
    let mut at = start;
    for piece in text[start..bound].split_inclusive(['\n', '\r']) {
        let body = piece.trim_end_matches(['\n', '\r']);
        let comment = comment_start(body, at == start);
        let content = body[..comment.unwrap_or(body.len())].trim_end_matches([' ', '\t']);
        if !content.trim_start_matches([' ', '\t']).is_empty() {
            end = at + content.len();
        }
        if comment.is_some() {
            break;
        }
        at += piece.len();
    }
    end
}

/// Where a comment starts in one line of a plain scalar: `#` after a blank, or first on a
/// continuation line.
fn comment_start(line: &str, first: bool) -> Option<usize> {
    let mut prev_blank = !first;
    for (i, c) in line.char_indices() {
        if c == '#' && prev_blank {
            return Some(i);
        }
        prev_blank = c == ' ' || c == '\t';
    }
    None
}

/// The end of the last non-blank content line of a block scalar (`|` or `>`): content lines
/// are indented past the `func` key, at the indentation of the first non-blank one (or as
/// the header's indentation indicator says).
fn block_end(text: &str, start: usize, bound: usize, key_col: usize) -> usize {
    let header_end = text[start..bound]
        .find(['\n', '\r'])
        .map_or(bound, |i| start + i);
    let explicit = text[start + 1..header_end]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .find_map(|c| c.to_digit(10))
        .map(|d| key_col + d as usize);
    let mut indent = explicit;
    let mut end = header_end;
    let mut at = header_end;
    for piece in text[header_end..bound].split_inclusive(['\n', '\r']) {
        let body = piece.trim_end_matches(['\n', '\r']);
        let spaces = body.len() - body.trim_start_matches(' ').len();
        if !body.trim().is_empty() {
            let need = *indent.get_or_insert(spaces);
            if spaces < need || need <= key_col {
                break;
            }
            end = at + body.len();
        }
        at += piece.len();
    }
    end
}
