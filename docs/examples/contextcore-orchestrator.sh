#!/usr/bin/env bash
# A ContextCore orchestrator's loop over a pipeline's pauses: before each
# resume it asks phaselint, gets ContextCore's own CheckpointResumeResult
# (`--format contextcore`, REQ-10-012) on standard output and the verdict
# as the exit code (0 resume, 1 blocked, 2 denied, 3 no verdict).
#
# The contract is REQ-10's own example (REQ_CONCERN_10_CHECKPOINT_RECOVERY.md,
# "Contract Schema"), with ContextCore's lower-case enum values and the
# staleness fields declared in their phases' exits (REQ-10-010 warns
# otherwise), and without `revalidate_entry` on `post_generation`, after
# which no phase follows to revalidate (C208); the context carries `_cc_propagation` stamps as
# PropagationTracker.stamp writes them (`set_at` from
# `datetime.now(timezone.utc).isoformat()`, `value_hash` 8 hex digits).
set -euo pipefail
. "$(dirname "$0")/expect.sh"

cat > rag.contract.yaml <<'EOF'
schema_version: "0.2.0"
pipeline_id: "retrieval-augmented-generation"
phases:
  retrieve:
    exit:
      required:
        - name: retrieved_context
          severity: blocking
        - name: rag.index_snapshot
          severity: blocking
        - name: model.version
          severity: warning
  generate:
    entry:
      required:
        - name: retrieved_context
          severity: blocking
    exit:
      required:
        - name: generated_output
          severity: blocking
        - name: prompt.template.hash
          severity: warning

propagation_chains:
  - chain_id: retrieval_to_generation
    source: { phase: retrieve, field: retrieved_context }
    destination: { phase: generate, field: retrieved_context }

checkpoint_integrity:
  - checkpoint_id: "post_retrieval"
    phase: "retrieve"
    on_resume:
      revalidate_entry: true
      staleness_checks:
        - field: "rag.index_snapshot"
          max_age_seconds: 3600
          on_stale: blocking
          recovery: "re_retrieve"
          description: "RAG index older than 1 hour requires re-retrieval"
        - field: "model.version"
          max_age_seconds: 86400
          on_stale: warning
          recovery: "log_and_continue"
          description: "Model version changes are logged but non-blocking"
      approval_required: false

  - checkpoint_id: "post_generation"
    phase: "generate"
    on_resume:
      staleness_checks:
        - field: "prompt.template.hash"
          max_age_seconds: 43200
          on_stale: warning
          recovery: "re_generate"
          description: "Prompt template changes within 12 hours are warned"
      approval_required: true
      approval_policy: "human_or_orchestrator"
EOF

# The context the run checkpointed after `retrieve`, at 11:30.
cat > context.json <<'EOF'
{
  "retrieved_context": ["doc-17", "doc-42"],
  "rag": {"index_snapshot": "snap-2026-03-01T11"},
  "model": {"version": "m-7"},
  "_cc_propagation": {
    "retrieved_context": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "6f1ed002"},
    "rag.index_snapshot": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "a3c1f9e2"},
    "model.version": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "4b9d0c11"}
  }
}
EOF

# The orchestrator's re_retrieve step, run by phaselint as the recovery
# hook: it fetches the index snapshot again and stamps it as
# PropagationTracker.stamp would, at 12:59:30.
cat > re-retrieve.sh <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
[ "$PHASELINT_STRATEGY" = re_retrieve ] && [ "$PHASELINT_FIELD" = rag.index_snapshot ] || exit 1
cat > "$PHASELINT_CONTEXT" <<'JSON'
{
  "retrieved_context": ["doc-17", "doc-42"],
  "rag": {"index_snapshot": "snap-2026-03-01T12"},
  "model": {"version": "m-7"},
  "_cc_propagation": {
    "retrieved_context": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "6f1ed002"},
    "rag.index_snapshot": {"origin_phase": "retrieve", "set_at": "2026-03-01T12:59:30.000000+00:00", "value_hash": "e07b5d3a"},
    "model.version": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "4b9d0c11"}
  }
}
JSON
EOF
chmod +x re-retrieve.sh

