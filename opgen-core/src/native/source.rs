//! Errors with file positions: [`LoadError`], and the loaded text ([`SourceFile`]) that
//! turns YAML positions and schema byte ranges into lines, columns and a window of the line.

use std::cell::Cell;
use std::fmt;
use std::ops::Range;

use crate::schema::{EXCERPT_WIDTH, Rule, SchemaError, Window, bounded_text, write_help};

use super::entry::Position;
use super::yaml::{Mark, Node, NodeKind, SyntaxError};

/// A problem found while loading `native_functions.yaml` or `tags.yaml`, located at the
/// offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The broken rule; `None` for YAML syntax and I/O errors.
    pub rule: Option<Rule>,
    /// What is wrong: lowercase, the offending text in backticks.
    pub message: String,
    /// How to fix it, if there is something to say.
    pub hint: Option<String>,
    /// The file name as given to the loader.
    pub file: String,
    /// 1-based line of the offending text; 0 for an error about the whole file (it cannot
    /// be read, or is refused before it is read as YAML).
    pub line: usize,
    /// 1-based column (in characters) of the offending text; 0 with line 0.
    pub column: usize,
    /// How many characters to underline (at least 1).
    pub width: usize,
    /// The offending line as shown under the error: the whole line, or for a line longer
    /// than [`EXCERPT_WIDTH`](crate::schema::EXCERPT_WIDTH) characters a window of it around
    /// the offending text (each cut end marked `...`). Empty when no source is shown: I/O
    /// errors, and a file that is no YAML (syntax errors, a file that is no list), whose
    /// content may be anything (a binary, another program's data) and is never echoed.
    pub source_line: String,
    /// The 1-based column (in characters) in `source_line` where the offending text starts:
    /// `column`, unless the line was cut.
    pub source_column: usize,
}

impl LoadError {
    /// An error without rule or source line, located at `line` and `column` of `file`, or
    /// about the whole file (`None`: I/O errors, a file refused before it is read).
    pub(crate) fn in_file(file: &str, at: Option<(usize, usize)>, message: String) -> Self {
        let (line, column) = at.unwrap_or((0, 0));
        LoadError {
            rule: None,
            message,
            hint: None,
            file: file.to_string(),
            line,
            column,
            width: 1,
            source_line: String::new(),
            source_column: 1,
        }
    }

    /// Where the error is: `FILE:LINE:COL`, or `FILE` for an error about the whole file.
    pub fn location(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}:{}", self.file, self.line, self.column)
        }
    }

    /// The error as a block of text: `FILE:LINE:COL: error[RULE]: message`, the offending
    /// line (a window of it, if long), a caret line under the offending part, `help: hint`,
    /// and for a rule where to read more about it. Bounded in size whatever the file.
    pub fn render(&self) -> String {
        self.render_with_head(format!("{self}"))
    }

    /// [`render`](Self::render) for a compiler, which prints `error: ` before the text
    /// itself: `FILE:LINE:COL: message [RULE]`, so the word "error" is printed once.
    pub fn render_for_compiler(&self) -> String {
        let mut head = format!("{}: {}", self.location(), bounded_text(&self.message));
        if let Some(rule) = self.rule {
            head.push_str(&format!(" [{}]", rule.id()));
        }
        self.render_with_head(head)
    }

    fn render_with_head(&self, mut out: String) -> String {
        out.push('\n');
        if !self.source_line.is_empty() {
            let pad: String = self
                .source_line
                .chars()
                .take(self.source_column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let room = self
                .source_line
                .chars()
                .count()
                .saturating_sub(pad.chars().count());
            let width = self.width.min(room).max(1);
            out.push_str(&format!(
                "  {}\n  {pad}{}\n",
                self.source_line,
                "^".repeat(width)
            ));
        }
        write_help(&mut out, self.hint.as_deref(), self.rule);
        out
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error", self.location())?;
        if let Some(rule) = self.rule {
            write!(f, "[{}]", rule.id())?;
        }
        write!(f, ": {}", bounded_text(&self.message))
    }
}

impl std::error::Error for LoadError {}

/// Where an error sits: line, column and width (in characters), and its bytes in the text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Located {
    line: usize,
    column: usize,
    width: usize,
    bytes: (usize, usize),
}

