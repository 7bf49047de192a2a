//! The parts of a rule's page that restate its declaration: the line under
//! the title and the Configuration section, generated so that they cannot
//! drift from the `Rule`. The rest of `rules/CODE.md` (what it checks, why,
//! the failing example, the fix) is written by hand. `rules/README.md`, the
//! list of rules, is generated from the registry. `tests/rules.rs` fails
//! when a file on disk differs from what is generated here, and rewrites it
//! when `PHASELINT_BLESS=1` is set.

use std::fmt::Write;

use crate::diagnostic::Severity;
use crate::rules::{Family, FixAvailability, RULES, Rule};

/// phaselint's repository, as the workspace's `Cargo.toml` declares it
/// (`[workspace.package] repository`): every link to a rule's page starts
/// here, and every copy of the address elsewhere (editor extensions, the
/// README's pre-commit `repo:`, the CI guide) must be this one, which a
/// test checks. Still a placeholder until the project is published.
pub(crate) const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// Where the page of the rule `code` is published: `rules/CODE.md` in the
/// repository (SARIF's `helpUri`, the editor's `codeDescription`).
pub fn rule_page_uri(code: &str) -> String {
    format!(
        "{}/blob/main/rules/{code}.md",
        REPOSITORY.trim_end_matches('/')
    )
}

const HAND_WRITTEN_START: &str = "## What it checks";
const CONFIGURATION: &str = "## Configuration";

/// The hand-written part of a page: from "What it checks" up to the
/// generated Configuration section.
pub(crate) fn hand_written(doc: &str) -> &str {
    let start = doc.find(HAND_WRITTEN_START).unwrap_or(0);
    let end = doc[start..]
        .find(CONFIGURATION)
        .map_or(doc.len(), |at| start + at);
    doc[start..end].trim_end()
}

/// The page `rules/CODE.md` as it should be on disk.
pub fn render(rule: &Rule) -> String {
    let mut page = String::new();
    let _ = writeln!(page, "# {}: {}\n", rule.code, rule.name);
    let _ = writeln!(page, "{}\n", header(rule));
    page.push_str(hand_written(rule.doc));
    page.push_str("\n\n");
    page.push_str(CONFIGURATION);
    page.push_str("\n\n");
    page.push_str(&configuration(rule));
    page
}

