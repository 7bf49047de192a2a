//! The architecture invariants of ARCHITECTURE.md that a test can check,
//! read off the source tree as plain text: which crate may do what, no
//! import circle between the files of a crate, the file size limit, and
//! every rule with its page and two fixtures. Each failure says what to do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Source files (not tests) longer than this are split along their seams.
const MAX_LINES: usize = 700;

/// Files over the limit whose split along their seams is still to do (the
/// structure part of issue 25 split `graph.rs`, `resume/check.rs` and the
/// language server's `server.rs` first). Temporary: each entry leaves this
/// list when its file is split; the test fails when one is already short.
const NOT_YET_SPLIT: &[&str] = &[];

/// Every crate whose files must not import each other in a loop.
const CRATES: &[&str] = &[
    "crates/lint",
    "crates/lsp",
    "crates/render",
    "crates/cli",
    "crates/otlp",
    "crates/bench",
    "crates/fuzzing",
    "crates/python",
];

/// A source file of a crate, with its text stripped of comments, string and
/// character literals (so a word in a message or a doc is never taken for
/// code) and of its unit tests.
struct SourceFile {
    /// Relative to the repository root, with `/` separators.
    path: String,
    /// The module path inside its crate (`[]` for `lib.rs` or `main.rs`).
    module: Vec<String>,
    code: String,
    lines: usize,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// A file's test-only part: a sibling `tests.rs` (or `*/tests/*.rs`) is a
/// test file; an inline `#[cfg(test)]` module is cut off.
fn is_test_file(relative: &str) -> bool {
    relative.ends_with("/tests.rs") || relative.contains("/tests/")
}

fn crate_files(krate: &str) -> Vec<SourceFile> {
    let root = repo();
    let src = root.join(krate).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let mut files = Vec::new();
    for path in paths {
        let inside = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let relative = format!("{krate}/src/{inside}");
        if is_test_file(&relative) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let mut module: Vec<String> = inside
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_owned)
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        files.push(SourceFile {
            path: relative,
            module,
            code: without_tests(&strip_comments_and_literals(&text)),
            lines: text.lines().count(),
        });
    }
    files
}

