//! Reading the benchmark's command-line flags.

pub(crate) const USAGE: &str = "\
usage:
  phaselint-bench generate --phases N [--topology] [--seed S]
      print a generated contract on stdout
  phaselint-bench run [--sizes 100,1000,5000,13000] [--runs K] [--topology]
                      [--real PATH] [--phaselint PATH] [--tree-files N]
      measure and print a Markdown report on stdout (progress on stderr)
  phaselint-bench parse-only FILE
      read and parse FILE, nothing else (the whole-process parse floor)
  phaselint-bench lsp [--real PATH] [--phases N] [--phaselint PATH] [--workspace N]
      edit-to-diagnostics latency (p50/p95) and server memory of
      `phaselint lsp` on the real contract and a generated N-phase one
      (default 5000); then the real contract's first diagnostics when it
      is opened with a workspace of N copies of it (default 1000; 0 skips
      it), against no workspace, and how long indexing that workspace takes
  phaselint-bench otel [--runs K] [--phaselint PATH] [--rotel PATH]
      whole-process `resume-check` with no OTLP endpoint, a refused one and
      a live rotel collector (ROTEL or --rotel; left out when absent), side
      by side (default 50 rounds)
  phaselint-bench diff [--phases N] [--runs K] [--topology] [--phaselint PATH]
      `phaselint diff OLD NEW` of two generated N-phase contracts (default
      5000) against linting one of them, side by side in one run: in process
      (analysis of both and the diff, against one analysis) and, when the
      binary exists, as whole processes; for three NEWs: OLD itself, OLD with
      every checkpoint renamed (the rename matching's worst case) and a
      contract generated from another seed (default 7 rounds)
  phaselint-bench python PYTHON [ARGS...]
      the Python API's figures (`import phaselint`, resume_check in process
      against the command as a subprocess): runs crates/bench/python_api.py
      with PYTHON, the interpreter of a virtual environment that holds the
      wheel (`python_api.py --help` lists ARGS)

run options:
  --sizes       generated contract sizes in phases (default
                100,1000,5000,13000; from 14000 a file is over the 32 MiB
                input bound); the breakdown by stage and the whole-process
                figures take 5000, or the largest size below it
  --runs        runs per in-process measurement of the large sizes and
                spawns of the largest file (default 7; small inputs get more)
  --topology    generate the sizes with a graph_topology (diamonds)
  --real        a real contract (default
                ../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml)
  --phaselint   the phaselint binary (default target/release/phaselint)
  --tree-files  files in the generated tree (default 10000; 0 skips it)
";

/// A flag's value, parsed.
pub(crate) fn value<T: std::str::FromStr>(
    args: &[String],
    i: &mut usize,
    flag: &str,
) -> Result<T, String> {
    *i += 1;
    let text = args
        .get(*i)
        .ok_or_else(|| format!("{flag} needs a value"))?;
    text.parse()
        .map_err(|_| format!("{flag}: `{text}` is not a valid value"))
}