fn header(rule: &Rule) -> String {
    let severity = if rule.levels.is_empty() {
        format!("**{}**", rule.default_severity.as_str())
    } else {
        rule.levels
            .iter()
            .map(|(level, when)| format!("**{}** ({when})", level.as_str()))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let mut line = format!(
        "Default severity: {severity} · Family: {} · Fix: {}",
        rule.family.as_str(),
        rule.fix.as_str()
    );
    if !rule.default_enabled {
        line.push_str(" · **Off by default**");
    }
    line
}

fn configuration(rule: &Rule) -> String {
    let code = rule.code;
    if rule.always_on {
        return [
            format!(
                "{code} cannot be turned off or downgraded: `ignore`, `select`, `[severity]` and `[per-file-ignores]` in `phaselint.toml` (or `[tool.phaselint]` in `pyproject.toml`) and `--ignore` / `--severity` on the command line leave it an error, and a suppression comment naming it is reported (S001). A file that cannot be loaded never passes: `phaselint lint` exits with 1 and `resume-check` gives no verdict (exit 3)."
            ),
            "A file with the `.contract.yaml` suffix that is deliberately not a contract (a template with placeholders, for instance) is kept out of the run with `exclude = [\"templates/**\"]` in `phaselint.toml`.".to_string(),
        ]
        .iter()
        .map(|paragraph| wrap(paragraph, "", ""))
        .collect::<Vec<_>>()
        .join("\n");
    }
    if rule.family == Family::Diff {
        return diff_configuration(rule);
    }
    let mut bullets: Vec<String> = Vec::new();
    if rule.default_enabled {
        bullets.push(format!(
            "Turn the rule off for a project: `ignore = [\"{code}\"]` in `phaselint.toml` (or under `[tool.phaselint]` in `pyproject.toml`), or `--ignore {code}` on the command line. For some paths only, list it under `[per-file-ignores]`, for example `\"legacy/**\" = [\"{code}\"]`."
        ));
    } else {
        bullets.push(format!(
            "Off by default. Turn it on for a project with `select = [\"{code}\"]` (or a selection that includes it, such as `[\"ALL\"]`) in `phaselint.toml` (or under `[tool.phaselint]` in `pyproject.toml`), or with `--select {code}` on the command line."
        ));
    }
    if !rule.levels.is_empty() {
        let levels: Vec<String> = rule
            .levels
            .iter()
            .map(|(level, when)| format!("{} {when}", level.as_str()))
            .collect();
        let count = match levels.len() {
            2 => "two".to_string(),
            3 => "three".to_string(),
            n => n.to_string(),
        };
        bullets.push(format!(
            "{code} has {count} default levels ({}). A `[severity]` override applies to all of them.",
            levels.join(", ")
        ));
    }
    let mut out: String = bullets.iter().map(|b| wrap(b, "- ", "  ")).collect();
    let example = if rule.default_severity == Severity::Warning {
        "error"
    } else {
        "warning"
    };
    let _ = write!(
        out,
        "- Change its severity:

  ```toml
  [severity]
  {code} = \"{example}\"   # \"error\", \"warning\", \"info\" or \"off\"
  ```

  or `--severity {code}={example}` on the command line.
"
    );
    let mut bullets: Vec<String> = Vec::new();
    if rule.suppressible {
        bullets.push(format!(
            "Silence one finding: `# phaselint: disable={code}` at the end of the line the diagnostic points at ({}), or alone on the line just before it. `# phaselint: disable-file={code}` anywhere in the file silences the rule for the whole file. A suppression that silences nothing is reported as S001.",
            rule.points_at
        ));
    } else {
        bullets.push(format!(
            "{code} itself cannot be silenced with a comment: its fix removes the comment."
        ));
    }
    match rule.fix {
        FixAvailability::None => {}
        FixAvailability::Safe => bullets.push(
            "Its fix is safe: `phaselint lint --fix` applies it, `--diff` previews it, and editors offer it as a quick fix.".into(),
        ),
        FixAvailability::Unsafe => bullets.push(
            "Its fix is unsafe (a guess to review): `phaselint lint --fix --unsafe-fixes` applies it, `--diff --unsafe-fixes` previews it, and editors offer it as a quick fix.".into(),
        ),
    }
    out.extend(bullets.iter().map(|b| wrap(b, "- ", "  ")));
    out
}

/// A D-code's Configuration: `phaselint diff` reads the configuration that
/// applies to NEW, as `lint` would for that file; no comment silences it.
fn diff_configuration(rule: &Rule) -> String {
    let code = rule.code;
    let example = if rule.default_severity == Severity::Warning {
        "error"
    } else {
        "warning"
    };
    let mut out = wrap(
        "Reported by `phaselint diff OLD NEW`, never by `phaselint lint`. The configuration is the one that applies to NEW (the `phaselint.toml`, or `[tool.phaselint]` in `pyproject.toml`, found from NEW's directory up; `--config FILE`; none with `--no-config`), as `lint` would read it for that file.",
        "",
        "",
    );
    out.push('\n');
    let bullets = [format!(
        "Turn it off: `ignore = [\"{code}\"]` in `phaselint.toml`, or `--ignore {code}` on the command line; for some paths of NEW only, list it under `[per-file-ignores]`. A `select` that names neither `{code}`, a prefix of it (`D`, `D6`) nor `ALL` turns it off too."
    )];
    out.extend(bullets.iter().map(|b| wrap(b, "- ", "  ")));
    let _ = write!(
        out,
        "- Change its severity:

  ```toml
  [severity]
  {code} = \"{example}\"   # \"error\", \"warning\", \"info\" or \"off\"
  ```

  or `--severity {code}={example}` on the command line. The exit code
  follows the configured level, as `lint`'s does.
"
    );
    out.push_str(&wrap(
        &format!(
            "- A `# phaselint: disable={code}` comment does not silence it: a finding is about a change between two files, not a line of one."
        ),
        "",
        "  ",
    ));
    out
}

/// `text` filled to 76 columns, the first line after `first`, the others
/// after `rest`. Code spans (between backticks) are never broken.
fn wrap(text: &str, first: &str, rest: &str) -> String {
    const WIDTH: usize = 76;
    let mut words: Vec<String> = Vec::new();
    let mut in_code = false;
    for word in text.split(' ') {
        match words.last_mut() {
            Some(last) if in_code => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        if word.matches('`').count() % 2 == 1 {
            in_code = !in_code;
        }
    }
    let mut out = String::from(first);
    let mut width = first.len();
    for (i, word) in words.iter().enumerate() {
        let length = word.chars().count();
        if i > 0 && width + 1 + length > WIDTH {
            out.push('\n');
            out.push_str(rest);
            width = rest.len();
        } else if i > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += length;
    }
    out.push('\n');
    out
}

/// `rules/README.md`: every rule from the registry.
pub fn index() -> String {
    let mut out = String::from(
        "# Rules\n\n\
         Generated from the rule declarations (`crates/lint/src/rules/`); \
         `phaselint rule CODE` prints a page.\n\n\
         | code | name | default | fix | summary |\n|---|---|---|---|---|\n",
    );
    for rule in RULES {
        let fix = match rule.fix {
            FixAvailability::None => "",
            available => available.as_str(),
        };
        let _ = writeln!(
            out,
            "| [{code}]({code}.md) | {} | {} | {fix} | {} |",
            rule.name,
            rule.default_level(),
            rule.summary.replace('|', "\\|"),
            code = rule.code
        );
    }
    let _ = writeln!(out, "\n{} rules.", RULES.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every address in `text` that names phaselint's repository: an
    /// `http(s)://` address whose last segment is `phaselint`.
    fn repository_addresses(text: &str) -> Vec<&str> {
        text.match_indices("https://")
            .chain(text.match_indices("http://"))
            .map(|(at, _)| {
                let rest = &text[at..];
                let end = rest
                    .find(|c: char| c.is_whitespace() || "\"'`)>@,".contains(c))
                    .unwrap_or(rest.len());
                rest[..end].trim_end_matches('/')
            })
            .filter(|address| address.ends_with("/phaselint"))
            .collect()
    }

    #[test]
    fn every_copy_of_the_repository_address_is_the_declared_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for file in [
            "Cargo.toml",
            "editors/zed/extension/extension.toml",
            "editors/vscode/package.json",
            "editors/vscode/README.md",
            "README.md",
            "docs/ci.md",
        ] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let addresses = repository_addresses(&text);
            assert!(
                !addresses.is_empty(),
                "{file} names no repository address ending in /phaselint"
            );
            for address in addresses {
                assert_eq!(address, REPOSITORY, "in {file}");
            }
        }
        assert!(rule_page_uri("R101").starts_with(REPOSITORY));
        assert!(rule_page_uri("R101").ends_with("/rules/R101.md"));
    }
}
