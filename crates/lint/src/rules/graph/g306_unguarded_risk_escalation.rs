use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::EnumValue;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G306",
    "unguarded-risk-escalation",
    Family::Graph,
    Severity::Warning,
    "An edge raises the risk class with no approval gate before it",
)
.needs(&[Need::CompleteTopology])
.points_at("the higher-risk phase's `risk_class` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let phases = &ctx.contract.phases;
    let mut edges: Vec<(usize, usize)> = ctx
        .graph
        .edges()
        .map(|(from, to, _)| (from, to))
        .filter(|&(from, to)| phases[to].risk() > phases[from].risk())
        .collect();
    // Two topology edges between the same phases are one escalation.
    edges.sort_unstable_by_key(|&(from, to)| (to, from));
    edges.dedup();
    for (from, to) in edges {
        let gated = ctx
            .checkpoints_on(from)
            .iter()
            .any(|c| c.on_resume.approval_required());
        // A risk above `low` is written, so the span exists.
        let (Some(risk), false) = (phases[to].risk_class(), gated) else {
            continue;
        };
        let (before, after) = (&phases[from], &phases[to]);
        out.push(
            RULE.diagnostic(
                risk.span,
                format!(
                    "`{}` raises the risk from `{}` (in `{}`) to `{}` with no approval gate between them",
                    after.name,
                    before.risk().as_str(),
                    before.name,
                    after.risk().as_str()
                ),
            )
            .with_related(before.name_span, format!("the phase before it, at risk `{}`", before.risk().as_str()))
            .with_help(match ctx.checkpoints_on(from).first().and_then(|c| c.checkpoint_id.as_ref()) {
                Some(id) => format!(
                    "set `approval_required: true` and an `approval_policy` in the on_resume of checkpoint `{}` (on `{}`)",
                    id.value, before.name
                ),
                None => format!(
                    "add a checkpoint_integrity entry with `phase: {}` and `on_resume: {{approval_required: true, approval_policy: human}}`",
                    before.name
                ),
            }),
        );
    }
}
