//! The server's memory: open documents with their latest analysis, and the
//! configuration found for each directory. Guarded by one mutex that is
//! never held across an `.await`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phaselint_lint::DocumentKind;
use phaselint_lint::config::{Config, Settings};
use phaselint_lint::model::Contract;
use tower_lsp_server::ls_types::Uri;

use crate::analyzer::{Analyzed, Analyzer};
use crate::positions::Encoding;

pub struct Document {
    pub text: String,
    pub version: i32,
    pub path: Option<PathBuf>,
    /// The analysis of `version`, once it has run.
    pub analyzed: Option<Arc<Analyzed>>,
    /// The latest contract that parsed: completion takes names from it
    /// while the current text is half typed.
    pub last_contract: Option<Arc<Contract>>,
    /// The last analysis whose text parsed, and how that text maps into
    /// `text`: what is answered while `text` does not parse.
    pub carried: Option<crate::carried::Carried>,
    /// The edits since `carried`'s version.
    pub edits: crate::carried::EditLog,
    /// `(version, generation)` of the diagnostics last sent.
    pub published: Option<(i32, u64)>,
    /// How long the last analysis took, which sets the debounce.
    pub analysis_time: Option<std::time::Duration>,
}

impl Document {
    pub fn is_current(&self, analyzed: &Analyzed, generation: u64) -> bool {
        analyzed.version == self.version && analyzed.generation == generation
    }
}

#[derive(Default)]
pub struct State {
    pub documents: HashMap<Uri, Document>,
    pub unit: Encoding,
    /// Hovers in Markdown (the client lists it, or says nothing); plain text otherwise.
    pub hover_markdown: bool,
    /// Completion documentation in Markdown, negotiated the same way from
    /// `completionItem.documentationFormat`.
    pub completion_markdown: bool,
    /// Set by the client's `initializationOptions.configPath`.
    pub config_override: Option<PathBuf>,
    /// The configuration found for each directory that holds an open
    /// document, dropped with the last one (a server that saw documents
    /// in 20,000 directories kept 20,000 configurations).
    configs: HashMap<PathBuf, Arc<Config>>,
    /// How many open documents each directory holds.
    open_in: HashMap<PathBuf, usize>,
    /// Documents closed since memory was last handed back to the system.
    closed_since_release: usize,
    pub generation: u64,
    /// Configuration problems already shown to the user, so each is shown once.
    pub reported_config_errors: Vec<String>,
    /// `None` only if the analysis thread could not be started.
    pub analyzer: Option<Analyzer>,
    /// Whether the client registers file watchers on request.
    pub watch_config_files: bool,
    /// Files that a loaded configuration extends (`extend`): a change to
    /// one is a configuration change, whatever its name.
    pub extended_configs: std::collections::HashSet<PathBuf>,
    /// The contracts under the workspace folders (`workspace.rs`).
    pub workspace: crate::workspace::Workspace,
}

/// How many documents are closed between two hand-backs of freed memory.
const RELEASE_EVERY_CLOSES: usize = 512;

/// The directory whose configuration applies to a document: its own, or
/// the working directory's for a document without a path.
fn config_dir(path: Option<&Path>) -> PathBuf {
    path.and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
}

/// How many entries the server's caches hold (`phaselint/cacheSizes`,
/// answered by test builds).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct CacheSizes {
    pub documents: usize,
    pub configs: usize,
    pub directories: usize,
    /// Changed files waiting for the re-index task.
    pub pending_files: usize,
    /// Whether the re-index task is queued or running.
    pub reindexing: bool,
}

impl State {
    /// Opens (or reopens) a document.
    pub fn open_document(&mut self, uri: Uri, document: Document) {
        let dir = config_dir(document.path.as_deref());
        if let Some(old) = self.documents.insert(uri, document) {
            self.forget(config_dir(old.path.as_deref()));
        }
        *self.open_in.entry(dir).or_default() += 1;
    }

