//! How a resume check answers: a verdict printed with its exit code, or
//! no verdict (exit 3) with the reason; shared with the harness.

use std::io::Write;

use phaselint_lint::resume;

use super::args::{ResumeCheckArgs, ResumeFormat};
use super::inputs::NoVerdict;
use crate::exit;

/// No verdict: the reason on stderr (and as JSON on stdout with
/// `--format json`), exit 3.
pub(crate) fn no_verdict(args: &ResumeCheckArgs, message: &str) -> u8 {
    crate::telemetry::record_no_verdict(message);
    eprintln!(
        "phaselint: error: {}",
        phaselint_render::terminal::block(message)
    );
    eprintln!("phaselint: no resume verdict (exit 3): the run must not resume");
    if args.format == ResumeFormat::Json {
        /// The no-verdict answer, its keys in the documented order.
        #[derive(serde::Serialize)]
        struct NoVerdictJson<'a> {
            version: u32,
            decision: Option<&'a str>,
            error: &'a str,
        }
        let answer = NoVerdictJson {
            version: 1,
            decision: None,
            error: message,
        };
        let mut out = std::io::stdout().lock();
        let _ = phaselint_render::write_json_pretty(&mut out, &answer).and_then(|()| writeln!(out));
    }
    exit::NO_VERDICT
}

/// Prints a verdict (JSON or human) and returns its exit code; a failure
/// to reach one is exit 3 with the reason, in JSON too.
pub(crate) fn answer<R: serde::Serialize + Verdict>(
    args: &ResumeCheckArgs,
    report: Result<R, NoVerdict>,
    human: impl FnOnce(&R, &mut std::io::StdoutLock<'_>) -> std::io::Result<()>,
) -> u8 {
    match report {
        Ok(report) => {
            crate::telemetry::record_report(|| report.telemetry());
            let mut out = std::io::stdout().lock();
            let printed = match args.format {
                ResumeFormat::Json | ResumeFormat::Contextcore => {
                    phaselint_render::write_json_pretty(&mut out, &report)
                        .and_then(|()| writeln!(out))
                }
                ResumeFormat::Human => human(&report, &mut out),
            };
            if let Err(e) = crate::stdout::delivered(printed) {
                eprintln!("phaselint: error: cannot write output: {e}");
                return exit::NO_VERDICT;
            }
            report.decision().exit_code()
        }
        Err(NoVerdict(message)) => no_verdict(args, &message),
    }
}

/// What every resume check's report says: its decision.
pub(crate) trait Verdict {
    fn decision(&self) -> resume::Decision;

    /// The report as `--format json` prints it, for the exported span.
    fn telemetry(&self) -> Option<serde_json::Value>
    where
        Self: serde::Serialize + Sized,
    {
        serde_json::to_value(self).ok()
    }
}
