//! `phaselint approve`: write one ApprovalRecord bound to the checkpoint's
//! current target digest, for `resume-check --approvals`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::ValueEnum;
use phaselint_lint::input::Bound;
use phaselint_lint::model::EnumValue;
use phaselint_lint::resume::{
    ApprovalRecord, ApproverKind, ContextBinding, Target, required_policy,
};
use phaselint_render::terminal::{block, inline};

use crate::atomic_write::write_atomically;
use crate::exit;
use crate::resume::{NoVerdict, ask_yes_no, load_contract, parse_now, read_document};
use crate::{ClockArgs, ConfigArgs};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ApproverArg {
    /// A person approves.
    Human,
    /// The orchestrator (an automated approver) approves.
    Orchestrator,
}

#[derive(clap::Args)]
pub struct ApproveArgs {
    /// The contract the run follows.
    #[arg(long, value_name = "FILE")]
    pub contract: PathBuf,
    /// The checkpoint to approve resuming from.
    #[arg(long, value_name = "ID")]
    pub checkpoint: String,
    /// Who approves (a person's or an orchestrator's name).
    #[arg(long, value_name = "WHO")]
    pub by: String,
    /// What kind of approver `--by` is.
    #[arg(long, value_enum)]
    pub policy: ApproverArg,
    /// A stale field this approval accepts; repeatable, or comma-separated.
    #[arg(long, value_name = "FIELD", value_delimiter = ',')]
    pub ack: Vec<String>,
    /// The context the run would resume with (JSON or YAML; `-` reads standard input):
    /// the approval is then bound to the values of the entry fields of the phases it
    /// resumes into, and refused if they change. Required when it resumes into an
    /// irreversible phase.
    #[arg(long, value_name = "FILE|-")]
    pub context: Option<PathBuf>,
    /// Free-form justification.
    #[arg(long, value_name = "TEXT")]
    pub notes: Option<String>,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// Write the record to FILE (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Confirm approving a checkpoint whose phase has irreversible side effects.
    #[arg(long)]
    pub confirm_irreversible: bool,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

pub fn run(args: &ApproveArgs) -> u8 {
    match approve(args) {
        Ok(()) => exit::SUCCESS,
        Err(NoVerdict(message)) => {
            eprintln!("phaselint: error: {}", block(&message));
            exit::NO_VERDICT
        }
    }
}

fn approve(args: &ApproveArgs) -> Result<(), NoVerdict> {
    let now = parse_now(args.clock.now.as_deref())?;
    let (analysis, _) = load_contract(
        &args.contract,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    let target = Target::find(&analysis, &args.checkpoint).map_err(|e| NoVerdict(e.to_string()))?;
    phaselint_lint::resume::check_entry_field_count(&target.successor_phases())
        .map_err(|e| NoVerdict(e.to_string()))?;
    if args.by.trim().is_empty() {
        return Err(NoVerdict("--by must name the approver".into()));
    }
    let kind = match args.policy {
        ApproverArg::Human => ApproverKind::Human,
        ApproverArg::Orchestrator => ApproverKind::Orchestrator,
    };
    let on_resume = &target.spec.on_resume;
    let irreversible_next = target.irreversible_next();
    let into = inline(&phaselint_lint::diagnostic::code_list(
        irreversible_next.iter(),
    ))
    .into_owned();
    match required_policy(on_resume, &irreversible_next) {
        Some(_) if !irreversible_next.is_empty() && kind != ApproverKind::Human => {
            return Err(NoVerdict(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}: only a person may approve it (--policy human)",
                target.checkpoint_id
            )));
        }
        Some(policy) if !kind.satisfies(policy) => {
            return Err(NoVerdict(format!(
                "checkpoint `{}` has approval_policy `{}`: an approval with --policy {} cannot satisfy it",
                target.checkpoint_id,
                policy.as_str(),
                kind.as_str()
            )));
        }
        None => eprintln!(
            "phaselint: note: checkpoint `{}` does not require approval; the record is written anyway",
            target.checkpoint_id
        ),
        Some(_) => {}
    }
    let context = match &args.context {
        Some(path) => Some(read_document(path, "context", Bound::Document)?),
        None if !irreversible_next.is_empty() => {
            return Err(NoVerdict(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}: approve it with the context it resumes with (--context FILE), so the approval covers those values and nothing wider",
                inline(&target.checkpoint_id)
            )));
        }
        None => None,
    };
    if context.as_ref().is_some_and(|c| !c.is_object()) {
        return Err(NoVerdict("the context must be a mapping".into()));
    }
    let binding = context
        .as_ref()
        .map(|c| ContextBinding::of(&target.successor_phases(), c));
    let watched: Vec<&str> = on_resume
        .staleness_checks
        .iter()
        .filter_map(|c| c.field.as_ref().map(|f| f.value.as_str()))
        .collect();
    let blocking = |field: &str| {
        on_resume
            .staleness_checks
            .iter()
            .any(|c| c.blocks() && c.field.as_ref().is_some_and(|f| f.value.as_str() == field))
    };
    let mut acks: Vec<String> = Vec::new();
    for ack in &args.ack {
        let ack = ack.trim();
        if !watched.contains(&ack) {
            return Err(NoVerdict(format!(
                "--ack `{ack}` is not a staleness-checked field of checkpoint `{}`; {}",
                target.checkpoint_id,
                if watched.is_empty() {
                    "it declares no staleness checks".to_string()
                } else {
                    format!(
                        "its fields: {}",
                        phaselint_lint::diagnostic::code_list(watched.iter())
                    )
                }
            )));
        }
        if acks.iter().any(|a| a == ack) {
            continue;
        }
        if blocking(ack) {
            eprintln!(
                "phaselint: warning: `{}` is a blocking staleness check of checkpoint `{}`: the approval records the acknowledgement, but if the field is stale it still blocks the resume; refresh it, or recover it with `resume-check --recover-with`",
                inline(ack),
                inline(&target.checkpoint_id)
            );
        }
        acks.push(ack.to_string());
    }
    if !irreversible_next.is_empty() && !args.confirm_irreversible {
        let question = format!(
            "Resuming past checkpoint `{}` runs {into}, whose side effects cannot be undone. Approve it?",
            inline(&target.checkpoint_id)
        );
        let confirmed = if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            ask_yes_no(&question).map_err(|e| format!("cannot ask for confirmation: {e}"))?
        } else {
            return Err(NoVerdict(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}; pass --confirm-irreversible to approve it (or run on a terminal to confirm interactively)",
                target.checkpoint_id
            )));
        };
        if !confirmed {
            return Err(NoVerdict("not confirmed: no approval written".into()));
        }
    }
    let record = ApprovalRecord {
        approved_by: args.by.trim().to_string(),
        approved_at: now.to_string(),
        policy: kind.as_str().to_string(),
        checkpoint_id: target.checkpoint_id.clone(),
        stale_fields_acknowledged: acks,
        notes: args.notes.clone(),
        target_digest: Some(target.digest.clone()),
        context_digest: binding.as_ref().map(|b| b.digest.clone()),
        context_field_digests: binding.map(|b| b.field_digests),
    };
    let mut text = Vec::new();
    phaselint_render::write_json_pretty(&mut text, &record)
        .map_err(|e| format!("cannot write the approval: {e}"))?;
    text.push(b'\n');
    match &args.output {
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&text)
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write the approval: {e}"))?;
        }
        Some(path) => {
            write_atomically(path, &text)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
            let context = record
                .context_digest
                .as_ref()
                .map_or(String::new(), |d| format!(", context digest {d}"));
            eprintln!(
                "phaselint: wrote the approval of checkpoint `{}` (target digest {}{context}) to {}",
                inline(&target.checkpoint_id),
                target.digest,
                inline(&path.display().to_string())
            );
        }
    }
    Ok(())
}