# Pre-flight (Layer 3): the contract loads clean.
run 0 phaselint lint --format concise rag.contract.yaml

# Pause 1, resumed half an hour later: everything is fresh.
run 0 phaselint resume-check --contract rag.contract.yaml --checkpoint post_retrieval \
  --context context.json --now 2026-03-01T12:00:00Z --format contextcore

# Paused longer: at 13:00 the index snapshot is 90 minutes old, over its
# hour, and it blocks (stale_fields lists it, passed is false).
run 1 phaselint resume-check --contract rag.contract.yaml --checkpoint post_retrieval \
  --context context.json --now 2026-03-01T13:00:00Z --format contextcore

# The orchestrator lets phaselint run its re_retrieve step: the hook
# re-stamps the field, phaselint re-reads the context, and the field is
# fresh (recovery_attempted and recovery_succeeded are true).
run 0 phaselint resume-check --contract rag.contract.yaml --checkpoint post_retrieval \
  --context context.json --now 2026-03-01T13:00:00Z --format contextcore \
  --recover-with ./re-retrieve.sh

# `generate` ran and stamped its output; the run pauses after it.
cat > context.json <<'EOF'
{
  "retrieved_context": ["doc-17", "doc-42"],
  "rag": {"index_snapshot": "snap-2026-03-01T12"},
  "model": {"version": "m-7"},
  "generated_output": "A summary of doc-17 and doc-42.",
  "prompt": {"template": {"hash": "9f86d081"}},
  "_cc_propagation": {
    "retrieved_context": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "6f1ed002"},
    "rag.index_snapshot": {"origin_phase": "retrieve", "set_at": "2026-03-01T12:59:30.000000+00:00", "value_hash": "e07b5d3a"},
    "model.version": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00.250000+00:00", "value_hash": "4b9d0c11"},
    "generated_output": {"origin_phase": "generate", "set_at": "2026-03-01T13:05:00.000000+00:00", "value_hash": "1c8a7e55"},
    "prompt.template.hash": {"origin_phase": "generate", "set_at": "2026-03-01T13:05:00.000000+00:00", "value_hash": "77e0b6f2"}
  }
}
EOF

# Pause 2 needs an approval (human_or_orchestrator): none yet, so denied.
run 2 phaselint resume-check --contract rag.contract.yaml --checkpoint post_generation \
  --context context.json --now 2026-03-01T13:10:00Z --format contextcore

# The orchestrator approves, bound to this checkpoint and this context ...
run 0 phaselint approve --contract rag.contract.yaml --checkpoint post_generation \
  --context context.json --by orchestrator-1 --policy orchestrator \
  --now 2026-03-01T13:09:00Z --output approval.json

# ... and the resume goes ahead; approval_status is the ApprovalRecord.
run 0 phaselint resume-check --contract rag.contract.yaml --checkpoint post_generation \
  --context context.json --now 2026-03-01T13:10:00Z --format contextcore \
  --approvals approval.json

# A second pipeline declares no checkpoint_integrity. The orchestrator
# calls phaselint on every resume all the same, with its own checkpoint
# id: no spec means no check (REQ-10-011), so it resumes.
cat > digest.contract.yaml <<'EOF'
schema_version: "0.2.0"
pipeline_id: "nightly-digest"
phases:
  collect:
    exit:
      required:
        - name: items
  summarize:
    entry:
      required:
        - name: items
EOF
cat > digest-context.json <<'EOF'
{"items": ["a", "b"]}
EOF
run 0 phaselint resume-check --contract digest.contract.yaml --checkpoint post_collect \
  --context digest-context.json --now 2026-03-01T13:10:00Z --format contextcore
run 0 phaselint resume-check --contract digest.contract.yaml --checkpoint post_collect \
  --context digest-context.json --now 2026-03-01T13:10:00Z
