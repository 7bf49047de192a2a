//! A checkpoint manifest's `restore_command`, read the way a shell would
//! run it, but only in the few shapes the checkpoint and rollback skills
//! write: `git stash pop|apply [stash@{N}]` for a `git_stash`, and `cp`
//! from `.checkpoints/<id>/…` to the scope paths (several joined with
//! `&&`) for a `file_backup`. Anything else is a problem, never a pass: the
//! paused run wrote this command, and the rollback runs it.
//!
//! The command is refused outright when it holds any character a shell
//! treats specially besides whitespace and quotes (`;`, `|`, `&` outside
//! `&&`, `$`, backquotes, `\`, redirections, globs, `#`, `~`, `!`, braces
//! outside `stash@{N}`, parentheses, line breaks). What is left has no
//! expansion, so reading it is splitting on blanks and removing quotes;
//! that is all this reader does, which is why it needs no shell-words
//! crate.

use std::fmt;

/// The stash a `git stash pop|apply` restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StashRestore {
    /// `N` of `stash@{N}` (0 when the command names none, as git does).
    pub(crate) index: u32,
    /// `pop` (drops the stash once applied) rather than `apply`.
    pub(crate) pop: bool,
}

/// One `cp SOURCE... DESTINATION` of a `file_backup`'s restore command,
/// paths normalized (no `.` names, no repeated or trailing `/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copy {
    pub sources: Vec<String>,
    pub destination: String,
    /// The destination was written as a folder (`config/`), or there are
    /// several sources, so it must be one.
    pub(crate) into_folder: bool,
}

/// Why a restore command cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable(pub(crate) String);

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most stash entries a `stash@{N}` may count back: git keeps every
/// entry, but a checkpoint is one of the last few.
pub(crate) const MAX_STASH_INDEX: u32 = 10_000;

/// Reads a `git_stash` checkpoint's restore command.
pub fn read_stash_restore(command: &str) -> Result<StashRestore, Unreadable> {
    let commands = words(command)?;
    let [words] = commands.as_slice() else {
        return Err(Unreadable(format!(
            "it runs {} commands; a git stash checkpoint is restored by one `git stash pop` or `git stash apply`",
            commands.len()
        )));
    };
    let expected = "it is not `git stash pop [stash@{N}]` or `git stash apply [stash@{N}]`";
    let (pop, rest) = match words.as_slice() {
        [git, stash, verb, rest @ ..] if git == "git" && stash == "stash" => match verb.as_str() {
            "pop" => (true, rest),
            "apply" => (false, rest),
            other => {
                return Err(Unreadable(format!(
                    "`git stash {other}` does not restore a stash; {expected}"
                )));
            }
        },
        _ => return Err(Unreadable(expected.to_string())),
    };
    let mut index = None;
    for word in rest {
        match word.as_str() {
            "--index" | "-q" | "--quiet" => {}
            _ if index.is_none() => index = Some(stash_index(word)?),
            _ => {
                return Err(Unreadable(format!(
                    "`{word}` follows the stash it restores; {expected}"
                )));
            }
        }
    }
    Ok(StashRestore {
        index: index.unwrap_or(0),
        pop,
    })
}

/// `stash@{N}` or a bare `N` (which git stash reads as `stash@{N}`).
fn stash_index(word: &str) -> Result<u32, Unreadable> {
    let digits = word
        .strip_prefix("stash@{")
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Unreadable(format!(
            "`{word}` is not a stash entry (`stash@{{N}}`): git would restore whatever commit it names, which need not be the checkpoint's stash"
        )));
    }
    match digits.parse::<u32>() {
        Ok(n) if n <= MAX_STASH_INDEX => Ok(n),
        _ => Err(Unreadable(format!(
            "`{word}` counts back more than {MAX_STASH_INDEX} stash entries"
        ))),
    }
}

