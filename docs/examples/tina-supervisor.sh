#!/usr/bin/env bash
# A tina supervisor between two team sessions, as the tina checkpoint
# skill describes it: the supervisor asks for a checkpoint by creating
# `.tina/checkpoint-needed`; the skill shuts the team down, writes
# `.tina/phase-N/handoff.md`, deletes the signal and prints
# CHECKPOINT COMPLETE; before a new session rehydrates, the supervisor asks
# phaselint whether the handoff can be resumed from.
set -euo pipefail
. "$(dirname "$0")/expect.sh"

NOW=2026-01-26T11:00:00Z
mkdir -p .tina/phase-2

# The handoff as the skill's template writes it (its own example).
write_handoff() {
  cat > .tina/phase-2/handoff.md <<'MD'
# Phase 2 Checkpoint Handoff

## Timestamp
2026-01-26T10:30:00Z

## Reason
Context threshold exceeded

## Team Composition
- worker-1: supersonic:implementer
- worker-2: supersonic:implementer
- spec-reviewer: supersonic:spec-reviewer

## Task States
| ID | Subject | Status | Owner |
|----|---------|--------|-------|
| 1 | Implement feature A | completed | worker-1 |
| 2 | Implement feature B | in_progress | worker-2 |
| 3 | Add tests for A | pending | - |

## Review Tracking
- Task 1: spec-review passed, code-quality passed
- Task 2: not yet reviewed

## Resumption Notes
- Task 2 was in progress - worker had read the spec but not started coding
MD
}

echo "== 1. The supervisor signals a checkpoint; the skill has written the handoff but not finished"
touch .tina/checkpoint-needed
write_handoff
run 1 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW"

echo "== 2. The skill deletes the signal and prints CHECKPOINT COMPLETE: the new session may rehydrate"
rm .tina/checkpoint-needed
run 0 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW"

echo "== 3. The supervisor waited too long: older than its limit, the handoff is stale"
run 1 phaselint resume-check --handoff .tina/phase-2/handoff.md --now 2026-01-26T14:00:00Z --max-handoff-age 2h

echo "== 4. Next time TaskList fails: the skill writes an error note and still completes"
awk '/^\|/ { next } { print } /^## Task States$/ { print "TaskList failed twice (tool timeout); task states were not captured." }' \
  .tina/phase-2/handoff.md > handoff.tmp && mv handoff.tmp .tina/phase-2/handoff.md
run 0 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW" --format json

echo "== 5. A partial handoff with another problem (an empty Reason) still blocks"
sed -i 's/^Context threshold exceeded$//' .tina/phase-2/handoff.md
run 1 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW"

echo "== 6. A handoff whose task is owned by someone outside the team, under another phase's heading: warnings"
write_handoff
sed -i 's/| in_progress | worker-2 |/| in_progress | worker-7 |/; s/^# Phase 2 /# Phase 3 /' .tina/phase-2/handoff.md
run 0 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW"

echo "== 7. An in_progress task with no owner blocks: nobody would pick it up"
sed -i 's/| in_progress | worker-7 |/| in_progress | - |/' .tina/phase-2/handoff.md
run 1 phaselint resume-check --handoff .tina/phase-2/handoff.md --now "$NOW"
