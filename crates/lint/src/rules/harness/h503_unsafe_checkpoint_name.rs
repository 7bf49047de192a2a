use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, HarnessContext, Rule};

pub(crate) static RULE: Rule = rule!(
    "H503",
    "unsafe-checkpoint-name",
    Family::Harness,
    Severity::Error,
    "A harness checkpoint's name cannot be part of a file name",
)
.points_at("the `name` value")
.check(Check::Harness(check));

const MAX_CHARACTERS: usize = 100;

fn is_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// Why `name` cannot be `.harness/checkpoint-<name>.md`, if it cannot.
pub(crate) fn problem(name: &str) -> Option<String> {
    if let Some(bad) = name.chars().find(|&c| !is_safe(c)) {
        return Some(format!(
            "{} is not a letter, digit, `.`, `_` or `-`",
            match bad {
                ' ' => "a space".to_string(),
                '/' => "`/` (a folder separator)".to_string(),
                c if c.is_control() => format!("the control character U+{:04X}", c as u32),
                c => format!("`{c}`"),
            }
        ));
    }
    if name.starts_with('.') {
        return Some("it starts with `.`, which hides the file and allows `..`".into());
    }
    let characters = name.chars().count();
    (characters > MAX_CHARACTERS)
        .then(|| format!("it is {characters} characters long, over {MAX_CHARACTERS}"))
}

fn check(ctx: &HarnessContext<'_>, out: &mut Findings) {
    for name in ctx
        .config
        .checkpoints
        .iter()
        .filter_map(|c| c.name.as_ref())
    {
        let Some(problem) = problem(&name.value) else {
            continue;
        };
        // The name's words, joined by `-`: `../../escape` becomes `escape`.
        let words: Vec<&str> = name
            .value
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let safe: String = words.join("-").chars().take(MAX_CHARACTERS).collect();
        out.push(
            RULE.diagnostic(
                name.span,
                format!(
                    "checkpoint name `{}` cannot be a file name: the harness writes `.harness/checkpoint-<name>.md`, and {problem}",
                    name.value.escape_debug()
                ),
            )
            .with_help(if safe.is_empty() {
                "use only letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters".to_string()
            } else {
                format!("use only letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters, for example `{safe}`")
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn file_safe_names() {
        for safe in ["review", "pre-done.v2", "A_b-9", &"x".repeat(100)] {
            assert_eq!(problem(safe), None, "{safe}");
        }
        for unsafe_name in [
            "my review",
            "../etc",
            "a/b",
            ".hidden",
            "naïve",
            "tab\there",
            &"x".repeat(101),
        ] {
            assert!(problem(unsafe_name).is_some(), "{unsafe_name}");
        }
    }
}
