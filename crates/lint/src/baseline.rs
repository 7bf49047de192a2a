//! Baselines (`lint --write-baseline`, `--baseline`): the findings a
//! repository already had, recorded so that only new ones are reported.
//!
//! A finding is recorded as (path, code, fingerprint) with a count. The
//! fingerprint follows GitLab Code Quality's idea: a hash of what the
//! finding is about, never of where it is. It hashes the code, the path,
//! the primary span's text (its first line), the text of that line and of
//! the lines that enclose it by indentation (the phase, the checkpoint,
//! the field list), blanks collapsed and trailing comments left out. Line
//! numbers, the message (it may quote a line or a count) and related
//! locations are left out, so lines added above, another phase edited or
//! a comment reindented leave it as it was. Two identical findings of one
//! file have one fingerprint and count twice. The file is JSON, versioned,
//! sorted, one entry per (path, code, fingerprint), so its diff in a
//! review reads well; its paths are relative to the baseline's own folder,
//! `/`-separated.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Analysis;
use crate::diagnostic::Diagnostic;
use crate::line_index::LineIndex;

/// The version of the file format this build reads and writes.
pub(crate) const VERSION: u32 = 1;

/// How many characters of a span's text an entry shows to a reader.
const SHOWN_TEXT: usize = 60;
/// How many enclosing lines a fingerprint hashes: more say nothing new
/// about where a finding is in a contract (root key, phase, section, list).
const ENCLOSING_LINES: usize = 16;
/// How much of one line's text is hashed: a line can be megabytes.
const HASHED_LINE: usize = 4096;
/// How much of a primary span's text is hashed: findings by the
/// thousand on one long line must not hash it a thousand times whole.
const HASHED_SPAN: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    version: u32,
    findings: Vec<Entry>,
}

/// One recorded kind of finding in one file, and how many times it occurs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    pub(crate) path: String,
    pub(crate) code: String,
    pub(crate) fingerprint: String,
    pub(crate) count: usize,
    /// The primary span's text, for a person reading the file; not read back.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) text: String,
}

/// The key of an entry: path, code, fingerprint.
type Key = (String, String, String);

/// A baseline: recorded findings by (path, code, fingerprint).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    entries: BTreeMap<Key, (usize, String)>,
}

/// Why a baseline file could not be read as one.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("it is not UTF-8")]
    NotUtf8,
    #[error("it is not a phaselint baseline: {0}")]
    Invalid(String),
    #[error(
        "it is a baseline of format version {0}, and this phaselint reads version {VERSION}; write it again with `phaselint lint --write-baseline FILE`"
    )]
    Version(u32),
}

/// A finding recorded in a baseline that this run no longer reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixed {
    pub path: String,
    pub code: String,
    pub count: usize,
    pub text: String,
}

/// Whether a finding of `code` can be recorded: a file that cannot be
/// loaded (E001, E007) never passes, as no comment can silence it either.
pub fn can_be_recorded(code: crate::rule_id::RuleId) -> bool {
    !code.is_load_error()
}

impl Baseline {
    /// Reads a baseline file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Baseline, BaselineError> {
        let text = std::str::from_utf8(bytes).map_err(|_| BaselineError::NotUtf8)?;
        // The version first, so a newer format is named as such rather
        // than as an unknown field.
        #[derive(Deserialize)]
        struct Versioned {
            version: Option<u32>,
        }
        let versioned: Versioned = serde_json::from_str(text).map_err(invalid)?;
        match versioned.version {
            Some(VERSION) => {}
            Some(other) => return Err(BaselineError::Version(other)),
            None => {
                return Err(BaselineError::Invalid(
                    "it has no `version` key (phaselint writes `{\"version\": 1, \"findings\": [...]}`)"
                        .into(),
                ));
            }
        }
        let file: BaselineFile = serde_json::from_str(text).map_err(invalid)?;
        let mut baseline = Baseline::default();
        for entry in file.findings {
            let slot = baseline
                .entries
                .entry((entry.path, entry.code, entry.fingerprint))
                .or_insert((0, entry.text));
            slot.0 = slot.0.saturating_add(entry.count);
        }
        Ok(baseline)
    }

    /// The file's text: sorted by path, code and fingerprint, one entry
    /// per key, ending with a line break.
    pub fn to_json(&self) -> String {
        let file = BaselineFile {
            version: VERSION,
            findings: self
                .entries
                .iter()
                .map(|((path, code, fingerprint), (count, text))| Entry {
                    path: path.clone(),
                    code: code.clone(),
                    fingerprint: fingerprint.clone(),
                    count: *count,
                    text: text.clone(),
                })
                .collect(),
        };
        // Serializing plain strings and numbers cannot fail.
        let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Records the findings of one file, shown in the baseline as `path`
    /// (see `path_key`); E001 and E007 are not recorded.
    pub fn record(&mut self, path: &str, analysis: &Analysis) {
        let mut context = FileContext::new(&analysis.source, &analysis.line_index);
        for d in &analysis.diagnostics {
            if !can_be_recorded(d.code) {
                continue;
            }
            let (fingerprint, text) = context.fingerprint(path, d);
            let slot = self
                .entries
                .entry((path.to_string(), d.code.to_string(), fingerprint))
                .or_insert((0, text));
            slot.0 += 1;
        }
    }

    /// Keeps the entries of `other` whose path `keep` accepts: on a
    /// rewrite, the files this run did not lint keep what they had.
    pub fn keep_from(&mut self, other: &Baseline, mut keep: impl FnMut(&str) -> bool) {
        for (key, value) in &other.entries {
            if keep(&key.0) {
                self.entries
                    .entry(key.clone())
                    .or_insert_with(|| value.clone());
            }
        }
    }

    /// The paths the baseline has entries for.
    pub fn paths(&self) -> BTreeSet<&str> {
        self.entries.keys().map(|k| k.0.as_str()).collect()
    }

    /// How many findings it records.
    pub fn findings(&self) -> usize {
        self.entries.values().map(|(count, _)| count).sum()
    }

    /// A matcher that hides what this baseline records, each entry as
    /// many times as its count.
    pub fn matcher(&self) -> Matcher {
        Matcher {
            remaining: self.entries.clone(),
            linted: BTreeSet::new(),
        }
    }
}

