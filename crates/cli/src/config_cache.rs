//! Each directory's configuration, loaded once for a run, with the rule
//! options of the command line applied over it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phaselint_lint::config::{Config, Overrides};

use crate::shared_args::{ConfigArgs, RuleLevels};

/// `--select`, `--ignore` and `--severity CODE=LEVEL` as configuration
/// overrides.
pub(crate) fn overrides(levels: &RuleLevels) -> Result<Overrides, String> {
    let severity = levels
        .severity
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(c, l)| (c.trim().to_string(), l.trim().to_string()))
                .ok_or_else(|| format!("--severity takes CODE=LEVEL, got `{pair}`"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Overrides {
        select: levels.select.clone(),
        ignore: levels.ignore.clone(),
        severity,
    })
}

/// Loads each directory's configuration once.
pub(crate) struct ConfigCache {
    fixed: Option<Result<Arc<Config>, String>>,
    by_dir: HashMap<PathBuf, Arc<Config>>,
    pub(crate) overrides: Overrides,
}

impl ConfigCache {
    pub(crate) fn new(configuration: &ConfigArgs, overrides: Overrides) -> Self {
        let fixed = if let Some(path) = &configuration.config {
            Some(
                Config::load(path)
                    .map_err(|e| e.to_string())
                    .and_then(|c| finish(c, &overrides)),
            )
        } else if configuration.no_config {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            Some(finish(Config::defaults(&cwd), &overrides))
        } else {
            None
        };
        ConfigCache {
            fixed,
            by_dir: HashMap::new(),
            overrides,
        }
    }

    pub(crate) fn for_file(&mut self, file: &Path) -> Result<Arc<Config>, String> {
        if let Some(fixed) = &self.fixed {
            return fixed.clone();
        }
        let dir = phaselint_lint::walk::absolute(file.parent().unwrap_or(Path::new(".")));
        if let Some(config) = self.by_dir.get(&dir) {
            return Ok(config.clone());
        }
        let config = Config::discover(&dir).map_err(|e| e.to_string())?;
        let config = finish(config, &self.overrides)?;
        self.by_dir.insert(dir, config.clone());
        Ok(config)
    }
}

fn finish(mut config: Config, overrides: &Overrides) -> Result<Arc<Config>, String> {
    config.apply(overrides)?;
    Ok(Arc::new(config))
}
