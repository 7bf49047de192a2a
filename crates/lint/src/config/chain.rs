//! `extend`: a configuration file names another one whose settings it
//! builds on (ruff's `extend`, biome's `extends`). The chain is followed
//! from the file found to the last one it leads to, with every file read
//! through the same reader as the first (the disk, or a git revision).

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::file::{ConfigError, ConfigFile, ConfigReader, invalid, text};
use super::origin::Origin;

/// The most files one chain may hold: far more than any real layering
/// (repository, team, folder), and a bound on what a chain through links
/// that lexical paths cannot see as a cycle costs.
pub(crate) const MAX_EXTEND_CHAIN: usize = 32;

/// One file of a chain, parsed, with what is needed to name its keys.
pub(super) struct Layer {
    pub(crate) path: PathBuf,
    /// The folder its relative paths and globs start from.
    pub(crate) root: PathBuf,
    text: String,
    /// `tool.phaselint.` in a `pyproject.toml`, nothing in `phaselint.toml`.
    prefix: &'static str,
    pub(crate) file: ConfigFile,
    /// Which file extends this one, and where, for its error messages.
    extended_by: Option<String>,
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<Tool>,
}

#[derive(Deserialize)]
struct Tool {
    phaselint: Option<ConfigFile>,
}

impl Layer {
    /// A `phaselint.toml` (or any file but a `pyproject.toml`).
    pub(crate) fn parse(path: &Path, text: String) -> Result<Layer, ConfigError> {
        let file: ConfigFile = toml::from_str(&text).map_err(|e| invalid(path, &text, "", e))?;
        Ok(Layer::new(path, text, "", file))
    }

    /// A `pyproject.toml`'s `[tool.phaselint]`, or `None` when it has none.
    pub(crate) fn parse_pyproject(path: &Path, text: String) -> Result<Option<Layer>, ConfigError> {
        // A syntax error is the file's; only past it is the table to blame.
        toml::from_str::<toml::Table>(&text).map_err(|e| invalid(path, &text, "", e))?;
        let project: PyProject =
            toml::from_str(&text).map_err(|e| invalid(path, &text, "tool.phaselint", e))?;
        Ok(project
            .tool
            .and_then(|tool| tool.phaselint)
            .map(|file| Layer::new(path, text, "tool.phaselint.", file)))
    }

    /// The file at `path`, read as its name says (a `pyproject.toml` must
    /// have a `[tool.phaselint]` table).
    pub(crate) fn read(
        path: &Path,
        read: &mut ConfigReader<'_>,
    ) -> Result<Option<Layer>, ConfigError> {
        let Some(bytes) = read(path)? else {
            return Ok(None);
        };
        Layer::from_bytes(path, bytes).map(Some)
    }

    /// The bytes of the file at `path`, read as its name says.
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Layer, ConfigError> {
        let text = text(path, bytes)?;
        if path.file_name().is_some_and(|n| n == "pyproject.toml") {
            return Layer::parse_pyproject(path, text)?.ok_or_else(|| ConfigError::Invalid {
                path: path.to_path_buf(),
                message: "has no [tool.phaselint] table".into(),
            });
        }
        Layer::parse(path, text)
    }

    fn new(path: &Path, text: String, prefix: &'static str, file: ConfigFile) -> Layer {
        Layer {
            path: path.to_path_buf(),
            root: path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            text,
            prefix,
            file,
            extended_by: None,
        }
    }

    /// An error in this file's `key`.
    pub(crate) fn error(&self, key: &str, message: String) -> ConfigError {
        let by = self
            .extended_by
            .as_ref()
            .map_or_else(String::new, |by| format!(" ({by})"));
        ConfigError::Invalid {
            path: self.path.clone(),
            message: format!("`{}{key}`: {message}{by}", self.prefix),
        }
    }

    /// Where this file set `key`, whose value is at `span`.
    pub(crate) fn origin(&self, key: &str, span: std::ops::Range<usize>) -> Origin {
        Origin::File {
            path: self.path.clone(),
            line: self.line(span.start),
            key: format!("{}{key}", self.prefix),
        }
    }

    fn line(&self, offset: usize) -> usize {
        let before = &self.text.as_bytes()[..offset.min(self.text.len())];
        memchr::memchr_iter(b'\n', before).count() + 1
    }

    /// The file this one extends, as a path from the disk's root or the
    /// reader's: relative to this file's folder.
    fn extends(&self) -> Option<(&Spanned<String>, PathBuf)> {
        let extend = self.file.extend.as_ref()?;
        Some((extend, normalize(&self.root.join(extend.get_ref()))))
    }
}

/// `first` and every file it extends, in order: `a.toml`, then the file
/// `a.toml` extends, and so on. A file named twice is a cycle; a chain of
/// more than `MAX_EXTEND_CHAIN` files, an error; either names the chain.
pub(super) fn follow(first: Layer, read: &mut ConfigReader<'_>) -> Result<Vec<Layer>, ConfigError> {
    let mut chain = vec![first];
    loop {
        let last = chain.len() - 1;
        let Some((extend, target)) = chain[last].extends() else {
            return Ok(chain);
        };
        let extender = &chain[last];
        let key = format!(
            "`{}extend = \"{}\"` (line {})",
            extender.prefix,
            extend.get_ref(),
            extender.line(extend.span().start)
        );
        if chain.iter().any(|layer| layer.path == target) {
            let mut names: Vec<String> =
                chain.iter().map(|l| l.path.display().to_string()).collect();
            names.push(target.display().to_string());
            return Err(ConfigError::Invalid {
                path: extender.path.clone(),
                message: format!(
                    "{key} makes a cycle: {}; remove one of these `extend` keys",
                    names.join(" -> ")
                ),
            });
        }
        if chain.len() >= MAX_EXTEND_CHAIN {
            return Err(ConfigError::Invalid {
                path: extender.path.clone(),
                message: format!(
                    "{key}: a chain of `extend` is at most {MAX_EXTEND_CHAIN} files long; this one starts {} -> …",
                    chain[0].path.display()
                ),
            });
        }
        let by = format!("extended by {} {key}", extender.path.display());
        let extended_by = |error: ConfigError| match error {
            ConfigError::Invalid { path, message } => ConfigError::Invalid {
                path,
                message: format!("{message} ({by})"),
            },
            ConfigError::Input(error) => ConfigError::Invalid {
                path: extender.path.clone(),
                message: format!("{key}: {error}"),
            },
        };
        match Layer::read(&target, read).map_err(extended_by)? {
            Some(mut layer) => {
                layer.extended_by = Some(by);
                chain.push(layer);
            }
            None => {
                return Err(ConfigError::Invalid {
                    path: extender.path.clone(),
                    message: format!(
                        "{key}: {} is not a file; `extend` takes a path relative to the folder of the file that says it",
                        target.display()
                    ),
                });
            }
        }
    }
}

/// `a/b/../c` as `a/c`, without asking the file system (the reader may be
/// a git revision): how a cycle is recognised.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalize;
    use std::path::Path;

    #[test]
    fn normalize_removes_dots_without_the_file_system() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d.toml")),
            Path::new("/a/c/d.toml")
        );
        assert_eq!(normalize(Path::new("../x.toml")), Path::new("../x.toml"));
    }
}