/// serde_json's message names the line and column.
fn invalid(error: serde_json::Error) -> BaselineError {
    BaselineError::Invalid(error.to_string())
}

/// Hides the findings a baseline records, file by file, and tells at the
/// end which recorded ones no file reported any more.
#[derive(Debug)]
pub struct Matcher {
    remaining: BTreeMap<Key, (usize, String)>,
    linted: BTreeSet<String>,
}

impl Matcher {
    /// Removes from `analysis` the findings the baseline records for
    /// `path`, and returns how many it removed.
    pub fn hide(&mut self, path: &str, analysis: &mut Analysis) -> usize {
        self.linted.insert(path.to_string());
        let first = (path.to_string(), String::new(), String::new());
        let recorded = self
            .remaining
            .range(first..)
            .next()
            .is_some_and(|(k, _)| k.0 == path);
        if !recorded || analysis.diagnostics.is_empty() {
            return 0;
        }
        let mut context = FileContext::new(&analysis.source, &analysis.line_index);
        let before = analysis.diagnostics.len();
        let remaining = &mut self.remaining;
        analysis.diagnostics.retain(|d| {
            if !can_be_recorded(d.code) {
                return true;
            }
            let (fingerprint, _) = context.fingerprint(path, d);
            let key = (path.to_string(), d.code.to_string(), fingerprint);
            match remaining.get_mut(&key) {
                Some((count, _)) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            }
        });
        before - analysis.diagnostics.len()
    }

    /// The recorded findings that no longer occur: in the files linted,
    /// those left over, and every entry of a file `gone` says is gone.
    pub fn fixed(&self, mut gone: impl FnMut(&str) -> bool) -> Vec<Fixed> {
        self.remaining
            .iter()
            .filter(|((path, _, _), (count, _))| {
                *count > 0 && (self.linted.contains(path) || gone(path))
            })
            .map(|((path, code, _), (count, text))| Fixed {
                path: path.clone(),
                code: code.clone(),
                count: *count,
                text: text.clone(),
            })
            .collect()
    }
}