/// Reads a `file_backup` checkpoint's restore command: one or more
/// `cp [-p] [-f] [--] SOURCE... DESTINATION` joined by `&&`.
pub fn read_copy_restore(command: &str) -> Result<Vec<Copy>, Unreadable> {
    let mut copies = Vec::new();
    for words in words(command)? {
        let Some((cp, rest)) = words.split_first() else {
            return Err(Unreadable("it has an empty command around `&&`".into()));
        };
        if cp != "cp" {
            return Err(Unreadable(format!(
                "`{cp}` is not `cp`; a file backup is restored by `cp .checkpoints/<id>/… PATH` commands joined by `&&`"
            )));
        }
        let mut operands = Vec::new();
        let mut options_end = false;
        for word in rest {
            match word.as_str() {
                "--" if !options_end => options_end = true,
                "-p" | "-f" | "-pf" | "-fp" | "--preserve" if !options_end => {}
                option if option.starts_with('-') && !options_end => {
                    return Err(Unreadable(format!(
                        "`cp {option}` is not read (only `-p` and `-f`): it could copy something other than the backup files"
                    )));
                }
                path => operands.push(path.to_string()),
            }
        }
        let Some((destination, sources)) = operands.split_last() else {
            return Err(Unreadable("a `cp` has no source and destination".into()));
        };
        if sources.is_empty() {
            return Err(Unreadable(format!(
                "`cp {destination}` has a destination but nothing to copy"
            )));
        }
        let into_folder = sources.len() > 1 || destination.ends_with('/');
        copies.push(Copy {
            sources: sources
                .iter()
                .map(|s| normalized(s))
                .collect::<Result<_, _>>()?,
            destination: normalized(destination)?,
            into_folder,
        });
    }
    Ok(copies)
}

/// A path as a `cp` writes it, normalized: `./a//b/` is `a/b`, and `.` is
/// the empty path (the folder the command runs in). `..` is refused: the
/// restore runs at the root, and a path that climbs is not a scope path.
pub(crate) fn normalized(path: &str) -> Result<String, Unreadable> {
    if path.starts_with('/') {
        return Err(Unreadable(format!(
            "`{path}` is absolute; the restore runs at the root, where scope paths and `.checkpoints/` are relative"
        )));
    }
    let mut names = Vec::new();
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                return Err(Unreadable(format!(
                    "`{path}` climbs with `..`; name the path from the root"
                )));
            }
            name => names.push(name),
        }
    }
    Ok(names.join("/"))
}

/// Characters a shell gives a meaning besides whitespace and quotes: a
/// command holding one is refused. `&` is allowed only as `&&` between
/// commands, and braces only in `stash@{N}` (no comma, no `..`: nothing
/// a shell expands).
fn special(c: char) -> bool {
    matches!(
        c,
        ';' | '|'
            | '$'
            | '`'
            | '\\'
            | '<'
            | '>'
            | '('
            | ')'
            | '*'
            | '?'
            | '['
            | ']'
            | '#'
            | '~'
            | '!'
            | '\n'
            | '\r'
            | '\0'
    ) || (c.is_control() && c != '\t')
}

/// The words of each command of `text` (commands joined by `&&`), quotes
/// removed.
fn words(text: &str) -> Result<Vec<Vec<String>>, Unreadable> {
    if let Some(c) = text.chars().find(|&c| special(c)) {
        return Err(Unreadable(format!(
            "it holds `{}`, which a shell would read as more than text; only plain words, quotes and `&&` are read",
            c.escape_debug()
        )));
    }
    let mut commands = vec![Vec::new()];
    // The word being read, and whether any of it was quoted (a quoted
    // `&&` is a word, not a separator).
    let mut word: Option<(String, bool)> = None;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(Default::default).0.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(Default::default).1 = true;
            }
            (None, ' ' | '\t') => {
                if let Some(done) = word.take() {
                    push_word(&mut commands, done)?;
                }
            }
            (None, c) => word.get_or_insert_with(Default::default).0.push(c),
        }
    }
    if quote.is_some() {
        return Err(Unreadable("it has an unclosed quote".into()));
    }
    if let Some(done) = word.take() {
        push_word(&mut commands, done)?;
    }
    if commands.iter().any(Vec::is_empty) {
        return Err(Unreadable(
            "it has an empty command (nothing before or after `&&`)".into(),
        ));
    }
    Ok(commands)
}

