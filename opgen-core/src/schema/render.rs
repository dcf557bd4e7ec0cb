//! Showing errors in bounded space, whatever the input: a window of the source line around
//! the offending text, quoted fragments shortened in the middle, and at most so many errors
//! per line and in all, then a line saying how many more there are.
//!
//! Every renderer goes through here: [`SchemaError::render`](super::SchemaError::render)
//! (the CLI, the dispatcher's messages), the compiler's form of it (the macros), and the
//! yaml loader's [`LoadError::render`](crate::native::LoadError::render). So one error prints
//! in a few hundred bytes even when its line is megabytes long, and in time that does not
//! depend on the line's length.

use std::borrow::Cow;
use std::ops::Range;

/// A source line up to this many characters is shown whole under an error; a longer one is
/// shown as a window of this many characters around the offending text, each cut end
/// marked `...`.
pub const EXCERPT_WIDTH: usize = 160;

/// How many characters a window shows before the offending text (when the line has them).
const CONTEXT_BEFORE: usize = 60;

/// A fragment quoted in backticks in a message or hint that is longer than this many
/// characters is shortened in the middle (`...`); so is a whole message longer than
/// [`MAX_MESSAGE`]. Real fragments (names, types, whole schemas) are far shorter.
pub const MAX_FRAGMENT: usize = 1000;

/// The most characters of a message or hint that are shown (see [`MAX_FRAGMENT`]).
pub const MAX_MESSAGE: usize = 4000;

/// A renderer shows at most this many errors on one source line (a schema is one line)...
pub const MAX_ERRORS_PER_LINE: usize = 10;

/// ...and at most this many in all; then one line says how many it left out
/// ([`more_errors`]).
pub const MAX_ERRORS: usize = 100;

/// The line of `source` holding `range.start`, then a line of `^` under the range (at least
/// one caret, clipped to that line), each indented by two spaces. Columns count characters.
/// A line longer than [`EXCERPT_WIDTH`] characters is shown as a window around the range;
/// the work done does not depend on the line's length.
///
/// ```
/// use opgen_core::schema::caret_excerpt;
/// assert_eq!(caret_excerpt("relu(Tensr self) -> Tensor", 5..10), "  relu(Tensr self) -> Tensor\n       ^^^^^\n");
/// let long = format!("f({}Tensr x) -> Tensor", "int a, ".repeat(100_000));
/// let start = long.find("Tensr").unwrap();
/// let excerpt = caret_excerpt(&long, start..start + 5);
/// assert!(excerpt.len() < 2 * opgen_core::schema::EXCERPT_WIDTH);
/// let shown = excerpt.lines().next().unwrap();
/// assert!(shown.starts_with("  ...") && shown.ends_with("int a, Tensr x) -> Tensor"));
/// ```
pub fn caret_excerpt(source: &str, range: Range<usize>) -> String {
    let start = floor_char_boundary(source, range.start.min(source.len()));
    let end = floor_char_boundary(source, range.end.clamp(start, source.len()));
    let window = Window::around(source, start, end);
    window.render("  ")
}

/// The part of a line shown under an error, with where the carets go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    /// The text shown, cut ends marked `...`.
    pub text: String,
    /// The text before the caret in `text` (its characters are replaced by spaces, tabs kept).
    pub before: String,
    /// How many carets (at least one).
    pub width: usize,
}

