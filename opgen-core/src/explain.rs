//! The error index: every rule id (R1–R92) with what it means, an example that breaks it
//! and the fixed example, as rustc's `--explain`.
//!
//! One source for `opgen explain R16` and for `docs/ERRORS.md` ([`markdown`]); a test runs
//! every example through the checks and asserts that the broken one breaks exactly its rule
//! and that the fixed one passes.
//!
//! ```
//! use opgen_core::schema::Rule;
//! let e = Rule::UnknownType.explain();
//! assert_eq!(e.rule.id(), "R16");
//! assert!(e.broken.errors().iter().all(|(rule, _)| *rule == Some(Rule::UnknownType)));
//! assert!(e.fixed.errors().is_empty());
//! println!("{}", e.to_text());
//! ```

mod derivative_rules;
mod entry_rules;
mod file_rules;
mod schema_rules;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::sync::LazyLock;

pub use derivative_rules::{
    DerivativeExplanation, NATIVES as DERIVATIVE_EXAMPLE_NATIVES, all as derivatives,
};

use crate::native::{Tags, check_rust_api, load_native_functions};
use crate::schema::{Rule, parse_schema};
use crate::validate::check_rust_mapping;

/// One rule's entry in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explanation {
    /// The rule.
    pub rule: Rule,
    /// What the rule requires and why, in paragraphs separated by blank lines.
    pub meaning: &'static str,
    /// An input that breaks the rule (and no other).
    pub broken: Example,
    /// What to change, in one or two sentences.
    pub fix: &'static str,
    /// The input with the fix applied: it breaks no rule.
    pub fixed: Example,
}

/// An example input: a schema string, or a `native_functions.yaml` file (checked with
/// PyTorch's tags, as `opgen check` does, R84–R89 included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Example {
    /// A schema, checked as `opgen check --schema` checks it.
    Schema(&'static str),
    /// A whole yaml file.
    Yaml(&'static str),
}

impl Example {
    /// The example's text.
    pub fn text(self) -> &'static str {
        match self {
            Example::Schema(s) | Example::Yaml(s) => s,
        }
    }

    /// Every error the checks report for the example: its rule (`None` for a YAML syntax
    /// error) and the rendered message, as `opgen check` prints it.
    pub fn errors(self) -> Vec<(Option<Rule>, String)> {
        match self {
            Example::Schema(text) => {
                let errors = match parse_schema(text) {
                    Ok(schema) => check_rust_mapping(&schema, false),
                    Err(errors) => errors,
                };
                (errors.iter())
                    .map(|e| (Some(e.rule), e.render(text)))
                    .collect()
            }
            Example::Yaml(text) => {
                let errors = match load_native_functions(text, &tags_yaml()) {
                    Ok(nf) => check_rust_api(&nf, "native_functions.yaml", text),
                    Err(errors) => errors,
                };
                errors.iter().map(|e| (e.rule, e.render())).collect()
            }
        }
    }

    fn fence(self) -> &'static str {
        match self {
            Example::Schema(_) => "text",
            Example::Yaml(_) => "yaml",
        }
    }
}

/// PyTorch's tags as a `tags.yaml`.
fn tags_yaml() -> String {
    (Tags::pytorch().iter())
        .map(|t| format!("- tag: {t}\n  desc: {t}\n"))
        .collect()
}

static ALL: LazyLock<Vec<Explanation>> = LazyLock::new(|| {
    let mut all = Vec::with_capacity(Rule::ALL.len());
    all.extend_from_slice(&schema_rules::EXPLANATIONS);
    all.extend_from_slice(&entry_rules::EXPLANATIONS);
    all.extend_from_slice(&file_rules::EXPLANATIONS);
    all
});

/// Every entry, in rule order (R1 first).
pub fn all() -> &'static [Explanation] {
    &ALL
}

impl Rule {
    /// The rule's entry in the error index (`opgen explain R16`).
    ///
    /// ```
    /// use opgen_core::schema::Rule;
    /// assert!(Rule::UnknownType.explain().to_text().starts_with("R16: every type is a known schema type"));
    /// ```
    pub fn explain(self) -> &'static Explanation {
        // Every rule has an entry, in `Rule::ALL`'s order (the index's test checks both).
        let at = Rule::ALL.iter().position(|r| *r == self).unwrap_or(0);
        &all()[at]
    }
}

