#!/usr/bin/env bash
# A Syndicate operator's queue: a release pipeline whose governed steps
# wait for approval at three checkpoints — a rise in risk class, a
# high-risk operation, and the irreversible deploy. The operator lists the
# queue, sees why each checkpoint waits, approves each as the run reaches
# it (bound to the target digest and to the context the run resumes
# with), and the run resumes. Checkpoint trigger categories and approval
# policies as Syndicate's governance describes them; the contract in
# phaselint's format (docs/contract-format.md), the context as
# ContextCore's PropagationTracker stamps it.
set -euo pipefail
. "$(dirname "$0")/expect.sh"

cat > release.contract.yaml <<'YAML'
schema_version: "0.2.0"
pipeline_id: release-train
description: Plan, build, stage and deploy a release; every governed step waits for its approval.
phases:
  plan:
    exit:
      required:
        - name: release_plan
  build:
    risk_class: medium
    entry:
      required:
        - name: release_plan
    exit:
      required:
        - name: artifact
  stage:
    side_effects: reversible
    risk_class: high
    entry:
      required:
        - name: artifact
    exit:
      required:
        - name: staged_url
  deploy:
    side_effects: irreversible
    risk_class: critical
    entry:
      required:
        - name: artifact
        - name: staged_url
checkpoint_integrity:
  - checkpoint_id: after_plan
    phase: plan
    on_resume:
      staleness_checks:
        - field: release_plan
          max_age_seconds: 86400
          on_stale: blocking
          recovery: re_generate
      approval_required: true
      approval_policy: human_or_orchestrator
  - checkpoint_id: after_build
    phase: build
    on_resume:
      staleness_checks:
        - field: artifact
          max_age_seconds: 86400
          on_stale: blocking
          recovery: re_generate
      approval_required: true
      approval_policy: human
  - checkpoint_id: after_stage
    phase: stage
    on_resume:
      staleness_checks:
        - field: staged_url
          max_age_seconds: 3600
          on_stale: blocking
          recovery: fail
      approval_required: true
      approval_policy: human
YAML

# The context as the run leaves it at each pause (ContextCore's
# `_cc_propagation` stamps).
cat > at-plan.json <<'JSON'
{"release_plan": {"version": "2.4.0", "targets": ["eu-west"]},
 "_cc_propagation": {"release_plan": {"origin_phase": "plan", "set_at": "2026-03-01T09:00:00Z", "value_hash": "a1"}}}
JSON
cat > at-build.json <<'JSON'
{"release_plan": {"version": "2.4.0", "targets": ["eu-west"]},
 "artifact": "registry.example/app:2.4.0",
 "_cc_propagation": {"release_plan": {"origin_phase": "plan", "set_at": "2026-03-01T09:00:00Z", "value_hash": "a1"},
                     "artifact": {"origin_phase": "build", "set_at": "2026-03-01T10:00:00Z", "value_hash": "b2"}}}
JSON
cat > at-stage.json <<'JSON'
{"release_plan": {"version": "2.4.0", "targets": ["eu-west"]},
 "artifact": "registry.example/app:2.4.0",
 "staged_url": "https://staging.example/app",
 "_cc_propagation": {"release_plan": {"origin_phase": "plan", "set_at": "2026-03-01T09:00:00Z", "value_hash": "a1"},
                     "artifact": {"origin_phase": "build", "set_at": "2026-03-01T10:00:00Z", "value_hash": "b2"},
                     "staged_url": {"origin_phase": "stage", "set_at": "2026-03-01T11:30:00Z", "value_hash": "c3"}}}
JSON

# 1. The contract is clean: every escalation has its approval gate.
run 0 phaselint lint release.contract.yaml

# 2. The queue before the run starts: three checkpoints in graph order,
#    each with why it waits; without a context nothing is "approved" and
#    whether a resume blocks is unknown.
run 0 phaselint checkpoints --contract release.contract.yaml --now 2026-03-01T09:30:00Z

# 3. The run pauses after `plan`. Resuming is denied until someone
#    approves: the denial's checkpoint_type is the trigger category.
run 2 phaselint resume-check --contract release.contract.yaml --checkpoint after_plan \
  --context at-plan.json --now 2026-03-01T09:30:00Z

# 4. The operator approves it, bound to this context, and the run resumes.
run 0 phaselint approve --contract release.contract.yaml --checkpoint after_plan \
  --by ana --policy human --context at-plan.json --now 2026-03-01T09:31:00Z \
  --output approve-plan.json
run 0 phaselint resume-check --contract release.contract.yaml --checkpoint after_plan \
  --context at-plan.json --approvals approve-plan.json --now 2026-03-01T09:32:00Z

# 5. Paused after `build`: the queue, with this context and the approvals
#    given so far, shows the first approved and the next waiting.
run 0 phaselint checkpoints --contract release.contract.yaml --context at-build.json \
  --approvals approve-plan.json --now 2026-03-01T10:30:00Z
run 2 phaselint resume-check --contract release.contract.yaml --checkpoint after_build \
  --context at-build.json --now 2026-03-01T10:30:00Z
run 0 phaselint approve --contract release.contract.yaml --checkpoint after_build \
  --by ana --policy human --context at-build.json --now 2026-03-01T10:31:00Z \
  --output approve-build.json
run 0 phaselint resume-check --contract release.contract.yaml --checkpoint after_build \
  --context at-build.json --approvals approve-build.json --now 2026-03-01T10:32:00Z

# 6. Paused after `stage`, before the irreversible deploy. Without a
#    terminal, approving it needs --confirm-irreversible (on a terminal a
#    second, different confirmation is asked instead).
run 2 phaselint resume-check --contract release.contract.yaml --checkpoint after_stage \
  --context at-stage.json --now 2026-03-01T11:45:00Z
run 3 phaselint approve --contract release.contract.yaml --checkpoint after_stage \
  --by ana --policy human --context at-stage.json --now 2026-03-01T11:46:00Z \
  --output approve-stage.json
run 0 phaselint approve --contract release.contract.yaml --checkpoint after_stage \
  --by ana --policy human --context at-stage.json --now 2026-03-01T11:46:00Z \
  --confirm-irreversible --output approve-stage.json

# 7. The queue is resolved, and the deploy may run.
run 0 phaselint checkpoints --contract release.contract.yaml --context at-stage.json \
  --approvals approve-plan.json --approvals approve-build.json --approvals approve-stage.json \
  --now 2026-03-01T11:47:00Z
run 0 phaselint resume-check --contract release.contract.yaml --checkpoint after_stage \
  --context at-stage.json --approvals approve-stage.json --now 2026-03-01T11:47:00Z
