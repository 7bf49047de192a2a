//! The harness's own start-up check, natively: may a harness start again
//! after it paused at a named checkpoint? It needs no contract: the
//! harness config (`<harness-dir>/config.json`) says which checkpoints
//! exist, and the sentinel files say where each one stands — a pending
//! request without its grant is a pause (denied, exit 2), a request with a
//! grant that answers it may start (exit 0). `harness_status` lists every
//! declared checkpoint the same way, as a harness UI shows them.

use std::path::Path;
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use crate::model::{HarnessCheckpoint, HarnessConfig};
use crate::resume::approval::{ApprovalRecord, ApproverKind};
use crate::resume::harness::{
    GrantContent, GrantTiming, SentinelFile, SentinelFiles, grant_content, read_sentinels,
};
use crate::resume::report::{Decision, Mode, decide};
use crate::resume::staleness::parse_timestamp;

/// What a harness check needs besides the config and the files.
#[derive(Clone, Copy, Debug)]
pub struct HarnessInput {
    pub now: Timestamp,
    pub mode: Mode,
    /// Seconds a grant may be dated after now and still answer a request.
    pub max_clock_skew: u64,
}

/// Where a checkpoint stands, from its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SentinelState {
    /// No request, and not fired this mission.
    None,
    /// A request waits for a grant that answers it (and counts).
    Pending,
    /// A request and a grant that answers it and counts.
    Granted,
    /// No request now, but fired this mission (granted and consumed).
    Fired,
}

impl SentinelState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SentinelState::None => "none",
            SentinelState::Pending => "pending",
            SentinelState::Granted => "granted",
            SentinelState::Fired => "fired",
        }
    }
}

/// The report of a harness check, as `--format json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct HarnessReport {
    pub(crate) version: u32,
    pub(crate) kind: &'static str,
    pub checkpoint_id: String,
    pub harness_dir: String,
    pub decision: Decision,
    pub(crate) passed: bool,
    pub mode: Mode,
    #[serde(skip)]
    pub strict_decision: Decision,
    pub now: String,
    /// `checkpoints.enabled` is true: the harness itself gates on these files.
    pub(crate) checkpoints_enabled: bool,
    pub trigger_on: Option<String>,
    pub description: Option<String>,
    pub state: SentinelState,
    pub request: Option<RequestFile>,
    pub grant: Option<GrantFile>,
    pub fired: Option<FiredFile>,
    /// `--consume` removed the request and its grant.
    pub consumed: bool,
    /// What `--consume` found of an interrupted earlier one, and did.
    pub recovered: Option<String>,
    pub problems: Vec<String>,
    pub warnings: Vec<String>,
    pub next_steps: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RequestFile {
    pub path: String,
    pub modified: String,
    /// What the harness wrote for whoever grants it (lossy UTF-8).
    pub text: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct GrantFile {
    pub path: String,
    pub modified: String,
    pub(crate) timing: GrantTiming,
    /// `empty`, `text`, `document` or `records`; null when the grant was
    /// ignored unread (it answers no request).
    pub content_kind: Option<&'static str>,
    /// The text, the document as given, or the records; null when empty
    /// or unread.
    pub content: Value,
    /// Each record a grant holds, judged.
    pub records: Vec<JudgedRecord>,
    /// Whether the grant approves the request.
    pub counts: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct JudgedRecord {
    pub record: ApprovalRecord,
    pub valid: bool,
    pub problems: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FiredFile {
    pub path: String,
    pub modified: String,
    pub note: &'static str,
}

/// What the report says of a `.fired` marker.
pub(crate) const FIRED_NOTE: &str = "fired this mission: do not fire again";

/// A file's time as reports show it: RFC 3339 in UTC, to the second.
pub(crate) fn file_time(time: SystemTime) -> String {
    Timestamp::try_from(time)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| "(a time out of range)".into())
}

/// The declared checkpoint `name`: declared once, with a filename-safe
/// name. An undeclared name is refused with a did-you-mean.
pub fn find_checkpoint<'c>(
    config: &'c HarnessConfig,
    name: &str,
) -> Result<&'c HarnessCheckpoint, String> {
    let mut declared = config
        .checkpoints
        .iter()
        .filter(|c| c.name.as_ref().is_some_and(|n| n.value == name));
    let Some(found) = declared.next() else {
        let known: Vec<&str> = config.names().collect();
        let hint = match crate::suggest::closest(name, known.iter().copied()) {
            Some(close) => format!("; did you mean `{close}`?"),
            None if known.is_empty() => "; the config declares none".to_string(),
            None => format!(
                "; declared: {}",
                crate::diagnostic::code_list(known.iter().take(50))
            ),
        };
        return Err(format!(
            "checkpoint `{}` is not declared in the harness config's `checkpoints.types`{hint}",
            name.escape_debug()
        ));
    };
    if declared.next().is_some() {
        return Err(format!(
            "checkpoint `{name}` is declared twice in `checkpoints.types` (H501): both would be the same files, so neither can be checked"
        ));
    }
    Ok(found)
}