/// A file's path as a baseline records it: relative to `base` (the
/// baseline's folder), `..` where it lies outside, `/`-separated whatever
/// the system, so the file reads the same from any working directory.
/// Both paths are taken as absolute; `.` and `..` are resolved by name.
pub fn path_key(file: &Path, base: &Path) -> String {
    let file = normalized(file);
    let base = normalized(base);
    let common = file
        .components()
        .zip(base.components())
        .take_while(|(a, b)| a == b)
        .count();
    // Another drive or root shares nothing: the absolute path, as is.
    if common == 0 {
        return slashed(file.components());
    }
    let ups = base.components().count() - common;
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_string(), ups).collect();
    parts.extend(
        file.components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

fn slashed<'a>(components: impl Iterator<Item = Component<'a>>) -> String {
    let mut out = String::new();
    for component in components {
        match component {
            Component::RootDir => out.push('/'),
            Component::Prefix(prefix) => out.push_str(&prefix.as_os_str().to_string_lossy()),
            other => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    out
}

fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// What the fingerprints of one file's findings read: its text, and each
/// line's enclosing line, found once for the file.
struct FileContext<'a> {
    source: &'a str,
    index: &'a LineIndex,
    /// Per line, the nearest line above with less indentation; computed on
    /// the first fingerprint.
    parents: Option<Vec<Option<usize>>>,
    /// Each line's digest (its text without a comment, normalized), taken
    /// once however many findings are on it or under it.
    line_digests: HashMap<usize, [u8; 32]>,
}

impl<'a> FileContext<'a> {
    fn new(source: &'a str, index: &'a LineIndex) -> Self {
        FileContext {
            source,
            index,
            parents: None,
            line_digests: HashMap::new(),
        }
    }

    fn line(&self, line: usize) -> &'a str {
        let start = self.index.line_start(line);
        let end = self.index.line_end(self.source, line);
        self.source.get(start..end).unwrap_or_default()
    }

    /// Each line's enclosing line: the nearest line above, not blank and
    /// not only a comment, that is indented less. A `- ` item counts as
    /// indented half a step more than a key at its column, as YAML nests
    /// a block sequence under a key at the same column.
    fn parents(&mut self) -> &[Option<usize>] {
        if self.parents.is_none() {
            let lines = self.index.line_count();
            let mut parents = Vec::with_capacity(lines);
            // Open lines: (depth, line), depth increasing.
            let mut open: Vec<(usize, usize)> = Vec::new();
            for line in 0..lines {
                let text = self.line(line);
                let content = text.trim_start_matches([' ', '\t']);
                let Some(depth) = depth(text, content) else {
                    parents.push(open.last().map(|&(_, l)| l));
                    continue;
                };
                while open.last().is_some_and(|&(d, _)| d >= depth) {
                    open.pop();
                }
                parents.push(open.last().map(|&(_, l)| l));
                open.push((depth, line));
            }
            self.parents = Some(parents);
        }
        self.parents.as_deref().unwrap_or_default()
    }

    /// The fingerprint of `d` in the file shown as `path`, and the text
    /// an entry shows.
    fn fingerprint(&mut self, path: &str, d: &Diagnostic) -> (String, String) {
        let source = self.source;
        let start = d.span.start.min(source.len());
        let end = d.span.end.clamp(start, source.len());
        let line = self.index.line_of(start);
        // The span's first line: a span over a whole mapping would make
        // every edit inside it a new finding.
        let end = end
            .min(self.index.line_end(source, line).max(start))
            .min(start + HASHED_SPAN);
        let span_text = source
            .get(start..floor(source, end).max(start))
            .unwrap_or_default();
        let span_text = normalize(span_text);
        let mut hasher = Sha256::new();
        let field = |hasher: &mut Sha256, bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(&mut hasher, b"phaselint-baseline-1");
        field(&mut hasher, path.as_bytes());
        field(&mut hasher, d.code.as_str().as_bytes());
        field(&mut hasher, span_text.as_bytes());
        field(&mut hasher, &self.line_digest(line));
        let mut enclosing = self.parents().get(line).copied().flatten();
        let mut taken = 0;
        while let Some(parent) = enclosing
            && taken < ENCLOSING_LINES
        {
            field(&mut hasher, &self.line_digest(parent));
            enclosing = self.parents().get(parent).copied().flatten();
            taken += 1;
        }
        let digest = hasher.finalize();
        let shown: String = span_text.chars().take(SHOWN_TEXT).collect();
        (crate::input::hex(&digest[..16]), shown)
    }

    fn line_digest(&mut self, line: usize) -> [u8; 32] {
        if let Some(digest) = self.line_digests.get(&line) {
            return *digest;
        }
        let text = normalize(without_comment(self.line(line)));
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        self.line_digests.insert(line, digest);
        digest
    }
}

/// A line's nesting depth for `parents`; `None` for a blank line or a
/// comment-only one, which enclose nothing.
fn depth(line: &str, content: &str) -> Option<usize> {
    if content.is_empty() || content.starts_with('#') {
        return None;
    }
    let indent = line.len() - content.len();
    let item = content.starts_with("- ") || content == "-";
    Some(indent * 2 + usize::from(item))
}

/// The largest char boundary of `text` at or below `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A line without its trailing comment: a `#` after a blank (or at the
/// start) outside quotes. A `#` in a block scalar's text is cut too,
/// which changes nothing but how much of that line is hashed.
fn without_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => {
                // `''` inside single quotes is an escaped quote.
                if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')) => {
                return &line[..i];
            }
            None => {}
        }
        i += 1;
    }
    line
}