impl Explanation {
    /// The entry as `opgen explain` prints it, with the errors the broken example gets
    /// from the checks.
    pub fn to_text(&self) -> String {
        let mut s = format!("{}: {}\n\n", self.rule.id(), self.rule.summary());
        for paragraph in self.meaning.split("\n\n") {
            s.push_str(&wrap(paragraph, 88));
            s.push('\n');
        }
        s.push_str("This breaks it:\n\n");
        s.push_str(&indent(self.broken.text()));
        s.push_str("\nopgen reports:\n\n");
        for (_, message) in self.broken.errors() {
            s.push_str(&indent(&message));
        }
        let _ = write!(
            s,
            "\n{}\n\n",
            wrap(&format!("The fix: {}", self.fix), 88).trim_end()
        );
        s.push_str(&indent(self.fixed.text()));
        s
    }

    /// The entry as a section of `docs/ERRORS.md`.
    pub fn to_markdown(&self) -> String {
        let mut s = format!("## {}\n\n", self.rule.id());
        let _ = write!(s, "**{}.**\n\n", capitalized(self.rule.summary()));
        for paragraph in self.meaning.split("\n\n") {
            let _ = write!(
                s,
                "{}\n\n",
                paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
        let _ = write!(
            s,
            "This breaks it:\n\n```{}\n{}\n```\n\n",
            self.broken.fence(),
            self.broken.text().trim_end()
        );
        let _ = write!(s, "The fix: {}\n\n", self.fix);
        let _ = write!(
            s,
            "```{}\n{}\n```\n",
            self.fixed.fence(),
            self.fixed.text().trim_end()
        );
        s
    }
}

/// The whole of `docs/ERRORS.md`.
pub fn markdown() -> String {
    let mut s = String::from(MARKDOWN_HEAD);
    for e in all() {
        let summary = e.rule.summary().replace('|', "\\|");
        let _ = writeln!(
            s,
            "| [{0}](#{1}) | {summary} |",
            e.rule.id(),
            e.rule.id().to_lowercase()
        );
    }
    for e in derivative_rules::all() {
        let summary = e.rule.summary().replace('|', "\\|");
        let _ = writeln!(
            s,
            "| [{0}](#{1}) | {summary} |",
            e.rule.id(),
            e.rule.id().to_lowercase()
        );
    }
    s.push('\n');
    for e in all() {
        s.push_str(&e.to_markdown());
        s.push('\n');
    }
    s.push_str(DERIVATIVES_HEAD);
    for e in derivative_rules::all() {
        s.push_str(&e.to_markdown());
        s.push('\n');
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

const MARKDOWN_HEAD: &str = "\
<!-- Generated from opgen-core/src/explain/ by `OPGEN_BLESS=1 cargo test -p opgen-core --lib explain`; do not edit by hand. -->

# The error index

Every error opgen reports about a schema, a `native_functions.yaml` entry or a whole file
carries a rule id, such as `error[R16]`. This page explains each rule: what it requires,
an input that breaks it, and the same input fixed. The same text is printed by
`opgen explain R16`, which also shows the error opgen reports for the example.

The rules are PyTorch's: torchgen, the code generator behind `native_functions.yaml`,
rejects the same inputs (R90–R92 are opgen's own bounds and name checks). They are checked
in stages, and a stage runs only when the earlier ones found nothing:

| rules | what is checked | where |
|---|---|---|
| R1–R35 | one schema string: its shape, names, arguments, types, annotations, returns | `#[native_function]`, `opgen check --schema`, every loader |
| R36–R67 | one yaml entry (or the attribute's options): its fields and their values | `opgen check`, `include_native_functions!`, the attribute |
| R68–R74 | the whole file: duplicates, delegates, generated variants | `opgen check`, `include_native_functions!` |
| R75–R83 | groups of variants and view groups | `opgen check`, `include_native_functions!` |
| R84–R89 | that the schema has a Rust API (typed functions, methods, kernels) | `opgen check`, `opgen check --schema`, the attribute |
| R90 | that types and list defaults nest within a bounded depth | `#[native_function]`, `opgen check --schema`, every loader |
| R91–R92 | that names are identifiers PyTorch's dispatcher can find, and unique (torchgen does not check them; opgen does) | `#[native_function]`, `opgen check --schema`, every loader, `Library::def` |
| R100–R119 | derivative formulas: `derivatives.yaml` entries and `derivatives(...)` on the attribute | `opgen check --derivatives`, `include_native_functions!(derivatives = ...)`, the attribute |

| rule | requires |
|---|---|
";

const DERIVATIVES_HEAD: &str = "\
# Derivative formulas

The rules R100–R119 are those of PyTorch's `derivatives.yaml` (torchgen's `load_derivatives`
and the checks of its autograd code generation). The examples are `derivatives.yaml` entries;
on `#[native_function]`, the same formulas are written `derivatives(self = \"...\", ...)` and
each error points at the formula or key it concerns.

";

/// `text` with each line indented by four spaces.
fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
}

/// `text` (one paragraph) wrapped at `width` columns, ending with a line break.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
