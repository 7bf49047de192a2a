//! Exit codes, the same for every subcommand, so scripts can tell "no
//! verdict" from findings; a resume decision's own (2, denied, among them)
//! comes from `Decision::exit_code`.

pub const SUCCESS: u8 = 0;
pub const FINDINGS: u8 = 1;
pub const NO_VERDICT: u8 = phaselint_lint::resume::NO_VERDICT_EXIT;
