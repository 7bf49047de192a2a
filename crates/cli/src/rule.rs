//! `phaselint rule [CODE]`: the rule pages embedded from `rules/`.

use std::io::Write;

use phaselint_lint::rules::{FixAvailability, RULES, rule};

use crate::exit;

pub fn run(code: Option<&str>) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let Some(code) = code else {
        let _ = writeln!(
            stdout,
            "{:<6} {:<38} {:<11} {:<6} summary",
            "code", "name", "default", "fix"
        );
        for rule in RULES {
            let fix = match rule.fix {
                FixAvailability::None => "-",
                available => available.as_str(),
            };
            let _ = writeln!(
                stdout,
                "{:<6} {:<38} {:<11} {fix:<6} {}",
                rule.code,
                rule.name,
                rule.default_level(),
                rule.summary
            );
        }
        let _ = writeln!(
            stdout,
            "\nfix: `safe` fixes are applied by `phaselint lint --fix`; `unsafe` ones (did-you-mean guesses) also need `--unsafe-fixes`.\noff: turned on by `select` (a code, a prefix or \"ALL\")."
        );
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