/// Blanks collapsed to one space and trimmed: indentation and alignment
/// are not what a finding is about. Bounded by `HASHED_LINE`.
fn normalize(text: &str) -> String {
    let text = text.get(..floor(text, HASHED_LINE)).unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    const CONTRACT: &str = "schema_version: '1'\npipeline_id: p\nphases:\n  retrieve:\n    description: fetch\n    exit:\n      required:\n        - name: docs\n  generate:\n    long_running: true\n    entry:\n      required:\n        - name: docs\n  review:\n    long_running: true\ncheckpoint_integrity:\n  - checkpoint_id: after_retrieve\n    phase: retrieve\n";

    fn entries(source: &str) -> Vec<(String, String)> {
        let analysis = crate::analyze(source, &Settings::default());
        let mut baseline = Baseline::default();
        baseline.record("a.contract.yaml", &analysis);
        baseline
            .entries
            .iter()
            .map(|((_, code, fp), _)| (code.clone(), fp.clone()))
            .collect()
    }

    #[test]
    fn unrelated_edits_keep_every_fingerprint() {
        let before = entries(CONTRACT);
        assert!(before.len() >= 2, "{before:?}");
        let edited = CONTRACT
            .replace(
                "pipeline_id: p\n",
                "pipeline_id: p\n# a note\n\n# another\n",
            )
            .replace("description: fetch", "description: fetch every document")
            .replace("  review:\n", "  review:   # reviewed by a person\n");
        assert_eq!(entries(&edited), before);
        // A phase's keys indented further.
        let reindented = CONTRACT.replace(
            "  generate:\n    long_running: true\n    entry:\n      required:\n        - name: docs\n",
            "  generate:\n        long_running: true\n        entry:\n          required:\n          - name: docs\n",
        );
        assert_ne!(reindented, CONTRACT);
        assert_eq!(entries(&reindented), before);
    }

    #[test]
    fn the_same_finding_elsewhere_is_another_fingerprint() {
        let before = entries(CONTRACT);
        // The review phase renamed: its C203 is a new finding.
        let renamed = entries(&CONTRACT.replace("review:", "approve:"));
        assert_eq!(renamed.len(), before.len());
        assert_ne!(renamed, before);
    }

    #[test]
    fn a_baseline_hides_each_finding_as_often_as_it_counts() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let mut baseline = Baseline::default();
        baseline.record("a.contract.yaml", &analysis);
        let text = baseline.to_json();
        assert_eq!(Baseline::parse(text.as_bytes()).unwrap(), baseline);
        let mut again = crate::analyze(CONTRACT, &Settings::default());
        let mut matcher = baseline.matcher();
        assert_eq!(
            matcher.hide("a.contract.yaml", &mut again),
            analysis.diagnostics.len()
        );
        assert!(again.diagnostics.is_empty());
        assert!(matcher.fixed(|_| false).is_empty());
        // Another file of the same text is not covered.
        let mut other = crate::analyze(CONTRACT, &Settings::default());
        assert_eq!(matcher.hide("b.contract.yaml", &mut other), 0);
    }

    #[test]
    fn two_identical_findings_count_twice() {
        let mut analysis = crate::analyze(CONTRACT, &Settings::default());
        let first = analysis.diagnostics[0].clone();
        analysis.diagnostics.insert(0, first.clone());
        let mut baseline = Baseline::default();
        baseline.record("a", &analysis);
        let counts: Vec<usize> = baseline.entries.values().map(|(n, _)| *n).collect();
        assert!(counts.contains(&2), "{counts:?}");
        // Three of them: the baseline hides two, the third is new.
        analysis.diagnostics.insert(0, first);
        let total = analysis.diagnostics.len();
        assert_eq!(baseline.matcher().hide("a", &mut analysis), total - 1);
        assert_eq!(analysis.diagnostics.len(), 1);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let error = |text: &str| Baseline::parse(text.as_bytes()).unwrap_err().to_string();
        assert!(error("{").starts_with("it is not a phaselint baseline: EOF"));
        assert!(error("{\"version\": 2, \"findings\": []}").contains("version 2"));
        assert!(error("{\"findings\": []}").contains("no `version`"));
        assert!(error("{\"version\": 1, \"findings\": [{\"path\": 1}]}").contains("line 1"));
    }

    #[test]
    fn paths_are_relative_and_slashed() {
        let base = Path::new("/repo/ci");
        assert_eq!(path_key(Path::new("/repo/ci/a/b.yaml"), base), "a/b.yaml");
        assert_eq!(
            path_key(Path::new("/repo/x/./y/../b.yaml"), base),
            "../x/b.yaml"
        );
    }

    #[test]
    fn comments_are_cut_outside_quotes_only() {
        assert_eq!(without_comment("a: 1 # c"), "a: 1 ");
        assert_eq!(without_comment("a: 'x # y' # c"), "a: 'x # y' ");
        assert_eq!(without_comment("a: \"x \\\" # y\""), "a: \"x \\\" # y\"");
        assert_eq!(without_comment("a: b#c"), "a: b#c");
    }
}
