//! Asking the operator on the terminal: what is shown before an approval
//! is recorded and the keys they answer with (`y` approve, `n` deny, `d`
//! the full canonical form, `?` help, `q` stop), and the second, different
//! confirmation of a resume into an irreversible phase. Prompts go to
//! standard error, answers come from standard input; callers make sure
//! both are terminals.

use std::io::{BufRead, Write};

use phaselint_lint::resume::ApprovalQuestion;
use phaselint_render::terminal::inline;

/// What the operator answered about one checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Approve,
    Deny,
    /// `q`, or the end of input: ask nothing more.
    Stop,
}

/// One line from standard input; `None` at its end.
fn read_answer() -> Result<Option<String>, String> {
    let mut line = String::new();
    let read = std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the answer: {e}"))?;
    Ok((read > 0).then(|| line.trim().to_ascii_lowercase()))
}

fn prompt(text: &str) -> Result<(), String> {
    let mut stderr = std::io::stderr().lock();
    write!(stderr, "{text}")
        .and_then(|()| stderr.flush())
        .map_err(|e| format!("cannot ask: {e}"))
}

fn show(
    print: impl FnOnce(&mut std::io::StderrLock<'_>) -> std::io::Result<()>,
) -> Result<(), String> {
    print(&mut std::io::stderr().lock()).map_err(|e| format!("cannot ask: {e}"))
}

/// Shows `question` (the canonical request, the authorization scope, the
/// reversibility class) and asks until the operator approves, denies or
/// stops. An approval of a resume into an irreversible phase counts only
/// after the second confirmation.
pub fn ask_about(question: &ApprovalQuestion) -> Result<Answer, String> {
    show(|out| phaselint_render::question_human(question, out))?;
    loop {
        prompt("Approve this resume? [y]es [n]o [d]etail [?]help [q]uit: ")?;
        let Some(answer) = read_answer()? else {
            show(|out| writeln!(out))?;
            return Ok(Answer::Stop);
        };
        match answer.as_str() {
            "y" | "yes" => {
                return if confirm_irreversible(&question.irreversible_next)? {
                    Ok(Answer::Approve)
                } else {
                    Ok(Answer::Deny)
                };
            }
            "n" | "no" => return Ok(Answer::Deny),
            "d" | "detail" => show(|out| phaselint_render::question_detail(question, out))?,
            "?" | "h" | "help" => show(|out| phaselint_render::question_help(out))?,
            "q" | "quit" => return Ok(Answer::Stop),
            "" => show(|out| writeln!(out, "Answer y, n, d, ? or q."))?,
            other => show(|out| {
                writeln!(
                    out,
                    "`{}` is not an answer: y approves, n denies, d shows the detail, ? the help, q stops.",
                    inline(other)
                )
            })?,
        }
    }
}

/// The second confirmation of a resume into irreversible phases: a
/// different question, answered only by typing `yes` in full, so a second
/// reflexive `y` approves nothing. `true` when there is nothing
/// irreversible ahead.
pub fn confirm_irreversible(irreversible: &[String]) -> Result<bool, String> {
    if irreversible.is_empty() {
        return Ok(true);
    }
    let phases = inline(&phaselint_lint::diagnostic::code_list(irreversible.iter())).into_owned();
    prompt(&format!(
        "Second confirmation: resuming runs {phases}, whose side effects cannot be undone. Type `yes` to approve it (anything else declines): "
    ))?;
    let confirmed = read_answer()?.is_some_and(|a| a == "yes");
    if !confirmed {
        show(|out| writeln!(out, "Not confirmed."))?;
    }
    Ok(confirmed)
}

/// A plain yes/no question (`y` or `yes`; anything else is no).
pub fn ask_yes_no(question: &str) -> Result<bool, String> {
    prompt(&format!("{question} [y/N] "))?;
    Ok(read_answer()?.is_some_and(|a| a == "y" || a == "yes"))
}
