//! `opgen fmt FILE.yaml [--write]`: every schema that breaks only R2 (not canonical) gets
//! its canonical form; nothing else in the file changes, byte for byte.
//!
//! The file is read as YAML ([`scan`]): `func` values may be plain, quoted, block scalars
//! or inside flow mappings, with comments around them. A rewritten value keeps its style
//! where the canonical text can be written in it (a plain value that would read differently
//! as plain is double-quoted). Before anything is written, the new text is parsed again
//! and must give the same YAML events except for the new schemas.

mod scan;

use std::path::Path;
use std::process::ExitCode;

use opgen_core::schema::{Rule, canonicalize, more_errors, shown_errors};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::out::outln;
use crate::read;
use scan::{FuncValue, func_values};

/// A byte-order mark is not part of the YAML the scanner reads; it is kept as is.
const BOM: &str = "\u{feff}";

/// Runs `opgen fmt`.
pub fn fmt(file: &Path, write: bool) -> Result<ExitCode, String> {
    let text = read(file)?;
    let (bom, yaml) = match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text.as_str()),
    };
    let name = file.display().to_string();
    let values = match func_values(yaml) {
        Ok(v) => v,
        Err(e) => {
            outln!(
                "{name}:{}:{}: error: invalid YAML: {}",
                e.line,
                e.col + 1,
                e.message
            );
            return Ok(ExitCode::from(1));
        }
    };
    let mut edits: Vec<(FuncValue, String)> = Vec::new();
    let mut errors = Vec::new();
    for v in &values {
        let (ns, schema) = split_namespace(&v.value);
        match canonicalize(schema) {
            Ok(canonical) if canonical != schema => {
                let new = format!("{ns}{canonical}");
                if !write {
                    outln!("{name}:{}:", v.line);
                    outln!("  - {}", v.value);
                    outln!("  + {new}");
                }
                edits.push((v.clone(), new));
            }
            Ok(_) => {}
            Err(es) => {
                for e in es.iter().filter(|e| e.rule != Rule::NotCanonical) {
                    let col = error_column(yaml, v, ns.len() + e.range.start);
                    let rendered = format!("{name}:{}:{col}: {}", v.line, e.render(schema));
                    errors.push((v.line, rendered));
                }
            }
        }
    }
    // Bounded whatever the file: at most so many errors per line and in all.
    let (shown, more) = shown_errors(&errors, |(line, _)| *line);
    for (_, e) in shown {
        outln!("{e}");
    }
    if more > 0 {
        outln!("{}\n", more_errors(more));
    }
    let (changed, total) = (edits.len(), values.len());
    if write && changed > 0 {
        let rewritten = format!("{bom}{}", rewrite(yaml, &edits)?);
        std::fs::write(file, rewritten)
            .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
        outln!("rewrote {changed} of {total} schemas in canonical form");
    } else if changed == 0 && errors.is_empty() {
        outln!("all {total} schemas are canonical");
    } else if changed > 0 {
        outln!("{changed} of {total} schemas are not canonical; `opgen fmt --write` rewrites them");
    }
    Ok(if errors.is_empty() && (write || changed == 0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `ns::` and the schema, as the loader splits a `func` value: at the last `::` before the
/// argument list.
fn split_namespace(value: &str) -> (&str, &str) {
    let paren = value.find('(').unwrap_or(value.len());
    match value[..paren].rfind("::") {
        Some(i) => value.split_at(i + 2),
        None => ("", value),
    }
}

/// The 1-based column of byte `at` of the value: exact when the source holds the value as
/// written (a one-line plain scalar, or a quoted one without escapes), else the value's
/// first character.
fn error_column(yaml: &str, v: &FuncValue, at: usize) -> usize {
    let source = &yaml[v.span.clone()];
    let quote = usize::from(matches!(
        v.style,
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
    ));
    let literal = matches!(
        v.style,
        TScalarStyle::Plain | TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
    ) && source.get(quote..).is_some_and(|s| s.starts_with(&v.value));
    match v.value.get(..at) {
        Some(before) if literal => v.col + 1 + quote + before.chars().count(),
        _ => v.col + 1,
    }
}

/// The text with each edit's value written in place of the old one, checked to differ from
/// the original in the schemas only.
fn rewrite(yaml: &str, edits: &[(FuncValue, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(yaml.len() + 64);
    let mut at = 0;
    for (v, new) in edits {
        out.push_str(&yaml[at..v.span.start]);
        out.push_str(&encode(yaml, v, new));
        at = v.span.end;
    }
    out.push_str(&yaml[at..]);
    let expected: Vec<&str> = edits.iter().map(|(_, new)| new.as_str()).collect();
    same_but_schemas(yaml, &out, &expected).map_err(|why| {
        format!("opgen internal error: the rewritten file would differ in more than its schemas ({why}); the file is left as it was; please report it")
    })?;
    Ok(out)
}

/// `value` written as a YAML scalar in the style of the old one, where possible.
fn encode(yaml: &str, old: &FuncValue, value: &str) -> String {
    match old.style {
        TScalarStyle::Plain if plain_ok(value, old.in_flow) => value.to_string(),
        TScalarStyle::SingleQuoted if !value.contains(['\n', '\r']) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        TScalarStyle::Literal | TScalarStyle::Folded => block(yaml, old, value),
        _ => double_quoted(value),
    }
}

/// Whether `value` reads back as itself when written as a plain scalar.
fn plain_ok(value: &str, in_flow: bool) -> bool {
    let first_ok = value
        .chars()
        .next()
        .is_some_and(|c| !"-?:,[]{}#&*!|>'\"%@`".contains(c) && !c.is_whitespace());
    let flow_ok = !in_flow || !value.contains([',', '[', ']', '{', '}']);
    first_ok
        && flow_ok
        && !value.ends_with([' ', '\t', ':'])
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.contains(['\n', '\r', '\t'])
}

fn double_quoted(value: &str) -> String {
    let mut s = String::with_capacity(value.len() + 2);
    s.push('"');
    for c in value.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if c.is_control() => s.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// A block scalar: the old header with `-` chomping (the value has no final line break) and
/// without an indentation indicator, its comment kept, then `value` on one content line at
/// the old content indentation.
fn block(yaml: &str, old: &FuncValue, value: &str) -> String {
    let source = &yaml[old.span.clone()];
    let header_end = source.find(['\n', '\r']).unwrap_or(source.len());
    let header = &source[..header_end];
    let indicator = &header[..1];
    let rest = header[1..].trim_start_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit());
    let line_break = if source[header_end..].starts_with("\r\n") {
        "\r\n"
    } else if source[header_end..].starts_with('\r') {
        "\r"
    } else {
        "\n"
    };
    let indent = source[header_end..]
        .split(['\n', '\r'])
        .find(|l| !l.trim().is_empty())
        .map_or(old.key_col + 2, |l| {
            l.len() - l.trim_start_matches(' ').len()
        });
    format!(
        "{indicator}-{rest}{line_break}{}{value}",
        " ".repeat(indent)
    )
}

/// Checks that `new` parses to the events of `old`, except that the `func` values are
/// `expected` (in order) where they changed.
fn same_but_schemas(old: &str, new: &str, expected: &[&str]) -> Result<(), String> {
    let (old_events, new_events) = (events(old)?, events(new)?);
    if old_events.len() != new_events.len() {
        return Err("a different number of YAML nodes".into());
    }
    let mut expected = expected.iter();
    let new_values: Vec<String> = func_values(new)
        .map_err(|e| e.message)?
        .into_iter()
        .map(|v| v.value)
        .collect();
    for (a, b) in old_events.iter().zip(&new_events) {
        match (a, b) {
            (Event::Scalar(x, _, xa, xt), Event::Scalar(y, _, ya, yt)) if x != y => {
                let wanted = expected.next().ok_or("an unexpected change")?;
                if y != wanted || xa != ya || xt != yt || !new_values.contains(y) {
                    return Err(format!("`{x}` became `{y}`"));
                }
            }
            (Event::Scalar(x, _, xa, xt), Event::Scalar(_, _, ya, yt)) if (xa, xt) != (ya, yt) => {
                return Err(format!("`{x}` changed"));
            }
            (Event::Scalar(..), Event::Scalar(..)) => {}
            (a, b) if a != b => return Err(format!("{a:?} became {b:?}")),
            _ => {}
        }
    }
    match expected.next() {
        Some(missing) => Err(format!("`{missing}` was not written")),
        None => Ok(()),
    }
}

/// The YAML events of the first document of `text`.
fn events(text: &str) -> Result<Vec<Event>, String> {
    struct Collect(Vec<Event>);
    impl MarkedEventReceiver for Collect {
        fn on_event(&mut self, ev: Event, _: Marker) {
            self.0.push(ev);
        }
    }
    let mut collect = Collect(Vec::new());
    Parser::new_from_str(text)
        .load(&mut collect, false)
        .map_err(|e| e.to_string())?;
    Ok(collect.0)
}
