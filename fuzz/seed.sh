#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from fixtures/ and the real
# contracts in ../shared/corpus (read from there, never copied into the
# repository). Idempotent; the corpus folder is not committed.
set -euo pipefail
cd "$(dirname "$0")"
repo=..
shared=../../shared/corpus
mkdir -p corpus/analyze corpus/resume_readers corpus/resume_check corpus/lsp_framing corpus/lsp_edits corpus/fixes \
  corpus/manifest_scope corpus/handoff_tables corpus/otlp_export corpus/diff corpus/diff_render

seed() { # target file
  local name
  name=$(sha1sum "$2" | cut -c1-16)
  cp "$2" "corpus/$1/$name"
}

tmp_edits=$(mktemp)
contracts=$(find "$repo/fixtures" -name '*.yaml' -o -name '*.harness.json')
if [ -d "$shared" ]; then
  contracts="$contracts $(find "$shared" -name '*.yaml')"
else
  echo "note: $shared not found; seeding from fixtures/ only" >&2
fi
for f in $contracts; do seed analyze "$f"; seed fixes "$f"; done
# lsp_edits: each fixture contract, then a script (its own bytes read as one).
for f in "$repo"/fixtures/*/fail.contract.yaml; do
  { cat "$f"; printf '\n---edits---\n'; head -c 192 "$f"; } > "$tmp_edits"
  seed lsp_edits "$tmp_edits"
done
for f in "$repo"/fixtures/diff/*/*.yaml; do seed diff_render "$f"; done
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

# diff: the base of fixtures/diff/ against each NEW there, and back.
for new in "$repo"/fixtures/diff/*/*.contract.yaml; do
  { cat "$repo/fixtures/diff/base.contract.yaml"; printf '\n---new---\n'; cat "$new"; } > "$tmp"
  seed diff "$tmp"
  { cat "$new"; printf '\n---new---\n'; cat "$repo/fixtures/diff/base.contract.yaml"; } > "$tmp"
  seed diff "$tmp"
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

# Scope trees: real copies, links in and out of the root, hard links.
printf '%s\n' 'd r/src' 'f r/src/app.py v1' 'f r/config.toml c1' 'l r/current src' \
  'd r/.checkpoints/c/src' 'f r/.checkpoints/c/src/app.py v1' 'f r/.checkpoints/c/config.toml c1' \
  '---' 'id c' 'src/app.py' 'config.toml' > "$tmp"; seed manifest_scope "$tmp"
printf '%s\n' 'd r/src' 'f r/src/app.py v1' 'l r/leak /etc/passwd' 'l r/up src/../..' 'l r/in current/app.py' \
  'l r/current src' 'l r/loop loop' 'p r/pipe' 'd r/.checkpoints' 'l r/.checkpoints/c ..' \
  '---' 'id c' 'src/app.py' 'in' 'leak' 'up/etc/passwd' 'loop' 'pipe' 'current/../src/app.py' > "$tmp"
seed manifest_scope "$tmp"
printf '%s\n' 'f r/a v1' 'h r/.checkpoints/c/a r/a' 'f r/src/b v2' 'l r/.checkpoints/c/b ../../src/b' \
  '---' 'id c' 'a' 'src/b' > "$tmp"; seed manifest_scope "$tmp"
# Task tables: the skill's rows, a short row, a long one, escaped pipes.
printf '%s\n' '' '| 1 | Implement feature A | completed | worker-1 |' \
  '| 2 | Implement feature B | in_progress | worker-2 |' '| 3 | Add tests for A | pending | - |' > "$tmp"
seed handoff_tables "$tmp"
printf '%s\n' ' Blocked By |' '| 1 | a \| b | completed | w | |' '| 2 | `c | d` | blocked | - | 1 |' \
  '| 3 | e | pending |' '| 4 | f | pending | - | 2 | x |' '|| 5 | g |' > "$tmp"
seed handoff_tables "$tmp"
# The exporter's environment and a collector's answers.
printf '%s\n' 'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318/' 'OTEL_EXPORTER_OTLP_PROTOCOL=http/json' \
  'OTEL_EXPORTER_OTLP_HEADERS=api-key=a%20b,x=%0d%0aHost: evil,bad name=1' \
  'OTEL_RESOURCE_ATTRIBUTES=service.name=s,team=a%2Cb' 'OTEL_SERVICE_NAME=orchestrator' \
  'TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' 'TRACESTATE=congo=t61' \
  'checkpoint.stale.field' 'index.snapshot' > "$tmp"
printf '%s' '---answer---HTTP/1.1 200 OK' >> "$tmp"; seed otlp_export "$tmp"
printf '%s\n' 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1]:4318/v1/traces?x=1' 'OTEL_EXPORTER_OTLP_TIMEOUT=300' \
  'TRACEPARENT=01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-more' > "$tmp"
printf '%s' '---answer---HTTP/1.1 400 Bad Request' >> "$tmp"; printf '\r\ncontent-length: 5\r\n\r\n\033[2Jx' >> "$tmp"
seed otlp_export "$tmp"
rm -f "$tmp"
for t in analyze resume_readers resume_check lsp_framing fixes manifest_scope handoff_tables otlp_export diff_render; do
  echo "corpus/$t: $(ls "corpus/$t" | wc -l) seeds"
done