/// Adds a finished word: `&&` starts the next command; any other word
/// with `&` or a brace outside `stash@{N}` is refused.
fn push_word(
    commands: &mut Vec<Vec<String>>,
    (word, quoted): (String, bool),
) -> Result<(), Unreadable> {
    if word == "&&" && !quoted {
        commands.push(Vec::new());
        return Ok(());
    }
    if word.contains('&') {
        return Err(Unreadable(format!(
            "`{word}` holds `&`; commands are read only when joined by ` && `"
        )));
    }
    if (word.contains('{') || word.contains('}')) && !is_stash_entry(&word) {
        return Err(Unreadable(format!(
            "`{word}` holds a brace, which a shell may expand; only `stash@{{N}}` is read"
        )));
    }
    if let Some(last) = commands.last_mut() {
        last.push(word);
    }
    Ok(())
}

fn is_stash_entry(word: &str) -> bool {
    word.strip_prefix("stash@{")
        .and_then(|rest| rest.strip_suffix('}'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stash(command: &str) -> Result<StashRestore, String> {
        read_stash_restore(command).map_err(|e| e.0)
    }

    #[test]
    fn the_stash_a_git_stash_command_restores() {
        assert_eq!(
            stash("git stash pop stash@{0}"),
            Ok(StashRestore {
                index: 0,
                pop: true
            })
        );
        assert_eq!(
            stash("git stash apply"),
            Ok(StashRestore {
                index: 0,
                pop: false
            })
        );
        assert_eq!(
            stash("git  stash apply --index 'stash@{7}'").map(|s| s.index),
            Ok(7)
        );
        assert_eq!(stash("git stash pop 3").map(|s| s.index), Ok(3));
    }

    #[test]
    fn anything_else_is_unreadable() {
        for (command, says) in [
            ("git stash pop; rm -rf src", "holds `;`"),
            ("git stash pop $(rm -rf src)", "holds `$`"),
            ("git stash pop `id`", "holds ```"),
            ("git stash pop\nrm x", "holds `\\n`"),
            ("git stash pop && rm x", "runs 2 commands"),
            ("git stash pop main", "`main` is not a stash entry"),
            ("git stash pop stash@{0} stash@{1}", "follows the stash"),
            ("git stash drop", "`git stash drop` does not restore"),
            ("git -C .. stash pop", "is not `git stash pop"),
            ("git stash pop stash@{99999999999}", "more than 10000"),
            ("git stash pop stash@{-1}", "holds a brace"),
            ("git stash pop -1", "not a stash entry"),
            ("git stash pop 'stash@{0}", "unclosed quote"),
            ("git stash pop {a,b}", "brace"),
            ("git stash pop &", "holds `&`"),
        ] {
            let error = stash(command).unwrap_err();
            assert!(error.contains(says), "{command:?}: {error}");
        }
    }

    #[test]
    fn copies_of_a_file_backup() {
        let copies = read_copy_restore(
            "cp .checkpoints/c1/production.yaml config/production.yaml && cp -p -- './.checkpoints/c1/a b.txt' ./",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            copies,
            [
                Copy {
                    sources: vec![".checkpoints/c1/production.yaml".into()],
                    destination: "config/production.yaml".into(),
                    into_folder: false
                },
                Copy {
                    sources: vec![".checkpoints/c1/a b.txt".into()],
                    destination: "".into(),
                    into_folder: true
                }
            ]
        );
        for (command, says) in [
            ("cp -r .checkpoints/c1 .", "`cp -r` is not read"),
            ("rsync .checkpoints/c1/a a", "`rsync` is not `cp`"),
            ("cp a", "nothing to copy"),
            ("cp .checkpoints/c1/a /etc/a", "absolute"),
            ("cp .checkpoints/c1/a ../a", "climbs"),
            ("cp .checkpoints/c1/* .", "holds `*`"),
            ("&& cp a b", "empty command"),
            ("cp a b &&", "empty command"),
        ] {
            let error = read_copy_restore(command).unwrap_err().0;
            assert!(error.contains(says), "{command:?}: {error}");
        }
    }
}