impl Window {
    /// The window of the line of `source` that holds `start`, around `start..end` (byte
    /// offsets on character boundaries, `start <= end`). At most [`EXCERPT_WIDTH`] + 1
    /// characters are looked at on each side, so a line of any length costs the same.
    pub fn around(source: &str, start: usize, end: usize) -> Window {
        let bytes = source.as_bytes();
        let is_break = |b: u8| b == b'\n' || b == b'\r';
        // Where the characters before `start` on its line begin, nearest first.
        let mut back = Vec::new();
        let mut i = start;
        while i > 0 && back.len() <= EXCERPT_WIDTH {
            let prev = floor_char_boundary(source, i - 1);
            if is_break(bytes[prev]) {
                break;
            }
            back.push(prev);
            i = prev;
        }
        let line_start_seen = i == 0 || is_break(bytes[i - 1]);
        // Where the characters from `start` on end, nearest first.
        let mut forward = Vec::new();
        let mut j = start;
        while j < source.len() && !is_break(bytes[j]) && forward.len() <= EXCERPT_WIDTH {
            j = ceil_char_boundary(source, j + 1);
            forward.push(j);
        }
        let line_end_seen = j == source.len() || is_break(bytes[j]);
        let (b, a) = (back.len(), forward.len());
        let (show_b, show_a) = if line_start_seen && line_end_seen && b + a <= EXCERPT_WIDTH {
            (b, a)
        } else {
            let show_b = b.min(CONTEXT_BEFORE.max(EXCERPT_WIDTH.saturating_sub(a)));
            (show_b, a.min(EXCERPT_WIDTH - show_b))
        };
        let from = show_b.checked_sub(1).map_or(start, |k| back[k]);
        let to = show_a.checked_sub(1).map_or(start, |k| forward[k]);
        let cut_left = show_b < b || !line_start_seen;
        let cut_right = show_a < a || !line_end_seen;
        let mut text = String::with_capacity(to - from + 6);
        let mut before = String::new();
        if cut_left {
            text.push_str("...");
            before.push_str("   ");
        }
        text.push_str(&source[from..to]);
        if cut_right {
            text.push_str("...");
        }
        before.extend(
            source[from..start]
                .chars()
                .map(|c| if c == '\t' { '\t' } else { ' ' }),
        );
        let width = source[start..end.clamp(start, to)].chars().count().max(1);
        Window {
            text,
            before,
            width,
        }
    }

    /// The two lines, the text and the carets, each after `indent`.
    pub fn render(&self, indent: &str) -> String {
        format!(
            "{indent}{}\n{indent}{}{}\n",
            self.text,
            self.before,
            "^".repeat(self.width)
        )
    }
}

/// `text` with every fragment between backticks that is longer than [`MAX_FRAGMENT`]
/// characters shortened in the middle, and the whole cut to [`MAX_MESSAGE`] characters.
///
/// ```
/// use opgen_core::schema::bounded_text;
/// assert_eq!(bounded_text("unknown type `Tensr`"), "unknown type `Tensr`");
/// let long = format!("unknown type `{}`", "x".repeat(100_000));
/// assert!(bounded_text(&long).len() < 1100);
/// ```
pub fn bounded_text(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_FRAGMENT {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(MAX_MESSAGE.min(text.len()));
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd parts are quoted; a long unquoted part is our own prose around a fragment
        // whose closing backtick is missing, and is shortened the same way.
        out.push_str(&shorten(part, MAX_FRAGMENT));
        if out.len() > 4 * MAX_MESSAGE {
            break;
        }
    }
    Cow::Owned(shorten(&out, MAX_MESSAGE).into_owned())
}

/// `text` if it has at most `max` characters, else its first and last characters around
/// `...`, `max` characters in all.
fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max || text.chars().count() <= max {
        return Cow::Borrowed(text);
    }
    let keep = max.saturating_sub(3) / 2;
    let head_end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .rev()
        .nth(keep.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    Cow::Owned(format!("{}...{}", &text[..head_end], &text[tail_start..]))
}

/// The errors a renderer shows, in their order: at most [`MAX_ERRORS_PER_LINE`] with the
/// same `line` and at most [`MAX_ERRORS`] in all; and how many it leaves out.
///
/// ```
/// use opgen_core::schema::{shown_errors, MAX_ERRORS_PER_LINE};
/// let errors: Vec<(usize, &str)> = (0..50).map(|i| (i / 25, "e")).collect();
/// let (shown, more) = shown_errors(&errors, |e| e.0);
/// assert_eq!((shown.len(), more), (2 * MAX_ERRORS_PER_LINE, 50 - 2 * MAX_ERRORS_PER_LINE));
/// ```
pub fn shown_errors<'a, T, K: Eq + std::hash::Hash>(
    errors: &'a [T],
    line: impl Fn(&'a T) -> K,
) -> (Vec<&'a T>, usize) {
    let mut per_line: std::collections::HashMap<K, usize> = std::collections::HashMap::new();
    let mut shown = Vec::new();
    for e in errors {
        if shown.len() == MAX_ERRORS {
            break;
        }
        let n = per_line.entry(line(e)).or_insert(0);
        *n += 1;
        if *n <= MAX_ERRORS_PER_LINE {
            shown.push(e);
        }
    }
    let more = errors.len() - shown.len();
    (shown, more)
}

/// The line that stands for `n` errors a renderer left out: `3 more errors not shown`.
pub fn more_errors(n: usize) -> String {
    format!(
        "{n} more error{} not shown; fix the ones above and run again",
        if n == 1 { "" } else { "s" }
    )
}

pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}