/// A record in a grant, judged without a contract: it must be a person's
/// approval of this checkpoint, dated no later than now. Its digests bind
/// it to a contract, which only a check with `--contract` can verify.
fn judge_record(record: ApprovalRecord, name: &str, now: Timestamp) -> JudgedRecord {
    let mut problems = Vec::new();
    if record.approved_by.trim().is_empty() {
        problems.push("approved_by is empty".to_string());
    }
    if record.checkpoint_id != name {
        problems.push(format!(
            "it approves checkpoint `{}`, not `{name}`",
            record.checkpoint_id
        ));
    }
    match ApproverKind::parse(&record.policy) {
        Some(ApproverKind::Human) => {}
        Some(ApproverKind::Orchestrator) => problems.push(
            "an orchestrator approval does not grant a harness checkpoint: it is a pause for a person".to_string(),
        ),
        None => problems.push(format!(
            "policy `{}` is not a kind of approver (human or orchestrator)",
            record.policy
        )),
    }
    match parse_timestamp(&record.approved_at) {
        Err(error) => problems.push(format!(
            "approved_at `{}` is not an RFC 3339 timestamp ({error})",
            record.approved_at
        )),
        Ok(at) if at > now => problems.push(format!(
            "approved_at {} is after now ({now})",
            record.approved_at
        )),
        Ok(_) => {}
    }
    JudgedRecord {
        valid: problems.is_empty(),
        problems,
        record,
    }
}

/// Checks the harness checkpoint `name` from its files: may the harness
/// start? An error is no verdict (an undeclared or unsafe name, an
/// unreadable or hostile sentinel, an interrupted consume).
pub fn check_harness(
    config: &HarnessConfig,
    files: &impl SentinelFiles,
    dir: &Path,
    name: &str,
    input: &HarnessInput,
) -> Result<HarnessReport, String> {
    let checkpoint = find_checkpoint(config, name)?;
    let sentinels = read_sentinels(files, dir, name)?;
    let paths = &sentinels.paths;
    let shown = |path: &Path| path.display().to_string();
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut next_steps = Vec::new();
    let enabled = config.checkpoints_enabled();
    if !enabled {
        warnings.push(
            "the harness config does not set `checkpoints.enabled: true`: the harness itself neither writes nor waits for these files; phaselint answers from them all the same".to_string(),
        );
    }

    let request = sentinels.request.as_ref().map(|file| RequestFile {
        path: shown(&paths.request),
        modified: file_time(file.modified),
        text: String::from_utf8_lossy(&file.bytes).into_owned(),
    });
    let grant = match &sentinels.grant {
        None => None,
        Some(file) => Some(judge_grant(
            file,
            sentinels.request.as_ref(),
            &paths.grant,
            &paths.request,
            name,
            input,
            &mut warnings,
        )?),
    };
    let fired = sentinels.fired.as_ref().map(|file| FiredFile {
        path: shown(&paths.fired),
        modified: file_time(file.modified),
        note: FIRED_NOTE,
    });

    let granted = grant.as_ref().is_some_and(|g| g.counts);
    let state = match (&request, granted, &fired) {
        (Some(_), true, _) => SentinelState::Granted,
        (Some(_), false, _) => SentinelState::Pending,
        (None, _, Some(_)) => SentinelState::Fired,
        (None, _, None) => SentinelState::None,
    };
    let approval_missing = state == SentinelState::Pending;
    if approval_missing {
        problems.push(format!(
            "checkpoint `{name}` is pending: `{}` has no grant that answers it, so the harness does not start",
            paths.request.display()
        ));
    }
    let (passed, strict_decision, decision) = decide(false, approval_missing, input.mode);
    match state {
        SentinelState::Pending if decision == Decision::Resume => next_steps.push(format!(
            "mode {}: the harness may start, but strict mode would have denied it; grant `{}` first",
            input.mode.as_str(),
            paths.request.display()
        )),
        SentinelState::Pending => next_steps.push(format!(
            "read the request above; to grant it, `touch {}` (or grant it in the harness UI), then check again",
            paths.grant.display()
        )),
        SentinelState::Granted => next_steps.push(format!(
            "the harness may start: remove `{}` and `{}` as its start-up does (`--consume` does it atomically)",
            paths.request.display(),
            paths.grant.display()
        )),
        SentinelState::Fired | SentinelState::None => next_steps.push(format!(
            "nothing is pending for checkpoint `{name}`: the harness may start"
        )),
    }
    Ok(HarnessReport {
        version: 1,
        kind: "harness",
        checkpoint_id: name.to_string(),
        harness_dir: shown(dir),
        decision,
        passed,
        mode: input.mode,
        strict_decision,
        now: input.now.to_string(),
        checkpoints_enabled: enabled,
        trigger_on: checkpoint.trigger_on.as_ref().map(|t| t.value.clone()),
        description: checkpoint.description.as_ref().map(|d| d.value.clone()),
        state,
        request,
        grant,
        fired,
        consumed: false,
        recovered: None,
        problems,
        warnings,
        next_steps,
    })
}