/// Blanks out comments, string literals and character literals, keeping
/// every newline so line numbers still hold.
fn strip_comments_and_literals(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, slice: &[u8]| {
        for &b in slice {
            out.push(if b == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let mut depth = 0usize;
            let mut j = 0;
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if (rest.starts_with(b"r\"")
            || rest.starts_with(b"r#")
            || rest.starts_with(b"br\"")
            || rest.starts_with(b"br#"))
            && (i == 0 || !is_ident_byte(bytes[i - 1]))
        {
            let start = if rest[0] == b'b' { 2 } else { 1 };
            let hashes = rest[start..].iter().take_while(|&&b| b == b'#').count();
            if rest.get(start + hashes) != Some(&b'"') {
                out.push(rest[0] as char);
                i += 1;
                continue;
            }
            let mut closing = vec![b'"'];
            closing.extend(std::iter::repeat_n(b'#', hashes));
            let body = start + hashes + 1;
            let end = rest[body..]
                .windows(closing.len())
                .position(|window| window == closing.as_slice())
                .map_or(rest.len(), |at| body + at + closing.len());
            out.push('"');
            blank(&mut out, &rest[1..end.saturating_sub(1)]);
            out.push('"');
            i += end;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            out.push('"');
            blank(&mut out, &rest[1..end.saturating_sub(1)]);
            out.push('"');
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', '"'), or a lifetime.
            let end = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&b| b == b'\'').map(|at| at + 3)
            } else {
                let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + width) == Some(&b'\'')).then_some(width + 2)
            };
            match end {
                Some(end) => {
                    out.push_str("' '");
                    blank(&mut out, &rest[3.min(end)..end]);
                    i += end;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let width = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + width]);
            i += width;
        }
    }
    out
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The code without its inline `#[cfg(test)] mod … { … }` blocks (also
/// `#[cfg(all(test, unix))]`; blanked, newlines kept): what unit tests
/// import is not the file's design.
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(") {
        let start = from + at;
        from = start + 1;
        let Some(close) = out[start..].find(']').map(|i| start + i) else {
            break;
        };
        let condition = &out[start + "#[cfg(".len()..close];
        if !(condition == "test)" || condition.starts_with("all(test,")) {
            continue;
        }
        let after_attribute = close + 1;
        let rest = out[after_attribute..].trim_start();
        if !(rest.starts_with("mod ") || rest.starts_with("pub(crate) mod ")) {
            continue;
        }
        let Some(open) = out[after_attribute..]
            .find(['{', ';'])
            .map(|i| after_attribute + i)
        else {
            break;
        };
        if out.as_bytes()[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut end = out.len();
        for (offset, byte) in out.as_bytes()[open..].iter().enumerate() {
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + offset + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(start..end, &blanked);
    }
    out
}

/// Each line holding `needle` as a whole path or word.
fn lines_with(code: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(needle) {
        let start = from + at;
        let end = start + needle.len();
        let before_ok = start == 0 || !is_ident_byte(code.as_bytes()[start - 1]);
        let after_ok =
            end >= code.len() || !is_ident_byte(code.as_bytes()[end]) || needle.ends_with("::");
        if before_ok && after_ok {
            found.push(code[..start].matches('\n').count() + 1);
        }
        from = end;
    }
    found
}

fn forbidden_uses(files: &[SourceFile], needles: &[&str], allowed: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        if allowed.contains(&file.path.as_str()) {
            continue;
        }
        for needle in needles {
            for line in lines_with(&file.code, needle) {
                found.push(format!("{}:{line}: {needle}", file.path));
            }
        }
    }
    found
}

/// Lint files allowed process input, each with the reason and the way out.
const LINT_PROCESS_EXCEPTIONS: &[(&str, &str)] = &[(
    "crates/lint/src/resume/request.rs",
    "`-` reads a document from standard input for both the CLI and the Python module; \
     to move behind the caller (a reader passed in)",
)];

#[test]
fn the_analyzer_knows_no_terminal_and_no_process() {
    let files = crate_files("crates/lint");
    let found = forbidden_uses(
        &files,
        &[
            "std::process",
            "process::Command",
            "process::exit",
            "std::io::stdin",
            "std::io::stdout",
            "std::io::stderr",
            "io::stdin",
            "io::stdout",
            "io::stderr",
            "IsTerminal",
            "std::env::args",
            "env::args",
            "println!",
            "eprintln!",
            "print!",
            "eprint!",
        ],
        &LINT_PROCESS_EXCEPTIONS
            .iter()
            .map(|(path, _)| *path)
            .collect::<Vec<_>>(),
    );
    assert!(
        found.is_empty(),
        "Architecture invariant: crates/lint knows nothing of terminals or processes. \
         Move the terminal or process code to crates/cli (or behind a trait the CLI implements, \
         as `Operator` and `Recoverer` are):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_language_server_parses_nothing_itself() {
    let files = crate_files("crates/lsp");
    let found = forbidden_uses(
        &files,
        &[
            "saphyr",
            "saphyr_parser",
            "syntax::parse",
            "schema::build",
            "serde_yaml",
            "PhaseGraph::build",
        ],
        &[],
    );
    assert!(
        found.is_empty(),
        "Architecture invariant: crates/lsp parses and checks nothing itself; it answers from the \
         cached `Analysis` that `phaselint_lint::analyze` made. Call the analyzer instead:\n{}",
        found.join("\n")
    );
}

/// CLI files that may open a file themselves, each for writing or for what
/// `input` cannot read (ARCHITECTURE.md, "Crates").
const CLI_FILE_ACCESS: &[(&str, &str)] = &[
    (
        "crates/cli/src/atomic_write.rs",
        "writes reports and configuration complete-or-absent",
    ),
    (
        "crates/cli/src/harness.rs",
        "opens a harness directory to sync its renames, never to read",
    ),
];

#[test]
fn the_cli_reads_files_only_through_input() {
    let files = crate_files("crates/cli");
    let allowed: Vec<&str> = CLI_FILE_ACCESS.iter().map(|(path, _)| *path).collect();
    let found = forbidden_uses(
        &files,
        &[
            "fs::read",
            "fs::read_to_string",
            "File::open",
            "read_to_string(",
        ],
        &allowed,
    );
    assert!(
        found.is_empty(),
        "Architecture invariant: the CLI reads files only through `phaselint_lint::input` \
         (size bounds, regular files only, one message per failure). Read through `input`, \
         or, for a write, add the file to CLI_FILE_ACCESS in tests/tidy.rs with the reason:\n{}",
        found.join("\n")
    );
}

#[test]
fn source_files_stay_under_the_size_limit() {
    let mut too_long = Vec::new();
    let mut split_already = Vec::new();
    for krate in CRATES {
        for file in crate_files(krate) {
            let waiting = NOT_YET_SPLIT.contains(&file.path.as_str());
            if file.lines > MAX_LINES && !waiting {
                too_long.push(format!("{}: {} lines", file.path, file.lines));
            }
            if file.lines <= MAX_LINES && waiting {
                split_already.push(file.path);
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "Architecture invariant: no source file outside tests exceeds {MAX_LINES} lines. \
         Split these along their seams (one concern per file; unit tests may move to a \
         sibling `tests.rs`):\n{}",
        too_long.join("\n")
    );
    assert!(
        split_already.is_empty(),
        "These files are within {MAX_LINES} lines now: remove them from NOT_YET_SPLIT in \
         tests/tidy.rs:\n{}",
        split_already.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Import circles.

/// The paths a `use` tree names, one per leaf (`a::{b, c::d}` is `a::b`,
/// `a::c::d`); `self` names the prefix itself.
fn expand_use_tree(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let close = tree.rfind('}').unwrap_or(tree.len());
        let inner = &tree[open + 1..close];
        let joined = join_path(prefix, head);
        for part in split_top_level(inner) {
            expand_use_tree(part, &joined, out);
        }
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        if path.is_empty() {
            return;
        }
        if path == "self" {
            out.push(prefix.to_owned());
        } else {
            out.push(join_path(prefix, path));
        }
    }
}

fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{path}"),
    }
}

fn split_top_level(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (at, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// A `use` declaration: whether it re-exports (`pub use`, `pub(crate) use`)
/// and the paths it names.
struct UseDecl {
    public: bool,
    paths: Vec<String>,
    /// Where the declaration is in the code, `use` through `;`.
    range: std::ops::Range<usize>,
}

fn use_declarations(code: &str) -> Vec<UseDecl> {
    let mut decls = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + 4;
        if start > 0 && is_ident_byte(bytes[start - 1]) {
            continue;
        }
        // Only a declaration: `use` at the start of a statement or after a
        // visibility.
        let before = code[..start].trim_end();
        let public = before.ends_with("pub") || (before.ends_with(')') && before.contains("pub("));
        let statement_start = before.is_empty()
            || before.ends_with(';')
            || before.ends_with('{')
            || before.ends_with('}')
            || before.ends_with(']')
            || public;
        if !statement_start {
            continue;
        }
        let Some(end) = code[start..].find(';') else {
            break;
        };
        let tree = &code[start + 4..start + end];
        let mut paths = Vec::new();
        expand_use_tree(tree, "", &mut paths);
        decls.push(UseDecl {
            public,
            paths,
            range: start..start + end + 1,
        });
        from = start + end;
    }
    decls
}

/// Paths written in code (`crate::a::b`, `super::x`, `self::y`), outside `use`.
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            if start > 0
                && (is_ident_byte(code.as_bytes()[start - 1]) || code.as_bytes()[start - 1] == b':')
            {
                continue;
            }
            let end = code[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |len| start + len);
            // `crate::a::{b, c}` and `crate::a::*` are use trees, read whole
            // by `use_declarations`.
            if code[end..].starts_with(['{', '*']) {
                continue;
            }
            paths.push(code[start..end].trim_end_matches(':').to_owned());
        }
    }
    paths
}

/// Paths written in code that start at a module known by its bare name:
/// a child module (`checkpoint::c201_approval_without_policy::RULE` in
/// `rules/mod.rs`), or one a `use` brought in (`use super::checkpoint;`
/// then `checkpoint::c201_approval_without_policy::RULE` in
/// `rules/registry.rs`). `named` maps each such name to the path it stands
/// for (`self::checkpoint`, `crate::rules::checkpoint`).
fn named_module_paths(code: &str, named: &BTreeMap<String, String>) -> Vec<String> {
    let mut paths = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("::") {
        let colons = from + at;
        from = colons + 2;
        let start = code[..colons]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if start == colons || code[..start].ends_with(':') {
            continue;
        }
        let Some(stands_for) = named.get(&code[start..colons]) else {
            continue;
        };
        let end = code[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .map_or(code.len(), |len| start + len);
        if code[end..].starts_with(['{', '*']) {
            continue;
        }
        let rest = code[colons..end].trim_end_matches(':');
        paths.push(format!("{stands_for}{rest}"));
    }
    paths
}

struct CrateModules<'a> {
    by_module: BTreeMap<Vec<String>, usize>,
    files: &'a [SourceFile],
    uses: Vec<Vec<UseDecl>>,
}

impl CrateModules<'_> {
    /// The absolute segments a path written in `module` names, or `None`
    /// for another crate's path.
    fn absolute(&self, module: &[String], path: &str, in_use: bool) -> Option<Vec<String>> {
        let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let mut base: Vec<String> = match segments.first().copied() {
            Some("crate") => {
                segments.remove(0);
                Vec::new()
            }
            Some("self") => {
                segments.remove(0);
                module.to_vec()
            }
            Some("super") => {
                let mut base = module.to_vec();
                while segments.first() == Some(&"super") {
                    segments.remove(0);
                    base.pop();
                }
                base
            }
            // In a `use`, a path may start at a child module of this one.
            Some(first) if in_use => {
                let mut child = module.to_vec();
                child.push(first.to_owned());
                if !self.by_module.contains_key(&child) {
                    return None;
                }
                module.to_vec()
            }
            _ => return None,
        };
        base.extend(segments.iter().map(|s| (*s).to_owned()));
        Some(base)
    }

    /// The file that defines what `segments` names, following re-exports.
    fn resolve(&self, segments: &[String], depth: usize) -> Option<usize> {
        let mut split = segments.len();
        while split > 0 && !self.by_module.contains_key(&segments[..split]) {
            split -= 1;
        }
        let file = *self.by_module.get(&segments[..split])?;
        let Some(item) = segments.get(split) else {
            return Some(file);
        };
        if depth > 8 {
            return Some(file);
        }
        // A name re-exported by `pub use` is defined where it comes from.
        let module = &self.files[file].module;
        for decl in &self.uses[file] {
            if !decl.public {
                continue;
            }
            for path in &decl.paths {
                let last = path.rsplit("::").next().unwrap_or(path);
                if last == item
                    && let Some(target) = self.absolute(module, path, true)
                    && let Some(found) = self.resolve(&target, depth + 1)
                {
                    return Some(found);
                }
            }
        }
        Some(file)
    }
}

