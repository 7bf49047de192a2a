//! How one file of an `extend` chain applies over the files it extends
//! (docs/configuration.md has the table).

use super::file::ConfigError;
use super::origin::list;
use super::{
    Config, Globs, MAX_CLOCK_SKEW_LIMIT, check_code, check_selectors, duration_value, parse_level,
};
use crate::duration;

impl Config {
    /// Applies one file of the chain over what the files it extends set:
    /// scalars, `include`, `exclude`, `select` and `ignore` replace;
    /// `extend-select`, `extend-ignore` and `[per-file-ignores]` add;
    /// `[severity]` replaces code by code.
    pub(super) fn merge(&mut self, layer: &super::chain::Layer) -> Result<(), ConfigError> {
        let file = &layer.file;
        let bad = |key: &str, message: String| layer.error(key, message);
        let origin = |key: &str, span: std::ops::Range<usize>| layer.origin(key, span);
        if let Some(include) = &file.include {
            self.include =
                Globs::new(&layer.root, include.get_ref()).map_err(|m| bad("include", m))?;
            self.set_origin(
                "include",
                list(include.get_ref()),
                origin("include", include.span()),
            );
        }
        if let Some(exclude) = &file.exclude {
            self.exclude =
                Globs::new(&layer.root, exclude.get_ref()).map_err(|m| bad("exclude", m))?;
            self.set_origin(
                "exclude",
                list(exclude.get_ref()),
                origin("exclude", exclude.span()),
            );
        }
        if let Some(select) = &file.select {
            check_selectors(select.get_ref()).map_err(|m| bad("select", m))?;
            self.select = Some(select.get_ref().clone());
            // A `select` starts the selection over, as in ruff: what the
            // files below added with `extend-select` goes too.
            self.extend_select.clear();
            self.clear_origins(&["select", "extend-select"]);
            self.set_origin(
                "select",
                list(select.get_ref()),
                origin("select", select.span()),
            );
        }
        if let Some(extend) = &file.extend_select {
            check_selectors(extend.get_ref()).map_err(|m| bad("extend-select", m))?;
            self.extend_select.extend(extend.get_ref().iter().cloned());
            self.add_origin(
                "extend-select",
                list(extend.get_ref()),
                origin("extend-select", extend.span()),
            );
        }
        if let Some(ignore) = &file.ignore {
            check_selectors(ignore.get_ref()).map_err(|m| bad("ignore", m))?;
            self.ignore = ignore.get_ref().clone();
            self.clear_origins(&["ignore", "extend-ignore"]);
            self.set_origin(
                "ignore",
                list(ignore.get_ref()),
                origin("ignore", ignore.span()),
            );
        }
        if let Some(extend) = &file.extend_ignore {
            check_selectors(extend.get_ref()).map_err(|m| bad("extend-ignore", m))?;
            self.ignore.extend(extend.get_ref().iter().cloned());
            self.add_origin(
                "extend-ignore",
                list(extend.get_ref()),
                origin("extend-ignore", extend.span()),
            );
        }
        for (code, level) in file.severity.iter().flatten() {
            let key = format!("severity.{code}");
            let parsed = parse_level(level.get_ref()).map_err(|m| bad(&key, m))?;
            check_code(code).map_err(|m| bad(&key, m))?;
            self.severity.retain(|(c, _)| !c.eq_ignore_ascii_case(code));
            self.severity.push((code.clone(), parsed));
            self.set_origin(
                &key,
                serde_json::Value::from(level.get_ref().as_str()),
                origin(&key, level.span()),
            );
        }
        for (pattern, codes) in file.per_file_ignores.iter().flatten() {
            let key = format!("per-file-ignores.\"{pattern}\"");
            let set =
                Globs::new(&layer.root, std::slice::from_ref(pattern)).map_err(|m| bad(&key, m))?;
            check_selectors(codes.get_ref()).map_err(|m| bad(&key, m))?;
            self.per_file_ignores.push((set, codes.get_ref().clone()));
            self.add_origin(&key, list(codes.get_ref()), origin(&key, codes.span()));
        }
        if let Some(value) = &file.long_running_threshold {
            self.base.long_running_threshold =
                duration_value(value.get_ref()).map_err(|m| bad("long_running_threshold", m))?;
            self.set_origin(
                "long_running_threshold",
                serde_json::to_value(value.get_ref()).unwrap_or_default(),
                origin("long_running_threshold", value.span()),
            );
        }
        if let Some(value) = &file.max_clock_skew {
            let skew = duration_value(value.get_ref()).map_err(|m| bad("max_clock_skew", m))?;
            if skew > MAX_CLOCK_SKEW_LIMIT {
                return Err(bad(
                    "max_clock_skew",
                    format!(
                        "{} is more than a clock may be off; at most \"1h\" (a larger skew lets a timestamp from the future count as fresh)",
                        duration::format_seconds(skew)
                    ),
                ));
            }
            self.base.max_clock_skew = skew;
            self.set_origin(
                "max_clock_skew",
                serde_json::to_value(value.get_ref()).unwrap_or_default(),
                origin("max_clock_skew", value.span()),
            );
        }
        if let Some(trust) = &file.trust_context_approvals {
            self.base.trust_context_approvals = *trust.get_ref();
            self.set_origin(
                "trust_context_approvals",
                serde_json::Value::from(*trust.get_ref()),
                origin("trust_context_approvals", trust.span()),
            );
        }
        if let Some(baseline) = &file.baseline {
            if baseline.get_ref().is_empty() {
                return Err(bad(
                    "baseline",
                    "is empty; name a file such as \"phaselint-baseline.json\"".into(),
                ));
            }
            self.baseline = Some(layer.root.join(baseline.get_ref()));
            self.set_origin(
                "baseline",
                serde_json::Value::from(baseline.get_ref().as_str()),
                origin("baseline", baseline.span()),
            );
        }
        if let Some(dialect) = &file.dialect {
            self.base.dialect = *dialect.get_ref();
            self.set_origin(
                "dialect",
                serde_json::Value::from(dialect.get_ref().name()),
                origin("dialect", dialect.span()),
            );
        }
        Ok(())
    }
}