impl HarnessReport {
    /// `--consume` removed the request and its grant.
    pub fn mark_consumed(&mut self) {
        self.consumed = true;
        let fired = if self.fired.is_some() {
            format!(
                "; checkpoint `{}` stays fired this mission",
                self.checkpoint_id
            )
        } else {
            String::new()
        };
        self.next_steps = vec![format!(
            "the harness may start: the request and its grant are consumed{fired}"
        )];
    }
}

/// A grant: whether it answers its request, what it holds, and whether it
/// counts. Content that cannot be read is no verdict.
fn judge_grant(
    file: &SentinelFile,
    request: Option<&SentinelFile>,
    path: &Path,
    request_path: &Path,
    name: &str,
    input: &HarnessInput,
    warnings: &mut Vec<String>,
) -> Result<GrantFile, String> {
    let timing = GrantTiming::of(request, file, input.now, input.max_clock_skew);
    let mut grant = GrantFile {
        path: path.display().to_string(),
        modified: file_time(file.modified),
        timing,
        content_kind: None,
        content: Value::Null,
        records: Vec::new(),
        counts: false,
    };
    if timing != GrantTiming::Answers {
        warnings.push(timing.reason(path, request_path));
        return Ok(grant);
    }
    let content = grant_content(&file.bytes)
        .map_err(|e| format!("cannot read the harness grant `{}`: {e}", path.display()))?;
    match content {
        GrantContent::Empty => {
            grant.content_kind = Some("empty");
            grant.counts = true;
        }
        GrantContent::Text(text) => {
            grant.content_kind = Some("text");
            grant.content = Value::String(text);
            grant.counts = true;
        }
        GrantContent::Document(value) => {
            grant.content_kind = Some("document");
            grant.content = value;
            grant.counts = true;
        }
        GrantContent::Records(records) => {
            grant.content_kind = Some("records");
            grant.content = serde_json::to_value(&records).unwrap_or(Value::Null);
            grant.records = records
                .into_iter()
                .map(|r| judge_record(r, name, input.now))
                .collect();
            grant.counts = grant.records.iter().any(|r| r.valid);
            if grant.records.iter().any(|r| {
                r.valid && (r.record.target_digest.is_some() || r.record.context_digest.is_some())
            }) {
                warnings.push(format!(
                    "the record in `{}` carries a target or context digest, which binds it to a contract checkpoint; without --contract it is not checked",
                    path.display()
                ));
            }
            if !grant.counts {
                let why: Vec<String> = grant
                    .records
                    .iter()
                    .map(|r| format!("by `{}`: {}", r.record.approved_by, r.problems.join("; ")))
                    .collect();
                warnings.push(format!(
                    "the grant `{}` holds no valid record, so it does not count: {}",
                    path.display(),
                    why.join(" | ")
                ));
            }
        }
    }
    Ok(grant)
}