/// For each file, the files it imports (by index into `files`).
fn import_edges(files: &[SourceFile]) -> Vec<BTreeSet<usize>> {
    let by_module = files
        .iter()
        .enumerate()
        .map(|(index, file)| (file.module.clone(), index))
        .collect();
    let uses = files
        .iter()
        .map(|file| use_declarations(&file.code))
        .collect();
    let modules = CrateModules {
        by_module,
        files,
        uses,
    };
    let mut edges = vec![BTreeSet::new(); files.len()];
    for (index, file) in files.iter().enumerate() {
        // A `pub use` only hands a name on (a module's face): whoever uses
        // the name is tied to the file that defines it, not to the face.
        let used = modules.uses[index]
            .iter()
            .filter(|decl| !decl.public)
            .flat_map(|decl| decl.paths.iter().map(|path| (path.clone(), true)));
        // The bare names that stand for a module here: its child modules,
        // and the modules its own `use`s bring in.
        let mut named: BTreeMap<String, String> = modules
            .by_module
            .keys()
            .filter(|other| other.len() == file.module.len() + 1 && other.starts_with(&file.module))
            .map(|child| {
                (
                    child[child.len() - 1].clone(),
                    format!("self::{}", child[child.len() - 1]),
                )
            })
            .collect();
        for decl in modules.uses[index].iter().filter(|decl| !decl.public) {
            for path in &decl.paths {
                if let Some(segments) = modules.absolute(&file.module, path, true)
                    && modules.by_module.contains_key(&segments)
                    && let Some(last) = segments.last()
                {
                    named.insert(last.clone(), format!("crate::{}", segments.join("::")));
                }
            }
        }
        // Paths outside the `use` declarations, read above.
        let mut code = file.code.clone();
        for decl in &modules.uses[index] {
            code.replace_range(decl.range.clone(), &" ".repeat(decl.range.len()));
        }
        let inline = inline_paths(&code)
            .into_iter()
            .chain(named_module_paths(&code, &named))
            .map(|path| (path, false));
        for (path, in_use) in used.chain(inline) {
            if let Some(segments) = modules.absolute(&file.module, &path, in_use)
                && let Some(target) = modules.resolve(&segments, 0)
                && target != index
            {
                if std::env::var_os("TIDY_DEBUG").is_some() {
                    eprintln!("{} -> {} ({path})", file.path, files[target].path);
                }
                edges[index].insert(target);
            }
        }
    }
    edges
}