/// Characters are counted from checkpoints this many bytes apart, so that turning a byte
/// offset into a column (or back) costs the same on a line of any length.
const BLOCK: usize = 4096;

/// A loaded text with its line starts, for turning positions into [`LoadError`]s. Lines are
/// counted as YAML counts them (`\r\n`, `\r` and `\n` each end one), and a leading byte
/// order mark is not part of the text (PyYAML skips it too).
pub(crate) struct SourceFile<'a> {
    name: String,
    text: &'a str,
    line_starts: Vec<usize>,
    /// `checkpoints[k]`: how many characters start before byte `k * BLOCK`.
    checkpoints: Vec<usize>,
    /// The last value found verbatim in the text (its position, address and length) and
    /// how many of its bytes were compared: the errors of one long schema are located
    /// without comparing it again for each.
    verified: Cell<Option<(Position, usize, usize, usize)>>,
}

fn is_char_start(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl<'a> SourceFile<'a> {
    pub fn new(name: &str, text: &'a str) -> SourceFile<'a> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                line_starts.push(i + 1);
            }
        }
        let mut checkpoints = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut chars = 0;
        for block in bytes.chunks(BLOCK) {
            checkpoints.push(chars);
            chars += block.iter().filter(|&&b| is_char_start(b)).count();
        }
        checkpoints.push(chars);
        SourceFile {
            name: name.to_string(),
            text,
            line_starts,
            checkpoints,
            verified: Cell::new(None),
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// How many characters start before byte `at`.
    fn chars_before(&self, at: usize) -> usize {
        let k = at / BLOCK;
        let counted = self.checkpoints.get(k).copied().unwrap_or(0);
        let from = (k * BLOCK).min(at);
        let bytes = &self.text.as_bytes()[from..at];
        counted
            + if bytes.is_ascii() {
                bytes.len()
            } else {
                bytes.iter().filter(|&&b| is_char_start(b)).count()
            }
    }

    /// The byte where character number `n` starts (the text's length past the end).
    fn byte_of_char(&self, n: usize) -> usize {
        let k = self
            .checkpoints
            .partition_point(|&c| c <= n)
            .saturating_sub(1);
        let mut count = self.checkpoints[k];
        let bytes = self.text.as_bytes();
        for (i, &b) in bytes.iter().enumerate().skip(k * BLOCK) {
            if is_char_start(b) {
                if count == n {
                    return i;
                }
                count += 1;
            }
        }
        bytes.len()
    }

    /// The bytes of `line` (1-based), without its line break; past the end, an empty range
    /// at the end of the text.
    fn line_range(&self, line: usize) -> (usize, usize) {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return (self.text.len(), self.text.len());
        };
        let next = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let line_text = &self.text[start..next];
        let end = start + line_text.trim_end_matches(['\n', '\r']).len();
        (start, end)
    }

    /// The byte of `pos` (1-based line and column), clamped to its line.
    fn byte_of(&self, pos: Position) -> usize {
        let (start, end) = self.line_range(pos.line);
        let n = self.chars_before(start) + pos.column.saturating_sub(1);
        self.byte_of_char(n).clamp(start, end)
    }

    /// The 1-based column of byte `at`.
    fn column_of(&self, at: usize) -> usize {
        let line = self.line_starts.partition_point(|&s| s <= at);
        let (start, _) = self.line_range(line);
        self.chars_before(at) - self.chars_before(start) + 1
    }

    /// An error at `at`, with a window of its line.
    pub fn error(
        &self,
        rule: Option<Rule>,
        at: Located,
        message: String,
        hint: Option<String>,
    ) -> LoadError {
        let (start, end) = at.bytes;
        let window = Window::around(self.text, start, end.max(start));
        LoadError {
            rule,
            message,
            hint,
            file: self.name.clone(),
            line: at.line,
            column: at.column,
            width: at.width.max(1),
            source_column: window.before.chars().count() + 1,
            source_line: window.text,
        }
    }

    /// A YAML syntax error, or a file refused as YAML: by position only, never by content.
    pub fn syntax_error(&self, e: &SyntaxError) -> LoadError {
        let mut error = LoadError::in_file(
            &self.name,
            Some((e.mark.line.max(1), e.mark.col + 1)),
            format!("invalid YAML: {}", e.message),
        );
        error.hint.clone_from(&e.hint);
        error
    }

    pub fn error_at_node(
        &self,
        node: &Node,
        rule: Rule,
        message: String,
        hint: Option<String>,
    ) -> LoadError {
        let at = self.locate(position(node.mark), scalar_text(node), 0..0);
        self.error(Some(rule), at, message, hint)
    }

    /// An error about the whole file at `node` (the document), shown by position only.
    pub fn error_at_document(
        &self,
        node: &Node,
        rule: Rule,
        message: String,
        hint: String,
    ) -> LoadError {
        let pos = position(node.mark);
        LoadError {
            rule: Some(rule),
            hint: Some(hint),
            ..LoadError::in_file(&self.name, Some((pos.line, pos.column)), message)
        }
    }

    pub fn schema_error(&self, pos: Position, text: Option<&str>, e: SchemaError) -> LoadError {
        let at = self.locate(pos, text, e.range);
        self.error(Some(e.rule), at, e.message, e.hint)
    }

    /// Where `range` is inside the value that starts at `pos`. `text` is the value when it
    /// is a string: if the source holds it verbatim (a plain scalar, or a quoted one without
    /// escapes) the range maps to its exact columns; otherwise the error points at the
    /// value's first character. An empty range stands for the whole value.
    pub fn locate(&self, pos: Position, text: Option<&str>, range: Range<usize>) -> Located {
        let at = self.byte_of(pos);
        let (_, line_end) = self.line_range(pos.line);
        let rest = &self.text[at..line_end];
        let quote = usize::from(rest.starts_with(['\'', '"']));
        let whole = Located {
            line: pos.line,
            column: pos.column,
            width: token_width(rest),
            bytes: (at, at),
        };
        let Some(text) = text else {
            return whole;
        };
        let range = if range.is_empty() && range.start == 0 {
            0..text.len()
        } else {
            range
        };
        let start = floor_boundary(text, range.start.min(text.len()));
        let end = floor_boundary(text, range.end.clamp(start, text.len()));
        if !self.holds_verbatim(pos, &rest[quote..], text, end) {
            return whole;
        }
        let from = at + quote + start;
        Located {
            line: pos.line,
            column: self.column_of(from),
            width: text[start..end].chars().count().max(1),
            bytes: (from, at + quote + end),
        }
    }

    /// Whether `body` (the source from the value on, to the end of its line) starts with
    /// the first `upto` bytes of `text`, compared once per value however many errors it has.
    fn holds_verbatim(&self, pos: Position, body: &str, text: &str, upto: usize) -> bool {
        let key = (pos, text.as_ptr() as usize, text.len());
        let done = match self.verified.get() {
            Some((p, ptr, len, done)) if (p, ptr, len) == key => done,
            _ => 0,
        };
        if upto <= done {
            return true;
        }
        // A value that spans lines is not verbatim beyond its first line.
        let ok = body.len() >= upto
            && body.as_bytes()[done..upto] == text.as_bytes()[done..upto]
            && !text[done..upto].contains('\n');
        if ok {
            self.verified.set(Some((key.0, key.1, key.2, upto)));
        }
        ok
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The width of the value token at the start of `rest`: a quoted string, or text up to a
/// comment or the end of the line.
fn token_width(rest: &str) -> usize {
    // Only what a window can show is looked at, so that a long line costs no more.
    let end = rest
        .char_indices()
        .nth(EXCERPT_WIDTH)
        .map_or(rest.len(), |(i, _)| i);
    let rest = &rest[..end];
    match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].find(q).map_or(1, |i| i + 2),
        Some('[' | '{') | None => 1,
        Some(_) => {
            let end = rest.find(" #").unwrap_or(rest.len());
            rest[..end].trim_end().chars().count()
        }
    }
}

pub(crate) fn position(mark: Mark) -> Position {
    Position {
        line: mark.line,
        column: mark.col + 1,
    }
}

pub(crate) fn scalar_text(node: &Node) -> Option<&str> {
    match &node.kind {
        NodeKind::Scalar { text, .. } => Some(text),
        _ => None,
    }
}
