//! The analysis thread and what it hands back: one analysis at a time, a
//! panicking analysis caught and turned into its message.

use std::sync::Arc;

use phaselint_lint::config::Settings;
use phaselint_lint::index::SymbolIndex;
use phaselint_lint::{Analysis, DocumentKind, analyze_document};

/// Runs analyses one at a time on one thread. Analyses of large documents
/// allocate hundreds of megabytes; on a pool, each thread's allocator arena
/// would keep its own high-water mark, multiplying the server's memory.
#[derive(Clone)]
pub struct Analyzer {
    jobs: std::sync::mpsc::Sender<Box<dyn FnOnce() + Send>>,
    release: fn(),
}

impl Analyzer {
    pub fn start(release: fn()) -> std::io::Result<Self> {
        let (jobs, queue) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
        std::thread::Builder::new()
            .name("phaselint-analysis".into())
            .spawn(move || {
                for job in queue {
                    job();
                }
            })?;
        Ok(Analyzer { jobs, release })
    }

    /// Analyzes a document on the analysis thread. `prepare` runs there,
    /// when the job's turn comes, and hands over the text and settings, or
    /// `None` when the version asked for is no longer current: edits that
    /// arrive while a long analysis runs queue jobs that would only analyze
    /// text already replaced (and hold a copy of it while they wait).
    /// `Ok(None)` for such a job; `Err` with the reason if the analysis
    /// panicked (a bug, answered instead of taking the server down) or the
    /// thread is gone.
    pub async fn analyze(
        &self,
        version: i32,
        generation: u64,
        prepare: impl FnOnce() -> Option<(String, Settings, DocumentKind)> + Send + 'static,
    ) -> Result<Option<Arc<Analyzed>>, String> {
        self.submit(move || {
            let Some((text, settings, kind)) = prepare() else {
                return Ok(None);
            };
            caught(move || Arc::new(Analyzed::new(version, generation, text, kind, &settings)))
                .map(Some)
        })
        .await
    }

    /// Runs `job` on the analysis thread, after the jobs already queued:
    /// the workspace index reads and analyzes files there, so they share
    /// the one allocator arena and queue behind document analyses. `Err`
    /// if it panicked or the thread is gone.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, String> {
        self.submit(move || caught(job)).await
    }

    /// Queues `job` on the analysis thread and waits for what it returns;
    /// `Err` if the thread is gone.
    async fn submit<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let (send, receive) = tokio::sync::oneshot::channel();
        let job = Box::new(move || {
            let _ = send.send(job());
        });
        let gone = || "the analysis thread has stopped".to_string();
        self.jobs.send(job).map_err(|_| gone())?;
        receive.await.map_err(|_| gone())?
    }

    /// Drops `value` (a replaced analysis) on the analysis thread, after
    /// the job under way: freeing a large document's model and index takes
    /// milliseconds that would otherwise come before its new diagnostics
    /// are published.
    pub fn drop_later<T: Send + 'static>(&self, value: T) {
        let _ = self.jobs.send(Box::new(move || drop(value)));
    }

    /// Hands memory freed by dropped analyses back to the system, after
    /// whatever the analysis thread is doing now, on that thread (whose
    /// heap the analyses were allocated from).
    pub fn release_freed_memory(&self) {
        let release = self.release;
        let _ = self.jobs.send(Box::new(release));
    }
}

/// What `job` returns, or why it panicked (a bug, answered instead of
/// taking the server down).
fn caught<T>(job: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
        .map_err(|panic| format!("the analysis panicked: {}", panic_message(panic.as_ref())))
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// One analysis of one version of a document, with what the handlers need
/// to answer from it without parsing again.
pub struct Analyzed {
    pub version: i32,
    /// Bumped when the configuration changes, so the same version can be
    /// analyzed and published again.
    pub generation: u64,
    pub analysis: Analysis,
    pub index: SymbolIndex,
}

impl Analyzed {
    pub fn new(
        version: i32,
        generation: u64,
        text: String,
        kind: DocumentKind,
        settings: &Settings,
    ) -> Self {
        let analysis = analyze_document(text, kind, settings);
        let index = analysis
            .contract()
            .map(SymbolIndex::build)
            .unwrap_or_default();
        Analyzed {
            version,
            generation,
            analysis,
            index,
        }
    }
}
