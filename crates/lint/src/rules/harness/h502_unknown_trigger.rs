use crate::diagnostic::{Applicability, Severity};
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, HarnessContext, Rule};

pub(crate) static RULE: Rule = rule!(
    "H502",
    "unknown-trigger",
    Family::Harness,
    Severity::Error,
    "A harness checkpoint's triggerOn is not one the harness knows",
)
.fix(FixAvailability::Unsafe)
.points_at("the `triggerOn` value")
.check(Check::Harness(check));

const TRIGGERS: &[&str] = &["post-planner", "pre-done"];
const FEATURE_CLAIM: &str = "feature-claim";

/// `feature-claim:<area>`'s area: non-empty, `[a-z0-9_-]+`.
fn is_area(area: &str) -> bool {
    !area.is_empty()
        && area
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Whether the harness knows `trigger`.
pub(crate) fn is_known(trigger: &str) -> bool {
    TRIGGERS.contains(&trigger)
        || trigger
            .strip_prefix(FEATURE_CLAIM)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(is_area)
}

/// The known trigger `trigger` most likely means.
fn suggestion(trigger: &str) -> Option<String> {
    if let Some((prefix, area)) = trigger.split_once(':') {
        let area = area.trim().to_lowercase().replace(' ', "-");
        let claims =
            prefix == FEATURE_CLAIM || crate::suggest::closest(prefix, [FEATURE_CLAIM]).is_some();
        return (claims && is_area(&area)).then(|| format!("{FEATURE_CLAIM}:{area}"));
    }
    crate::suggest::closest(trigger, TRIGGERS.iter().copied()).map(str::to_string)
}

fn check(ctx: &HarnessContext<'_>, out: &mut Findings) {
    for trigger in ctx
        .config
        .checkpoints
        .iter()
        .filter_map(|c| c.trigger_on.as_ref())
    {
        let value = trigger.value.as_str();
        if is_known(value) {
            continue;
        }
        let message = match value.split_once(':') {
            Some((FEATURE_CLAIM, "")) => format!(
                "`{value}` names no area: after `feature-claim:` comes an area of lower-case letters, digits, `_` or `-`"
            ),
            Some((FEATURE_CLAIM, area)) => format!(
                "`{value}` has an invalid area `{area}`: an area is lower-case letters, digits, `_` or `-`"
            ),
            _ => format!(
                "unknown triggerOn `{value}`: the harness knows `post-planner`, `pre-done` and `feature-claim:<area>`"
            ),
        };
        let diagnostic = RULE.diagnostic(trigger.span, message);
        out.push(match suggestion(value) {
            Some(known) => {
                let mut diagnostic = diagnostic.with_help(format!("did you mean `{known}`?"));
                diagnostic.fix = crate::scalar_edit::fix(
                    format!("Replace with `{known}`"),
                    Applicability::Unsafe,
                    ctx.source,
                    trigger.span,
                    &known,
                ).map(Box::new);
                diagnostic
            }
            None => diagnostic.with_help(
                "use `post-planner`, `pre-done` or `feature-claim:<area>`, or remove triggerOn for a checkpoint taken on request",
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{is_known, suggestion};

    #[test]
    fn known_triggers_and_likely_meanings() {
        for known in [
            "post-planner",
            "pre-done",
            "feature-claim:auth",
            "feature-claim:a_b-9",
        ] {
            assert!(is_known(known), "{known}");
        }
        for unknown in [
            "post_planner",
            "feature-claim:",
            "feature-claim:Auth",
            "feature-claim",
            "done",
            "",
        ] {
            assert!(!is_known(unknown), "{unknown}");
        }
        assert_eq!(suggestion("post_planner").as_deref(), Some("post-planner"));
        assert_eq!(suggestion("pre-don").as_deref(), Some("pre-done"));
        assert_eq!(
            suggestion("feature_claim:auth").as_deref(),
            Some("feature-claim:auth")
        );
        assert_eq!(
            suggestion("feature-claim:Auth Flow").as_deref(),
            Some("feature-claim:auth-flow")
        );
        assert_eq!(suggestion("feature-claim:"), None);
        assert_eq!(suggestion("nightly"), None);
    }
}
