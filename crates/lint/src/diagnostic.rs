//! What a rule reports. Diagnostics are plain data: spans are byte ranges,
//! fixes are text edits, and every renderer (terminal, JSON, LSP) reads the
//! same values.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use crate::line_index::LineIndex;
use crate::rule_id::RuleId;

use crate::syntax::Span;

/// Names as a message lists them: each in backticks, joined by commas
/// (`` `a`, `b` ``).
pub fn code_list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Applying it cannot change what the contract means beyond the finding.
    Safe,
    /// A suggestion (a did-you-mean); a human should look before applying.
    Unsafe,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What applying the fix does, for code-action titles.
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

/// A location the finding relates to: a span of the diagnostic's own file,
/// or, with `file`, of another one (`phaselint diff`'s OLD contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub message: String,
    /// The file `span` is in when it is not the diagnostic's own.
    pub file: Option<Arc<OtherFile>>,
}

/// Another file a related location points into, with what every renderer
/// needs to place and show it: the name it is shown under (`-` for
/// standard input), its text and line index. Shared by every finding that
/// points into it.
#[derive(Debug)]
pub struct OtherFile {
    pub path: PathBuf,
    pub source: String,
    pub line_index: LineIndex,
}

impl OtherFile {
    pub(crate) fn new(path: impl Into<PathBuf>, source: &str) -> Self {
        OtherFile {
            path: path.into(),
            source: source.to_string(),
            line_index: LineIndex::new(source),
        }
    }
}

impl PartialEq for OtherFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.source == other.source
    }
}

impl Eq for OtherFile {}

/// A finding. Its help is often a fixed text (borrowed, not copied) and
/// its fix is boxed: a file may have 200,000 findings, and each was 168
/// bytes before its texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: RuleId,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub related: Vec<Related>,
    pub help: Option<Cow<'static, str>>,
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    pub(crate) fn new(
        code: RuleId,
        severity: Severity,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            span,
            related: Vec::new(),
            help: None,
            fix: None,
        }
    }

    pub(crate) fn with_help(mut self, help: impl Into<Cow<'static, str>>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
            file: None,
        });
        self
    }

    pub(crate) fn with_related_location(mut self, related: Related) -> Self {
        self.related.push(related);
        self
    }

    pub(crate) fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(Box::new(fix));
        self
    }
}
