//! `phaselint rule [CODE]`: the rule pages embedded from `rules/`.

use std::io::Write;

use phaselint_lint::rules::{RULES, rule};

use crate::exit;

pub fn run(code: Option<&str>) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let Some(code) = code else {
        let _ = writeln!(
            stdout,
            "{:<6} {:<38} {:<8} summary",
            "code", "name", "default"
        );
        for rule in RULES {
            let _ = writeln!(
                stdout,
                "{:<6} {:<38} {:<8} {}",
                rule.code,
                rule.name,
                rule.default_severity.as_str(),
                rule.summary
            );
        }
        return exit::SUCCESS;
    };
    match rule(code).or_else(|| RULES.iter().copied().find(|r| r.name == code)) {
        Some(rule) => {
            let _ = stdout.write_all(rule.doc.as_bytes());
            exit::SUCCESS
        }
        None => {
            eprintln!(
                "phaselint: error: `{code}` is not a rule code; run `phaselint rule` for the list"
            );
            exit::NO_VERDICT
        }
    }
}
