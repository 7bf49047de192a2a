//! Why a resume check gives no verdict, and how its messages list names.

/// Why no verdict could be given. Every one of these must stop a resume.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("the contract has errors, so no resume verdict can be given: {}", findings.join("; "))]
    ContractHasErrors { findings: Vec<String> },
    #[error("unknown checkpoint `{id}`; {}", list("checkpoints", known))]
    UnknownCheckpoint { id: String, known: Vec<String> },
    #[error("checkpoint `{id}` cannot be checked: {problem}")]
    InvalidCheckpoint { id: String, problem: String },
    #[error(
        "next phase `{name}` is not a declared phase; {}",
        list("phases", known)
    )]
    UnknownPhase { name: String, known: Vec<String> },
    #[error(
        "`{name}` is not a phase the run can resume into from phase `{phase}`: {}",
        if successors.is_empty() {
            format!("`{phase}` has no successor, so nothing follows the checkpoint")
        } else {
            format!("its successors are {}; name one of them, or leave --next-phase out to check them all", crate::diagnostic::code_list(successors.iter()))
        }
    )]
    NotASuccessor {
        name: String,
        phase: String,
        successors: Vec<String>,
    },
    #[error("the context must be a mapping, found {found}")]
    ContextNotMapping { found: &'static str },
    #[error("malformed context: {message}")]
    MalformedContext { message: String },
    #[error("malformed approval in {location}: {message}")]
    MalformedApproval { location: String, message: String },
    #[error(
        "more than {limit} approval records were presented for one checkpoint (the context's and every --approvals file's together); a resume is approved by one valid record, so keep the ones that apply"
    )]
    TooManyApprovals { limit: usize },
    #[error("cannot re-read the context after recovery: {0}")]
    Reread(String),
    #[error("cannot ask the operator for approval: {0}")]
    Operator(String),
    #[error(
        "the entry check would visit more than {visits} values of the context (wildcard entry fields over a large context); no verdict is given rather than run on"
    )]
    TooMuchWork { visits: u64 },
    #[error(
        "the phases the run resumes into have {count} entry fields; the resume check reads at most {limit}, and gives no verdict rather than run on"
    )]
    TooManyEntryFields { count: usize, limit: usize },
}

/// How many names a message lists before "and N more".
const LISTED: usize = 50;

fn list(what: &str, items: &[String]) -> String {
    if items.is_empty() {
        return format!("the contract declares no {what}");
    }
    let listed = crate::diagnostic::code_list(items.iter().take(LISTED));
    match items.len().saturating_sub(LISTED) {
        0 => format!("{what}: {listed}"),
        more => format!("{what}: {listed} and {more} more"),
    }
}

/// Lists findings for a message: the first `LISTED`, then how many more.
pub fn first_findings(findings: impl ExactSizeIterator<Item = String>) -> Vec<String> {
    let total = findings.len();
    let mut listed: Vec<String> = findings.take(LISTED).collect();
    if total > LISTED {
        listed.push(format!("and {} more", total - LISTED));
    }
    listed
}
