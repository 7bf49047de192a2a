#!/usr/bin/env bash
# Runs one fuzz target: fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags]
# Needs the nightly toolchain and cargo-fuzz; says so and exits 0 without
# them, so scripts that call it do not fail on a stable-only machine.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh analyze|resume_readers|resume_check|lsp_framing|lsp_edits|fixes|manifest_scope|handoff_tables|otlp_export|diff|diff_render [SECONDS]}
seconds=${2:-600}
shift $(( $# < 2 ? $# : 2 ))
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "skipping fuzz target $target: the nightly toolchain is not installed (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "skipping fuzz target $target: cargo-fuzz is not installed (cargo install cargo-fuzz)"
  exit 0
fi
./seed.sh >/dev/null
# Short inputs keep each run fast; what breaks the analysis breaks it small.
case "$target" in
  lsp_framing) dict=lsp.dict; max_len=16384 ;;
  resume_readers|manifest_scope|handoff_tables|otlp_export) dict=contract.dict; max_len=4096 ;;
  diff_modes) dict=contract.dict; max_len=16384 ;;
  *) dict=contract.dict; max_len=8192 ;;
esac
exec cargo +nightly fuzz run "$target" "corpus/$target" -- \
  -dict="$dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -max_len="$max_len" -print_final_stats=1 "$@"
