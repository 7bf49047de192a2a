//! `phaselint approve`: write one ApprovalRecord bound to the checkpoint's
//! current target digest, for `resume-check --approvals`; with
//! `--interactive`, walk the checkpoints that wait for approval (the queue
//! of `phaselint checkpoints`) on a terminal, showing each before asking.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::ValueEnum;
use phaselint_lint::input::Bound;
use phaselint_lint::resume::{
    ApprovalRecord, ApprovalSource, ApproverKind, ContextBinding, QueueRequest, Target,
    approval_question,
};
use phaselint_render::terminal::{block, inline};

use crate::atomic_write::write_atomically;
use crate::exit;
use crate::operator::{Answer, ask_about, ask_yes_no, confirm_irreversible};
use crate::resume::{NoVerdict, load_contract, parse_now, read_approvals, read_document};
use crate::shared_args::{ClockArgs, ConfigArgs};
use phaselint_lint::resume::request::{
    ApprovalAsk, ApprovalNotice, PreparedApproval, approval_record, prepare_approval,
};

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
    /// The checkpoint to approve resuming from (with --interactive: walk only this one).
    #[arg(long, value_name = "ID", required_unless_present = "interactive")]
    pub checkpoint: Option<String>,
    /// Who approves (a person's or an orchestrator's name).
    #[arg(long, value_name = "WHO")]
    pub by: String,
    /// What kind of approver `--by` is (with --interactive: a person, `human`).
    #[arg(long, value_enum, required_unless_present = "interactive")]
    pub policy: Option<ApproverArg>,
    /// A stale field this approval accepts; repeatable, or comma-separated
    /// (with --interactive, the fields stale in the context are shown and acknowledged).
    #[arg(
        long,
        value_name = "FIELD",
        value_delimiter = ',',
        conflicts_with = "interactive"
    )]
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
    /// Write the record to FILE (atomically) instead of standard output; with
    /// --interactive, add each approval to the list FILE holds.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Confirm approving a resume into an irreversible phase without a terminal
    /// (on a terminal a second, different confirmation is still asked).
    #[arg(long, conflicts_with = "interactive")]
    pub confirm_irreversible: bool,
    /// On a terminal, walk every checkpoint that waits for approval, in graph order:
    /// each is shown (request, scope, reversibility) before `y` approve, `n` deny,
    /// `d` detail, `?` help, `q` stop.
    #[arg(long)]
    pub interactive: bool,
    /// With --interactive: approvals already given (one ApprovalRecord or a list). Repeatable.
    #[arg(long, value_name = "FILE", requires = "interactive")]
    pub approvals: Vec<PathBuf>,
    /// With --interactive: a harness directory with `checkpoint-<id>.md` requests and grants.
    #[arg(long, value_name = "DIR", requires = "interactive")]
    pub harness_dir: Option<PathBuf>,
    /// With --interactive: an approval read from the context may satisfy a `human` policy.
    #[arg(long, requires = "interactive")]
    pub trust_context_approvals: bool,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

pub fn run(args: &ApproveArgs) -> u8 {
    let result = if args.interactive {
        approve_interactively(args)
    } else {
        approve(args)
    };
    match result {
        Ok(()) => exit::SUCCESS,
        Err(NoVerdict(message)) => {
            eprintln!("phaselint: error: {}", block(&message));
            exit::NO_VERDICT
        }
    }
}

