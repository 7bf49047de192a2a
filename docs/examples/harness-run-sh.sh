set -euo pipefail
. "$(dirname "$0")/expect.sh"

# A harness's run.sh start-up, natively. The harness (the "Autonomous
# 3-Agent Harness" README) keeps its state in a folder, `.harness/` here,
# whose `config.json` declares named checkpoints: `checkpoints.enabled` and
# `checkpoints.types`, each `{name, description, triggerOn?}`; a type with
# `triggerOn: "post-planner"` fires after the plan review passes. Firing
# writes `checkpoint-<name>.md` and the harness exits (rc=8); a person
# grants it in the UI (`POST /api/harness/:slug/checkpoint/:name/grant`) or
# with `touch .harness/checkpoint-<name>.md.granted`, and run.sh is started
# again; its start-up goes on only once the request is granted, removing
# both files. `hooks/on-checkpoint-fired.sh` runs when a checkpoint fires,
# with CHECKPOINT_NAME, TRIGGER, PROJECT_DIR and STATE_DIR.
# Run it in an empty directory: PHASELINT=$(command -v phaselint) bash harness-run-sh.sh

mkdir -p .harness/hooks
cat > .harness/config.json <<'EOF'
{
  "models": {"planner": "opus", "worker": "sonnet", "validator": "opus"},
  "maxCostUsd": 10.0,
  "checkpoints": {
    "enabled": true,
    "types": [
      {"name": "plan-approved", "description": "A person approves the plan and the validation contract before any worker starts.", "triggerOn": "post-planner"},
      {"name": "pre-deploy", "description": "A person looks at the passed features before the deploy."}
    ]
  }
}
EOF
cat > .harness/hooks/on-checkpoint-fired.sh <<'EOF'
#!/bin/sh
echo "checkpoint $CHECKPOINT_NAME fired ($TRIGGER) in $(basename "$PROJECT_DIR")" >> "$STATE_DIR/notifications.log"
EOF
chmod +x .harness/hooks/on-checkpoint-fired.sh

# 1. The config declares its checkpoints well (H501-H503).
run 0 phaselint lint .harness/config.json

# 2. What a harness UI lists: every checkpoint, nothing taken yet.
run 0 phaselint harness status

# 3. run.sh starts: nothing is pending, so the mission goes on.
run 0 phaselint resume-check --harness-dir .harness --checkpoint plan-approved

# 4. The planner and the plan review pass: the post-planner checkpoint
#    fires (the request, the .fired marker, the hook), and the harness exits.
run 0 phaselint harness fire plan-approved
cat .harness/notifications.log

# 5. run.sh is started again: the request is pending, so it stays paused.
run 2 phaselint resume-check --harness-dir .harness --checkpoint plan-approved

# 6. A name the config does not declare is no verdict, never "nothing pending".
run 3 phaselint resume-check --harness-dir .harness --checkpoint plan-aproved

# 7. A person reads the request and grants it, as the README says.
touch .harness/checkpoint-plan-approved.md.granted
run 0 phaselint resume-check --harness-dir .harness --checkpoint plan-approved

# 8. Or the UI grants it, writing its own JSON: shown as given, one approval.
printf '{"grantedBy":"alice"}\n' > .harness/checkpoint-plan-approved.md.granted
run 0 phaselint harness status

# 9. run.sh's start-up: granted, so the request and its grant are consumed
#    (both or neither, even across a crash) and the mission goes on.
run 0 phaselint resume-check --harness-dir .harness --checkpoint plan-approved --consume
test ! -e .harness/checkpoint-plan-approved.md
test ! -e .harness/checkpoint-plan-approved.md.granted

# 10. The orchestrator asks for the same checkpoint again: fired this
#     mission, so it is refused.
run 1 phaselint harness fire plan-approved

# 11. At the end: plan-approved fired and consumed, pre-deploy not taken.
run 0 phaselint harness status --format json
