//! `phaselint manifest-hash`: the hash a skill records for a manifest
//! checkpoint, of scope files or of a state's keys.

use std::path::{Path, PathBuf};

use phaselint_lint::resume;

use super::inputs::{NoVerdict, read_state};
use crate::exit;

#[derive(clap::Args)]
pub struct ManifestHashArgs {
    /// The directory the paths are relative to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The scope files, in the order the manifest lists them.
    #[arg(
        required_unless_present = "state",
        conflicts_with = "state",
        value_name = "FILE"
    )]
    pub files: Vec<String>,
    /// A state (JSON or YAML): hash the values of its --key keys instead of files,
    /// as a `state_snapshot` or `database_savepoint` manifest records them.
    #[arg(long, value_name = "FILE", requires = "keys")]
    pub state: Option<PathBuf>,
    /// A state key, in the order the manifest lists them (a top-level key, or a
    /// dotted path). Repeatable.
    #[arg(long = "key", value_name = "KEY", requires = "state")]
    pub keys: Vec<String>,
}

/// `phaselint manifest-hash`: the combined hash a skill writes into
/// `pre_mutation_state.hash`.
pub fn manifest_hash(args: &ManifestHashArgs) -> u8 {
    let hash = match &args.state {
        Some(state) => state_hash(state, &args.keys),
        None => resume::DiskFiles::open(&args.root)
            .and_then(|files| resume::manifest_hash(&files, &args.root, &args.files)),
    };
    match hash {
        Ok(hash) => crate::stdout::write_answer(&format!("{hash}\n")),
        Err(message) => {
            eprintln!(
                "phaselint: error: {}",
                phaselint_render::terminal::block(&message)
            );
            exit::NO_VERDICT
        }
    }
}

/// The hash of `keys` in the state at `path`.
fn state_hash(path: &Path, keys: &[String]) -> Result<String, String> {
    if keys.len() > resume::MAX_SCOPE_FILES {
        return Err(format!(
            "{} keys are more than the limit of {} for one checkpoint's scope",
            keys.len(),
            resume::MAX_SCOPE_FILES
        ));
    }
    let state = read_state(path).map_err(|NoVerdict(m)| m)?;
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    resume::state_hash(&state, &keys).1.map_err(|problems| {
        format!(
            "cannot hash the state `{}`: {}",
            path.display(),
            problems.join("; ")
        )
    })
}
