//! `opgen explain [RULE]`: the error index of `opgen_core::explain`, one rule or the list.

use std::process::ExitCode;

use opgen_core::explain;
use opgen_core::formula::DerivativeRule;
use opgen_core::schema::Rule;

use crate::out::{self, outln};

/// Prints the explanation of `rule` (`R16`, `r16` or `16`), or the list of rules.
pub fn explain(rule: Option<&str>) -> Result<ExitCode, String> {
    let Some(id) = rule else {
        for e in explain::all() {
            outln!("{:<4} {}", e.rule.id(), e.rule.summary());
        }
        for e in explain::derivatives() {
            outln!("{:<4} {}", e.rule.id(), e.rule.summary());
        }
        outln!();
        outln!("`opgen explain RULE` explains one, with an example and the fix.");
        return Ok(ExitCode::SUCCESS);
    };
    let trimmed = id.trim();
    let digits = trimmed.strip_prefix(['R', 'r']).unwrap_or(trimmed);
    let id = format!("R{digits}");
    if let Some(rule) = DerivativeRule::from_id(&id) {
        out::all(&rule.explain().to_text());
        return Ok(ExitCode::SUCCESS);
    }
    let rule = Rule::from_id(&id).ok_or_else(|| {
        let last = Rule::ALL.last().map_or("R1", |r| r.id());
        let formulas = DerivativeRule::ALL.first().map_or("R100", |r| r.id());
        let formulas_last = DerivativeRule::ALL.last().map_or("R119", |r| r.id());
        format!(
            "unknown rule `{id}`; rules are R1 to {last} and {formulas} to {formulas_last} \
             (`opgen explain` lists them)"
        )
    })?;
    out::all(&rule.explain().to_text());
    Ok(ExitCode::SUCCESS)
}
