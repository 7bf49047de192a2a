//! Every option of every subcommand says what it does in `--help`: an
//! option listed with no words beside it leaves the user to guess.

use clap::CommandFactory;

use crate::Cli;

/// The arguments of `command` and of each subcommand under it that have no
/// help text, as `phaselint SUB --ARG`.
fn without_help(command: &clap::Command, path: &str, found: &mut Vec<String>) {
    for arg in command.get_arguments() {
        let builtin = matches!(arg.get_id().as_str(), "help" | "version");
        if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
            let name = arg
                .get_long()
                .map(|long| format!("--{long}"))
                .unwrap_or_else(|| format!("<{}>", arg.get_id()));
            found.push(format!("{path} {name}"));
        }
    }
    for sub in command.get_subcommands() {
        without_help(sub, &format!("{path} {}", sub.get_name()), found);
    }
}

#[test]
fn every_argument_of_every_subcommand_has_help() {
    let mut found = Vec::new();
    without_help(&Cli::command(), "phaselint", &mut found);
    assert!(
        found.is_empty(),
        "these arguments have no help text: {found:#?}"
    );
}

#[test]
fn the_resume_check_usage_names_each_kind_of_check() {
    let mut command = Cli::command();
    let usage = command
        .find_subcommand_mut("resume-check")
        .map(|sub| sub.render_usage().to_string())
        .unwrap_or_default();
    for kind in [
        "--contract <FILE>",
        "--handoff <FILE>",
        "--manifest <FILE>",
        "--harness-dir <DIR>",
    ] {
        assert!(usage.contains(kind), "`{kind}` missing from: {usage}");
    }
}
