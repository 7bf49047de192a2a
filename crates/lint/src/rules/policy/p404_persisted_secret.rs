use crate::diagnostic::Severity;
use crate::field_path::FieldPath;
use crate::findings::Findings;
use crate::model::Spanned;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "P404",
    "persisted-secret",
    Family::Policy,
    Severity::Warning,
    "A field that looks like a secret is persisted by a checkpoint",
)
.points_at("the staleness check's `field` value, or the exit field's `name` value")
.check(Check::Contract(check));

/// Last words that name a secret on their own.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "credential",
    "credentials",
    "apikey",
];

/// Last two words that name a secret together.
const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("private", "key"),
    ("access", "key"),
    ("secret", "key"),
    ("client", "secret"),
];

/// Whether a field name looks like a secret (rules/P404.md): the words of
/// its last dotted segment, split at `_`, `-` and lower-to-upper case
/// changes, end with a secret word or pair.
pub(crate) fn looks_like_secret(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let words = words(last);
    match words.as_slice() {
        [.., before, last] if SECRET_PAIRS.contains(&(before.as_str(), last.as_str())) => true,
        [.., last] => SECRET_WORDS.contains(&last.as_str()),
        [] => false,
    }
}

/// `githubToken` → `github`, `token`; `db_password` → `db`, `password`.
fn words(segment: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in segment.chars() {
        if c == '_' || c == '-' {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let mut report = |name: &Spanned<FieldPath>, why: String| {
        if looks_like_secret(name.value.as_str()) {
            out.push(
                RULE.diagnostic(
                    name.span,
                    format!("`{}` looks like a secret, and {why}", name.value.as_str()),
                )
                .with_help(
                    "keep secrets out of the checkpointed context: pass a reference (a vault path or secret name) instead, and fetch the value when it is needed",
                ),
            );
        }
    };
    for checkpoint in &contract.checkpoints {
        let id = checkpoint
            .checkpoint_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        for staleness in &checkpoint.on_resume.staleness_checks {
            if let Some(field) = &staleness.field {
                report(
                    field,
                    format!(
                        "checkpoint `{id}` watches it, so its value is persisted with the checkpoint"
                    ),
                );
            }
        }
    }
    for (index, phase) in contract.phases.iter().enumerate() {
        if !ctx.is_checkpointed(index) {
            continue;
        }
        let persisted_by = match ctx.checkpoints_on(index).first() {
            Some(checkpoint) => format!(
                "checkpoint `{}`",
                checkpoint
                    .checkpoint_id
                    .as_ref()
                    .map_or("(unnamed)", |c| c.value.as_str())
            ),
            None => "the checkpoint that `checkpoint_mode: always` takes".to_string(),
        };
        for field in phase.exit_fields() {
            report(
                &field.name,
                format!(
                    "`{}` produces it before {persisted_by}, which persists the context",
                    phase.name
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::looks_like_secret;

    #[test]
    fn secret_names_are_told_from_their_look_alikes() {
        for secret in [
            "auth.api_key",
            "githubToken",
            "db_password",
            "DB_PASSWORD",
            "smtp.passwd",
            "client-secret",
            "aws.secret_access_key",
            "signing.private_key",
            "apikey",
            "APIKey",
            "oauth.clientSecret",
            "service_credentials",
            "vault.secret",
        ] {
            assert!(looks_like_secret(secret), "{secret}");
        }
        for plain in [
            "max_tokens",
            "token_count",
            "tokens_used",
            "password_policy",
            "secret_name",
            "keyboard",
            "api.key_id",
            "monkey",
            "tokenizer",
            "credential_ref",
            "*",
            "",
        ] {
            assert!(!looks_like_secret(plain), "{plain}");
        }
    }
}
