use std::collections::HashMap;

use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, HarnessContext, Rule};

pub(crate) static RULE: Rule = rule!(
    "H501",
    "duplicate-checkpoint-name",
    Family::Harness,
    Severity::Error,
    "Two checkpoint types of a harness config have the same name",
)
.points_at("the second `name` value")
.check(Check::Harness(check));

fn check(ctx: &HarnessContext<'_>, out: &mut Findings) {
    let mut first_seen: HashMap<&str, crate::syntax::Span> = HashMap::new();
    for name in ctx
        .config
        .checkpoints
        .iter()
        .filter_map(|c| c.name.as_ref())
    {
        match first_seen.get(name.value.as_str()) {
            Some(&first) => out.push(
                RULE.diagnostic(
                    name.span,
                    format!(
                        "checkpoint name `{}` is declared twice; both would be `.harness/checkpoint-{}.md`, so one checkpoint's approval would count for the other",
                        name.value, name.value
                    ),
                )
                .with_related(first, "first declared here")
                .with_help("rename one of them, or remove the duplicate entry"),
            ),
            None => {
                first_seen.insert(&name.value, name.span);
            }
        }
    }
}
