//! The decision of a resume check and its exit code: `decide` is the one
//! place the enforcement modes apply.

use serde::Serialize;

/// How failures are enforced (`--mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A blocking failure blocks; a missing approval denies.
    #[default]
    Strict,
    /// Blocking failures are reported and the run may resume; a missing
    /// approval still denies.
    Permissive,
    /// Everything is reported; nothing blocks, approval included.
    Audit,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Permissive => "permissive",
            Mode::Audit => "audit",
        }
    }
}

/// May the run resume?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Resume,
    Blocked,
    Denied,
}

/// Step 6: (passed, what strict mode decides, what the mode decides).
pub(crate) fn decide(
    blocking_failure: bool,
    approval_missing: bool,
    mode: Mode,
) -> (bool, Decision, Decision) {
    let strict = if blocking_failure {
        Decision::Blocked
    } else if approval_missing {
        Decision::Denied
    } else {
        Decision::Resume
    };
    let decision = match mode {
        Mode::Strict => strict,
        Mode::Permissive if approval_missing => Decision::Denied,
        Mode::Permissive | Mode::Audit => Decision::Resume,
    };
    (!blocking_failure && !approval_missing, strict, decision)
}

/// The exit code of a resume check that reached no verdict, the same as
/// every subcommand's.
pub const NO_VERDICT_EXIT: u8 = 3;

impl Decision {
    /// The process exit code for this decision: 0 resume, 1 blocked, 2
    /// denied by the approval gate.
    pub fn exit_code(self) -> u8 {
        match self {
            Decision::Resume => 0,
            Decision::Blocked => 1,
            Decision::Denied => 2,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Resume => "resume",
            Decision::Blocked => "blocked",
            Decision::Denied => "denied",
        }
    }
}