    /// Closes a document; the configuration of its directory goes with
    /// the last document open there. Whether it was open.
    pub fn close_document(&mut self, uri: &Uri) -> bool {
        let Some(document) = self.documents.remove(uri) else {
            return false;
        };
        self.forget(config_dir(document.path.as_deref()));
        // What the allocator keeps of freed analyses adds up over many
        // opened and closed documents (a few hundred bytes each, measured
        // with the heap itself flat): hand it back now and then.
        self.closed_since_release += 1;
        if self.closed_since_release >= RELEASE_EVERY_CLOSES {
            self.closed_since_release = 0;
            if let Some(analyzer) = &self.analyzer {
                analyzer.release_freed_memory();
            }
        }
        true
    }

    fn forget(&mut self, dir: PathBuf) {
        let Some(count) = self.open_in.get_mut(&dir) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.open_in.remove(&dir);
            self.configs.remove(&dir);
        }
        // A map keeps its largest size's memory; give it back once most
        // of it is unused.
        if self.configs.capacity() > 64 && self.configs.len() < self.configs.capacity() / 4 {
            self.configs.shrink_to_fit();
        }
        if self.open_in.capacity() > 64 && self.open_in.len() < self.open_in.capacity() / 4 {
            self.open_in.shrink_to_fit();
        }
        if self.documents.capacity() > 64 && self.documents.len() < self.documents.capacity() / 4 {
            self.documents.shrink_to_fit();
        }
    }

    pub fn cache_sizes(&self) -> CacheSizes {
        CacheSizes {
            documents: self.documents.len(),
            configs: self.configs.len(),
            directories: self.open_in.len(),
            pending_files: self.workspace.pending.len(),
            reindexing: self.workspace.reindexing,
        }
    }

    /// The settings for a document, and a configuration error to report if
    /// its configuration is broken (the defaults apply meanwhile).
    pub fn settings_for(&mut self, path: Option<&Path>) -> (Settings, Option<String>) {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let dir = config_dir(path);
        let config = match self.configs.get(&dir) {
            Some(config) => Ok(config.clone()),
            None => {
                let loaded = match &self.config_override {
                    Some(file) => Config::load(file),
                    None => Config::discover(&dir),
                };
                loaded.map(|config| {
                    self.note_extended(&config);
                    let config = Arc::new(config);
                    // Kept while a document in the directory is open.
                    if self.open_in.contains_key(&dir) {
                        self.configs.insert(dir.clone(), config.clone());
                    }
                    config
                })
            }
        };
        match config {
            Ok(config) => {
                let settings = match path {
                    Some(p) => config.settings_for(p),
                    None => config.settings().clone(),
                };
                (settings, None)
            }
            Err(error) => (
                Config::defaults(&cwd).settings().clone(),
                Some(error.to_string()),
            ),
        }
    }

    /// Whether a document should get diagnostics: contracts by the config's
    /// `include` globs, and any document whose root looks like a context
    /// contract. Editors that attach to every YAML file (Zed) would
    /// otherwise see Kubernetes manifests reported as broken contracts.
    pub fn wants_diagnostics(&mut self, path: Option<&Path>, analyzed: &Analyzed) -> bool {
        let Some(path) = path else { return true };
        if analyzed.analysis.is_context_contract()
            || analyzed.analysis.kind == DocumentKind::Harness
        {
            return true;
        }
        let _ = self.settings_for(Some(path));
        let dir = config_dir(Some(path));
        self.configs
            .get(&dir)
            .is_none_or(|config| config.includes(path))
    }

    /// Remembers the files `config` extends, to watch them.
    pub fn note_extended(&mut self, config: &Config) {
        for file in config.sources().iter().skip(1) {
            if !self.extended_configs.contains(file) {
                self.extended_configs.insert(file.clone());
            }
        }
    }

    /// Forgets every loaded configuration (a config file changed).
    pub fn reload_configs(&mut self) {
        self.configs.clear();
        self.reported_config_errors.clear();
        // Findings made under the old configuration are not carried.
        for document in self.documents.values_mut() {
            document.carried = None;
        }
        self.generation += 1;
    }
}