/// The strongly connected components of more than one file (Tarjan,
/// iterative enough for a crate's few hundred files).
fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, node: usize) {
            self.index[node] = Some(self.next);
            self.low[node] = self.next;
            self.next += 1;
            self.stack.push(node);
            self.on_stack[node] = true;
            for &next in self.edges[node].iter() {
                match self.index[next] {
                    None => {
                        self.visit(next);
                        self.low[node] = self.low[node].min(self.low[next]);
                    }
                    Some(index) if self.on_stack[next] => {
                        self.low[node] = self.low[node].min(index)
                    }
                    Some(_) => {}
                }
            }
            if Some(self.low[node]) == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack[top] = false;
                    component.push(top);
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort_unstable();
                    self.found.push(component);
                }
            }
        }
    }
    let n = edges.len();
    let mut tarjan = Tarjan {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for node in 0..n {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    tarjan.found
}

fn describe_circle(files: &[SourceFile], edges: &[BTreeSet<usize>], circle: &[usize]) -> String {
    let members: BTreeSet<usize> = circle.iter().copied().collect();
    let mut text = format!("circle of {} files:\n", circle.len());
    for &from in circle {
        for &to in edges[from].intersection(&members) {
            text.push_str(&format!("  {} -> {}\n", files[from].path, files[to].path));
        }
    }
    text
}

#[test]
fn no_import_circle_between_the_files_of_a_crate() {
    let mut report = String::new();
    for krate in CRATES {
        let files = crate_files(krate);
        let edges = import_edges(&files);
        for circle in circles(&edges) {
            report.push_str(&describe_circle(&files, &edges, &circle));
        }
    }
    assert!(
        report.is_empty(),
        "Architecture invariant: the files of a crate import each other without a circle, so \
         each can be read, tested and moved knowing only what it imports. Break each circle \
         below by moving what both sides share into a file of its own (or into the file that \
         owns the concept), or by passing a value in instead of importing it:\n{report}"
    );
}

#[test]
fn the_circle_finder_sees_a_circle() {
    // Two files importing each other, through a `use` and an inline path.
    let files = [
        ("a", "use crate::b::Thing;\npub struct Other;"),
        ("b", "pub struct Thing;\nfn f() { crate::a::Other; }"),
    ]
    .map(|(name, code)| SourceFile {
        path: format!("{name}.rs"),
        module: vec![name.to_owned()],
        code: strip_comments_and_literals(code),
        lines: 1,
    });
    let edges = import_edges(&files);
    assert_eq!(circles(&edges), vec![vec![0, 1]]);
    // A path in a comment or a string is no import.
    let quiet = [
        ("a", "use crate::b::Thing;"),
        ("b", "// crate::a::X\nconst S: &str = \"crate::a::X\";"),
    ]
    .map(|(name, code)| SourceFile {
        path: format!("{name}.rs"),
        module: vec![name.to_owned()],
        code: strip_comments_and_literals(code),
        lines: 1,
    });
    assert!(circles(&import_edges(&quiet)).is_empty());
    // A module brought in by a `use` and named bare: `b::c::Thing` in `a`
    // imports `b/c.rs`, which imports `a` back.
    let through_a_module = [
        (
            "a.rs",
            "a",
            "use crate::b;\nfn f() { b::c::Thing; }\npub struct Other;",
        ),
        ("b/mod.rs", "b", "pub mod c;"),
        ("b/c.rs", "b/c", "use crate::a::Other;\npub struct Thing;"),
    ]
    .map(|(path, module, code)| SourceFile {
        path: path.to_owned(),
        module: module.split('/').map(str::to_owned).collect(),
        code: strip_comments_and_literals(code),
        lines: 1,
    });
    assert_eq!(circles(&import_edges(&through_a_module)), vec![vec![0, 2]]);
}

// ---------------------------------------------------------------------------
// Rules.

#[test]
fn every_rule_has_a_page_and_two_fixtures() {
    let root = repo();
    let mut rule_files = Vec::new();
    rust_files(&root.join("crates/lint/src/rules"), &mut rule_files);
    let mut codes: Vec<String> = rule_files
        .iter()
        .filter_map(|path| {
            let name = path.file_stem()?.to_str()?;
            let (code, _) = name.split_once('_')?;
            let code = code.to_ascii_uppercase();
            (code.len() == 4 && code[1..].bytes().all(|b| b.is_ascii_digit())).then_some(code)
        })
        .collect();
    // The D-codes are declared together in rules/diff/ and made by
    // `phaselint diff`; their fixtures are pairs under fixtures/diff/.
    let mut diff_codes: Vec<String> = fs::read_dir(root.join("rules"))
        .unwrap()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let code = name.strip_suffix(".md")?;
            code.starts_with('D').then(|| code.to_owned())
        })
        .collect();
    codes.sort();
    diff_codes.sort();
    assert!(
        codes.len() > 10,
        "found only {codes:?} under crates/lint/src/rules"
    );
    let mut missing = Vec::new();
    for code in &codes {
        if !root.join(format!("rules/{code}.md")).is_file() {
            missing.push(format!("{code}: no page rules/{code}.md"));
        }
        check_fixture_pair(&root.join("fixtures").join(code), code, &mut missing);
    }
    for code in &diff_codes {
        check_fixture_pair(&root.join("fixtures/diff").join(code), code, &mut missing);
    }
    assert!(
        missing.is_empty(),
        "Architecture invariant: every rule has its page (rules/CODE.md) and two fixtures, one \
         it passes and one it fails (fixtures/CODE/pass.* and fail.*). Add them:\n{}",
        missing.join("\n")
    );
}

fn check_fixture_pair(dir: &Path, code: &str, missing: &mut Vec<String>) {
    let names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    for side in ["pass", "fail"] {
        if !names
            .iter()
            .any(|name| name.starts_with(&format!("{side}.")) || name == side)
        {
            missing.push(format!(
                "{code}: no {side} fixture in {}",
                dir.strip_prefix(repo()).unwrap_or(dir).display()
            ));
        }
    }
}