fn approve(args: &ApproveArgs) -> Result<(), NoVerdict> {
    let (Some(checkpoint), Some(policy)) = (&args.checkpoint, args.policy) else {
        return Err(NoVerdict(
            "approve needs --checkpoint and --policy (or --interactive)".into(),
        ));
    };
    let now = parse_now(args.clock.now.as_deref())?;
    let (analysis, _) = load_contract(
        &args.contract,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    let kind = match policy {
        ApproverArg::Human => ApproverKind::Human,
        ApproverArg::Orchestrator => ApproverKind::Orchestrator,
    };
    let ask = ApprovalAsk {
        checkpoint_id: checkpoint,
        approved_by: &args.by,
        kind,
        acknowledged: &args.ack,
        notes: args.notes.clone(),
        now,
    };
    let mut read_context = || {
        let path = args.context.as_deref().unwrap_or(std::path::Path::new("-"));
        read_document(path, "context", Bound::Document).map_err(|NoVerdict(m)| m)
    };
    let prepared = prepare_approval(
        &analysis,
        &ask,
        args.context
            .as_ref()
            .map(|_| &mut read_context as &mut dyn FnMut() -> Result<serde_json::Value, String>),
        &mut |notice| match notice {
            ApprovalNotice::NotRequired => eprintln!(
                "phaselint: note: checkpoint `{checkpoint}` does not require approval; the record is written anyway"
            ),
            ApprovalNotice::BlockingAck(ack) => eprintln!(
                "phaselint: warning: `{}` is a blocking staleness check of checkpoint `{}`: the approval records the acknowledgement, but if the field is stale it still blocks the resume; refresh it, or recover it with `resume-check --recover-with`",
                inline(&ack),
                inline(checkpoint)
            ),
        },
    )?;
    let PreparedApproval {
        record,
        question,
        irreversible_into: into,
        irreversible_next,
    } = prepared;
    // The phase names come from the contract: shown on a terminal, escaped
    // (as before the request moved to the lint crate; tests/hostile_output.rs).
    let into = inline(&into).into_owned();
    // What is approved is shown before anything is recorded, on standard
    // error, terminal or not (INV-OI-001), from the same target and binding
    // the record is made of.
    phaselint_render::question_human(&question, &mut std::io::stderr().lock())
        .map_err(|e| format!("cannot show what is approved: {e}"))?;
    if !irreversible_next.is_empty() {
        if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            // On a terminal a person confirms twice, the second time with a
            // different question, even when --confirm-irreversible was given.
            let first = args.confirm_irreversible
                || ask_yes_no(&format!(
                    "Resuming past checkpoint `{}` runs {into}, whose side effects cannot be undone. Approve it?",
                    inline(checkpoint)
                ))
                .map_err(|e| format!("cannot ask for confirmation: {e}"))?;
            let second = first
                && confirm_irreversible(&irreversible_next)
                    .map_err(|e| format!("cannot ask for confirmation: {e}"))?;
            if !second {
                return Err(NoVerdict("not confirmed: no approval written".into()));
            }
        } else if !args.confirm_irreversible {
            return Err(NoVerdict(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}; pass --confirm-irreversible to approve it (or run on a terminal to confirm interactively)",
                record.checkpoint_id
            )));
        }
    }
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
                inline(&record.checkpoint_id),
                question.target_digest,
                inline(&path.display().to_string())
            );
        }
    }
    Ok(())
}

/// The records as an approvals file holds them: a JSON list.
fn records_text(records: &[ApprovalRecord]) -> Result<Vec<u8>, NoVerdict> {
    let mut text = Vec::new();
    phaselint_render::write_json_pretty(&mut text, &records)
        .map_err(|e| format!("cannot write the approvals: {e}"))?;
    text.push(b'\n');
    Ok(text)
}