/// Every declared checkpoint and where it stands, as a harness UI lists
/// them (`phaselint harness status`).
#[derive(Clone, Debug, Serialize)]
pub struct HarnessStatus {
    pub(crate) version: u32,
    pub(crate) kind: &'static str,
    pub harness_dir: String,
    pub checkpoints_enabled: bool,
    pub checkpoints: Vec<StatusRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StatusRow {
    pub name: String,
    pub trigger_on: Option<String>,
    pub(crate) description: Option<String>,
    /// `none`, `pending`, `granted`, `fired`, or `error` when its files
    /// cannot be read (then `error` says why).
    pub state: &'static str,
    pub(crate) fired: bool,
    pub requested_at: Option<String>,
    pub granted_at: Option<String>,
    pub fired_at: Option<String>,
    /// Whether a grant is there but does not count (ignored or invalid).
    pub grant_ignored: bool,
    pub error: Option<String>,
}

impl HarnessStatus {
    /// Whether some checkpoint's files could not be read.
    pub fn has_errors(&self) -> bool {
        self.checkpoints.iter().any(|c| c.error.is_some())
    }
}

/// Lists every declared checkpoint with its state, read as `check_harness`
/// reads it, so the list and the start-up check never disagree.
pub fn harness_status(
    config: &HarnessConfig,
    files: &impl SentinelFiles,
    dir: &Path,
    input: &HarnessInput,
) -> HarnessStatus {
    let checkpoints = config
        .checkpoints
        .iter()
        .filter_map(|c| c.name.as_ref().map(|n| (c, n.value.as_str())))
        .map(|(c, name)| {
            let row = StatusRow {
                name: name.to_string(),
                trigger_on: c.trigger_on.as_ref().map(|t| t.value.clone()),
                description: c.description.as_ref().map(|d| d.value.clone()),
                state: "error",
                fired: false,
                requested_at: None,
                granted_at: None,
                fired_at: None,
                grant_ignored: false,
                error: None,
            };
            match check_harness(config, files, dir, name, input) {
                Ok(report) => StatusRow {
                    state: report.state.as_str(),
                    fired: report.fired.is_some(),
                    requested_at: report.request.map(|r| r.modified),
                    grant_ignored: report.grant.as_ref().is_some_and(|g| !g.counts),
                    granted_at: report.grant.map(|g| g.modified),
                    fired_at: report.fired.map(|f| f.modified),
                    ..row
                },
                Err(error) => StatusRow {
                    error: Some(error),
                    ..row
                },
            }
        })
        .collect();
    HarnessStatus {
        version: 1,
        kind: "harness_status",
        harness_dir: dir.display().to_string(),
        checkpoints_enabled: config.checkpoints_enabled(),
        checkpoints,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::resume::harness::tests::{Files, now};

    fn config(json: &str) -> HarnessConfig {
        let analysis = crate::analyze_kind(
            json,
            crate::DocumentKind::Harness,
            &crate::config::Settings::default(),
        );
        analysis.into_harness().unwrap()
    }

    fn two_types() -> HarnessConfig {
        config(
            r#"{"checkpoints": {"enabled": true, "types": [{"name": "plan-approved", "triggerOn": "post-planner", "description": "Approve the plan"}, {"name": "pre-deploy"}]}}"#,
        )
    }

    fn input(mode: Mode) -> HarnessInput {
        HarnessInput {
            now: now(),
            mode,
            max_clock_skew: 300,
        }
    }

    fn check(files: &[(&str, Option<&str>)], mode: Mode) -> Result<HarnessReport, String> {
        check_harness(
            &two_types(),
            &Files::new(files),
            Path::new("/h"),
            "plan-approved",
            &input(mode),
        )
    }

    const REQUEST: (&str, Option<&str>) = ("checkpoint-plan-approved.md", Some("# Plan\nplease"));
    const GRANT: &str = "checkpoint-plan-approved.md.granted";

    #[test]
    fn a_pending_request_pauses_and_its_grant_lets_the_harness_start() {
        let pending = check(&[REQUEST], Mode::Strict).unwrap();
        assert_eq!(pending.decision, Decision::Denied);
        assert_eq!(pending.state, SentinelState::Pending);
        assert_eq!(pending.request.unwrap().text, "# Plan\nplease");
        for text in ["", "approved by alice", r#"{"grantedBy":"alice"}"#] {
            let granted = check(&[REQUEST, (GRANT, Some(text))], Mode::Strict).unwrap();
            assert_eq!(granted.decision, Decision::Resume, "{text}");
            assert_eq!(granted.state, SentinelState::Granted);
        }
        let audit = check(&[REQUEST], Mode::Audit).unwrap();
        assert_eq!(audit.decision, Decision::Resume);
        assert_eq!(audit.strict_decision, Decision::Denied);
    }

    #[test]
    fn nothing_pending_or_only_fired_starts() {
        let none = check(&[], Mode::Strict).unwrap();
        assert_eq!(
            (none.decision, none.state),
            (Decision::Resume, SentinelState::None)
        );
        let fired = check(
            &[(".checkpoint-plan-approved.fired", Some("fired"))],
            Mode::Strict,
        )
        .unwrap();
        assert_eq!(fired.state, SentinelState::Fired);
        assert_eq!(fired.fired.unwrap().note, FIRED_NOTE);
        let orphan = check(&[(GRANT, Some(""))], Mode::Strict).unwrap();
        assert_eq!(orphan.decision, Decision::Resume);
        assert!(
            orphan.warnings[0].contains("has no request"),
            "{:?}",
            orphan.warnings
        );
        let older = check(&[(GRANT, Some("")), REQUEST], Mode::Strict).unwrap();
        assert_eq!(older.decision, Decision::Denied);
        assert!(!older.grant.unwrap().counts);
    }

    #[test]
    fn a_record_in_a_grant_is_judged_as_one() {
        let record = |by: &str, policy: &str, id: &str, at: &str| {
            format!(
                r#"{{"approved_by": "{by}", "approved_at": "{at}", "policy": "{policy}", "checkpoint_id": "{id}"}}"#
            )
        };
        let good = record("ana", "human", "plan-approved", "1970-01-01T00:10:00Z");
        let report = check(&[REQUEST, (GRANT, Some(&good))], Mode::Strict).unwrap();
        assert_eq!(report.decision, Decision::Resume);
        for (bad, why) in [
            (
                record(
                    "ana",
                    "orchestrator",
                    "plan-approved",
                    "1970-01-01T00:10:00Z",
                ),
                "orchestrator approval",
            ),
            (
                record("ana", "human", "pre-deploy", "1970-01-01T00:10:00Z"),
                "not `plan-approved`",
            ),
            (
                record("ana", "human", "plan-approved", "2030-01-01T00:00:00Z"),
                "after now",
            ),
        ] {
            let report = check(&[REQUEST, (GRANT, Some(&bad))], Mode::Strict).unwrap();
            assert_eq!(report.decision, Decision::Denied, "{bad}");
            let grant = report.grant.unwrap();
            assert!(
                grant.records[0].problems.join(" ").contains(why),
                "{grant:?}"
            );
        }
        let unknown_key = r#"{"approved_by": "ana", "grantedBy": "x"}"#;
        let error = check(&[REQUEST, (GRANT, Some(unknown_key))], Mode::Strict).unwrap_err();
        assert!(error.contains("cannot read the harness grant"), "{error}");
    }

    #[test]
    fn an_undeclared_or_doubly_declared_name_is_no_verdict() {
        let files = Files::new(&[]);
        let typo = check_harness(
            &two_types(),
            &files,
            Path::new("/h"),
            "plan-aproved",
            &input(Mode::Strict),
        )
        .unwrap_err();
        assert!(typo.contains("did you mean `plan-approved`?"), "{typo}");
        let escape = check_harness(
            &two_types(),
            &files,
            Path::new("/h"),
            "../plan-approved",
            &input(Mode::Strict),
        )
        .unwrap_err();
        assert!(escape.contains("is not declared"), "{escape}");
        let twice = config(r#"{"checkpoints": {"types": [{"name": "a"}, {"name": "a"}]}}"#);
        let error =
            check_harness(&twice, &files, Path::new("/h"), "a", &input(Mode::Strict)).unwrap_err();
        assert!(error.contains("declared twice"), "{error}");
        let unsafe_name = config(r#"{"checkpoints": {"types": [{"name": "../up"}]}}"#);
        let error = check_harness(
            &unsafe_name,
            &files,
            Path::new("/h"),
            "../up",
            &input(Mode::Strict),
        )
        .unwrap_err();
        assert!(error.contains("cannot name a harness sentinel"), "{error}");
    }

    #[test]
    fn status_lists_every_checkpoint_as_the_check_reads_it() {
        let files = Files::new(&[
            REQUEST,
            (GRANT, Some("")),
            (".checkpoint-plan-approved.fired", Some("")),
            ("checkpoint-pre-deploy.md", None),
        ]);
        let status = harness_status(&two_types(), &files, Path::new("/h"), &input(Mode::Strict));
        assert!(status.checkpoints_enabled);
        let states: Vec<&str> = status.checkpoints.iter().map(|c| c.state).collect();
        assert_eq!(states, ["granted", "error"]);
        assert!(status.checkpoints[0].fired);
        assert!(status.has_errors());
        assert!(
            status.checkpoints[1]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("symbolic link"))
        );
    }
}
