#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from fixtures/ and the real
# contracts in ../shared/corpus (read from there, never copied into the
# repository). Idempotent; the corpus folder is not committed.
set -euo pipefail
cd "$(dirname "$0")"
repo=..
shared=../../shared/corpus
mkdir -p corpus/analyze corpus/resume_readers corpus/resume_check corpus/lsp_framing corpus/fixes

seed() { # target file
  local name
  name=$(sha1sum "$2" | cut -c1-16)
  cp "$2" "corpus/$1/$name"
}

contracts=$(find "$repo/fixtures" -name '*.yaml' -o -name '*.harness.json')
if [ -d "$shared" ]; then
  contracts="$contracts $(find "$shared" -name '*.yaml')"
else
  echo "note: $shared not found; seeding from fixtures/ only" >&2
fi
for f in $contracts; do seed analyze "$f"; seed fixes "$f"; done
for f in "$repo"/fixtures/resume/contexts/* "$repo"/fixtures/resume/approvals/* "$repo"/fixtures/handoff/*; do
  seed resume_readers "$f"
done
printf '2026-01-01T00:00:00Z\n15m\n90s\n2026-03-01T14:00:00+05:30\n1d\n' > /tmp/phaselint-seed-times
seed resume_readers /tmp/phaselint-seed-times

tmp=$(mktemp)
for c in "$repo"/fixtures/resume/contracts/*.yaml; do
  for x in "$repo"/fixtures/resume/contexts/*; do
    { cat "$c"; printf '\n---context---\n'; cat "$x"; } > "$tmp"
    seed resume_check "$tmp"
  done
done

frame() { # body
  LC_ALL=C
  printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"
}
session() {
  frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
  frame '{"jsonrpc":"2.0","method":"initialized","params":{}}'
  frame '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.contract.yaml","languageId":"yaml","version":1,"text":"schema_version: 1\npipeline_id: p\nphases: {}\n"}}}'
  frame '{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.contract.yaml"},"position":{"line":0,"character":3}}}'
  frame '{"jsonrpc":"2.0","id":3,"result":null}'
  frame '{"jsonrpc":"2.0","id":4,"method":"shutdown"}'
}
session > "$tmp"; seed lsp_framing "$tmp"
{ printf 'Content-Length: 99999999999\r\n\r\n{}'; session; } > "$tmp"; seed lsp_framing "$tmp"
{ printf 'Content-Length: 5\r\n\r\n{"a":1,"a":2}'; session; } > "$tmp"; seed lsp_framing "$tmp"
rm -f "$tmp"
for t in analyze resume_readers resume_check lsp_framing fixes; do
  echo "corpus/$t: $(ls "corpus/$t" | wc -l) seeds"
done