/// `approve --interactive`: the checkpoints that wait for approval, in the
/// order `phaselint checkpoints` lists them, each shown before it is asked
/// about. An approval is written as soon as it is given (to `--output`,
/// added to the list there; or, at the end, to standard output as a list);
/// a denial records nothing and the walk moves on.
fn approve_interactively(args: &ApproveArgs) -> Result<(), NoVerdict> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(NoVerdict(
            "approve --interactive needs a terminal on standard input and standard error: a person answers each question; without one, approve a checkpoint with `phaselint approve --checkpoint ID --policy human --by WHO`".into(),
        ));
    }
    if args.policy == Some(ApproverArg::Orchestrator) {
        return Err(NoVerdict(
            "approve --interactive records a person's approvals: leave --policy out, or give --policy human".into(),
        ));
    }
    if args.by.trim().is_empty() {
        return Err(NoVerdict("--by must name the approver".into()));
    }
    let now = parse_now(args.clock.now.as_deref())?;
    let (analysis, settings) = load_contract(
        &args.contract,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    // Read once: what is shown, what is judged and what is bound all come
    // from this one value, whatever the paused run writes meanwhile.
    let context = match &args.context {
        Some(path) => Some(read_document(path, "context", Bound::Document)?),
        None => None,
    };
    if context.as_ref().is_some_and(|c| !c.is_object()) {
        return Err(NoVerdict("the context must be a mapping".into()));
    }
    let mut approvals = read_approvals(&args.approvals)?;
    // The list `--output` already holds counts as given, and is added to.
    let mut written: Vec<ApprovalRecord> = Vec::new();
    // Refused before anyone is asked, not after an approval was given: the
    // list is rewritten only where a regular file is (never through a link).
    if let Some(path) = &args.output
        && let Ok(meta) = path.symlink_metadata()
        && !meta.file_type().is_file()
    {
        return Err(NoVerdict(format!(
            "cannot add approvals to `{}`: it is not a regular file (a symbolic link, a directory or a device), and --output writes only regular files",
            path.display()
        )));
    }
    if let Some(path) = &args.output
        && path.symlink_metadata().is_ok()
    {
        let value = read_document(path, "approvals file (--output)", Bound::Approvals)?;
        written = phaselint_lint::resume::parse_records(&value).map_err(|e| {
            format!(
                "cannot add approvals to `{}`: it holds no list of ApprovalRecords: {e}",
                path.display()
            )
        })?;
        approvals.push(ApprovalSource::File {
            location: path.display().to_string(),
            records: written.clone(),
        });
    }
    let queue = crate::queue::judge(
        &analysis,
        QueueRequest {
            context: context.clone(),
            approvals,
            now,
            max_clock_skew: settings.max_clock_skew,
            trust_context_approvals: args.trust_context_approvals
                || settings.trust_context_approvals,
        },
        args.harness_dir.as_deref(),
    )?;
    if let Some(id) = &args.checkpoint
        && !queue.checkpoints.iter().any(|i| &i.checkpoint_id == id)
    {
        let known: Vec<&str> = queue
            .checkpoints
            .iter()
            .map(|i| i.checkpoint_id.as_str())
            .collect();
        return Err(NoVerdict(format!(
            "unknown checkpoint `{}`; checkpoints: {}",
            inline(id),
            inline(&phaselint_lint::diagnostic::code_list(known.iter()))
        )));
    }
    let waiting: Vec<_> = queue
        .checkpoints
        .iter()
        .filter(|i| i.pending)
        .filter(|i| {
            args.checkpoint
                .as_ref()
                .is_none_or(|c| c == &i.checkpoint_id)
        })
        .collect();
    // A checkpoint the resume check cannot judge is not asked about (no
    // approval would let it resume), but never passed over in silence.
    for item in queue.checkpoints.iter().filter(|i| {
        args.checkpoint
            .as_ref()
            .is_none_or(|c| c == &i.checkpoint_id)
    }) {
        if let Some(problem) = &item.no_verdict {
            eprintln!(
                "Not asked: checkpoint `{}` cannot be checked (resume-check gives no verdict there): {}",
                inline(&item.checkpoint_id),
                inline(problem)
            );
        }
    }
    let total = waiting.len();
    eprintln!(
        "{} {} for approval{}",
        phaselint_render::plural(total, "checkpoint", "checkpoints"),
        if total == 1 { "waits" } else { "wait" },
        if total == 0 { "." } else { ", in graph order:" }
    );
    let (mut approved, mut denied, mut skipped) = (Vec::new(), 0usize, 0usize);
    let mut stopped = false;
    for (n, item) in waiting.iter().enumerate() {
        let id = inline(&item.checkpoint_id).into_owned();
        eprintln!("\n[{}/{total}] checkpoint `{id}`", n + 1);
        let skip = |why: String| eprintln!("Skipped: {why}");
        if item.approval_state == phaselint_lint::resume::ApprovalState::Pending {
            skip(format!(
                "a harness request waits for its grant, which an approval written here does not lift; grant `checkpoint-{id}.md` in the harness"
            ));
            skipped += 1;
            continue;
        }
        let target =
            Target::find(&analysis, &item.checkpoint_id).map_err(|e| NoVerdict(e.to_string()))?;
        let irreversible_next = target.irreversible_next();
        if item
            .required_policy
            .is_some_and(|p| !ApproverKind::Human.satisfies(p))
        {
            skip(format!(
                "its approval_policy is `orchestrator`: a person's approval cannot satisfy it; `{id}` is approved by the orchestrator"
            ));
            skipped += 1;
            continue;
        }
        if !irreversible_next.is_empty() && context.is_none() {
            skip(format!(
                "a resume from `{id}` runs irreversible phase {}: approve it with the context it resumes with (--context FILE)",
                inline(&phaselint_lint::diagnostic::code_list(
                    irreversible_next.iter()
                ))
            ));
            skipped += 1;
            continue;
        }
        if item.approval_state == phaselint_lint::resume::ApprovalState::Rejected {
            eprintln!(
                "Approvals given so far do not hold: {}",
                inline(&item.approval_reason)
            );
        }
        for failure in item.failures.iter().filter(|f| **f != item.approval_reason) {
            eprintln!(
                "Also blocking the resume, whatever is approved: {}",
                inline(failure)
            );
        }
        let binding = context
            .as_ref()
            .map(|c| ContextBinding::of(&target.successor_phases(), c));
        let question = approval_question(
            &analysis,
            &item.checkpoint_id,
            binding.as_ref(),
            &item.stale_fields,
            now,
        )
        .map_err(|e| NoVerdict(e.to_string()))?;
        if question.target_digest != target.digest {
            return Err(NoVerdict(
                "the target digest shown is not the one the record would carry; nothing written"
                    .into(),
            ));
        }
        match ask_about(&question)? {
            Answer::Approve => {
                let record = approval_record(
                    &target,
                    &args.by,
                    ApproverKind::Human,
                    item.stale_fields.clone(),
                    Some(
                        args.notes
                            .clone()
                            .unwrap_or_else(|| "approved interactively".into()),
                    ),
                    binding.as_ref(),
                    now,
                );
                if let Some(path) = &args.output {
                    written.push(record.clone());
                    write_atomically(path, &records_text(&written)?)
                        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
                    eprintln!(
                        "Recorded: the approval of `{id}` (target digest {}) is added to {}",
                        target.digest,
                        inline(&path.display().to_string())
                    );
                } else {
                    eprintln!(
                        "Recorded: the approval of `{id}` (target digest {})",
                        target.digest
                    );
                }
                approved.push(record);
            }
            Answer::Deny => {
                eprintln!("Denied: nothing recorded for `{id}`");
                denied += 1;
            }
            Answer::Stop => {
                eprintln!("Stopped: nothing more is asked");
                stopped = true;
                break;
            }
        }
    }
    if args.output.is_none() {
        let mut out = std::io::stdout().lock();
        out.write_all(&records_text(&approved)?)
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write the approvals: {e}"))?;
    }
    let asked = approved.len() + denied + skipped;
    eprintln!(
        "\nApproved {}, denied {denied}, skipped {skipped}{} of {total} waiting.",
        approved.len(),
        if stopped {
            format!(", not asked {}", total - asked)
        } else {
            String::new()
        }
    );
    Ok(())
}
