//! The configuration of each folder as it is at REV, for `diff --git`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phaselint_lint::config::{Config, ConfigError, read_from_disk};
use phaselint_lint::input::{self, Bound};
use phaselint_lint::resume::{GitRepository, TreeEntry};

use phaselint_render::terminal::inline;

use super::revision::GitSide;

/// The configuration of each folder as it is at REV (`--git`), found as
/// `Config::discover` finds it on disk but reading each candidate from
/// REV's tree (above the repository's root: from the disk, which the
/// change does not touch).
#[derive(Default)]
pub struct RevisionConfigs {
    by_folder: HashMap<String, Arc<Config>>,
    noted: std::collections::BTreeSet<String>,
}

impl RevisionConfigs {
    /// The configuration for `path` (from the root) at REV; a note when the
    /// work tree's differs.
    pub fn for_file(
        &mut self,
        side: &GitSide,
        path: &str,
        quiet: bool,
    ) -> Result<Arc<Config>, String> {
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        if let Some(config) = self.by_folder.get(folder) {
            return Ok(config.clone());
        }
        let absolute_folder = if folder.is_empty() {
            side.top.clone()
        } else {
            side.top.join(folder)
        };
        let at_rev = format!("`{}`", inline(&side.revision));
        let mut read_at_rev: HashMap<PathBuf, Vec<u8>> = HashMap::new();
        let mut reader = |candidate: &Path| -> Result<Option<Vec<u8>>, ConfigError> {
            let Ok(relative) = candidate.strip_prefix(&side.top) else {
                return read_from_disk(candidate);
            };
            let Some(relative) = relative
                .components()
                .map(|c| c.as_os_str().to_str())
                .collect::<Option<Vec<_>>>()
                .map(|parts| parts.join("/"))
            else {
                return Ok(None);
            };
            let invalid = |message: String| ConfigError::Invalid {
                path: candidate.to_path_buf(),
                message,
            };
            let mut entries = side
                .repository
                .tree_entries(&side.commit, std::slice::from_ref(&relative))
                .map_err(&invalid)?;
            match entries.remove(&relative) {
                Some(TreeEntry::File { blob, size }) => {
                    if size > Bound::Config.bytes() {
                        return Err(invalid(format!(
                            "is {size} bytes at {at_rev}, larger than the limit of {}",
                            input::describe(Bound::Config.bytes())
                        )));
                    }
                    let bytes = side
                        .repository
                        .blob(&blob, Bound::Config.bytes())
                        .map_err(&invalid)?;
                    read_at_rev.insert(candidate.to_path_buf(), bytes.clone());
                    Ok(Some(bytes))
                }
                Some(TreeEntry::SymbolicLink) => Err(invalid(format!(
                    "is a symbolic link at {at_rev}: the configuration is read from REV's tree, never through a link"
                ))),
                _ => Ok(None),
            }
        };
        let config = Config::discover_with(&absolute_folder, &mut reader)
            .map_err(|e| format!("the configuration at {at_rev}: {e}"))?;
        // The work tree's, to say when it differs: the change may not
        // loosen its own gate, and the author should know why theirs is
        // not used.
        let on_disk = Config::discover(&absolute_folder);
        let differs = match &on_disk {
            Err(_) => true,
            Ok(disk) => {
                // Every file of the chain: an extended file may be what changed.
                disk.sources() != config.sources()
                    || config
                        .sources()
                        .iter()
                        .any(|p| read_at_rev.get(p) != read_from_disk(p).ok().flatten().as_ref())
            }
        };
        if differs && !quiet {
            let changed = on_disk
                .as_ref()
                .ok()
                .and_then(|d| d.path.clone())
                .or_else(|| config.path.clone())
                .map(|p| {
                    p.strip_prefix(&side.top)
                        .unwrap_or(&p)
                        .display()
                        .to_string()
                })
                .unwrap_or_default();
            if self.noted.insert(changed.clone()) {
                eprintln!(
                    "phaselint: note: {}",
                    inline(&format!(
                        "`{changed}` changed since `{}`: diff judges with its version at `{}`",
                        side.revision, side.revision
                    ))
                );
            }
        }
        let config = Arc::new(config);
        self.by_folder.insert(folder.to_string(), config.clone());
        Ok(config)
    }
}
