#!/usr/bin/env bash
# The checkpoint skill's CAVR loop (Checkpoint, Act, Verify, Rollback) with
# a git stash, as the checkpoint and rollback skills describe it, with
# phaselint answering at each step. Run in an empty directory.
set -euo pipefail
. "$(dirname "$0")/expect.sh"

# A repository with work in progress on the API handlers (the skill's
# example 1): a stash saves only local changes, so there must be some.
git init -q -b main .
mkdir -p src/api/handlers tests
printf 'def get_user(id):\n    return db.find(id)\n' > src/api/handlers/user.py
printf 'def check_token(t):\n    return t is not None\n' > src/api/handlers/auth.py
printf 'def test_user():\n    assert get_user(1)\n' > tests/test_handlers.py
git add . && git commit -q -m "handlers"
printf 'def get_user(id):\n    return db.find(id) or None\n' > src/api/handlers/user.py

# 1. Checkpoint: hash the scope, `git stash push -m "checkpoint:<id>:<reason>"`
#    (the skill's command), write the manifest.
id=chk_20260301_113000_a7b3c9
hash=$(phaselint manifest-hash src/api/handlers/user.py src/api/handlers/auth.py tests/test_handlers.py)
git stash push -q -m "checkpoint:$id:Before refactoring API handlers"
cat > manifest.json <<JSON
{
  "checkpoint_created": true,
  "checkpoint": {
    "id": "$id",
    "type": "git_stash",
    "created_at": "2026-03-01T11:30:00Z",
    "scope": {
      "files": ["src/api/handlers/user.py", "src/api/handlers/auth.py", "tests/test_handlers.py"],
      "state_keys": []
    },
    "restore_command": "git stash apply stash@{0}",
    "expiry": "24h"
  },
  "pre_mutation_state": {"hash": "$hash", "summary": "3 files before the handler refactoring"},
  "evidence_anchors": ["tool:bash:git stash push -m 'checkpoint:$id:Before refactoring API handlers'"]
}
JSON
now=2026-03-01T12:00:00Z

# 2. `git stash push` reverted the work tree to HEAD: the live files are not
#    the checkpointed ones, so the mutation may not start yet; phaselint
#    says to apply the stash back (the stash stays, as the checkpoint).
run 1 phaselint resume-check --manifest manifest.json --now "$now"
git stash apply -q

# 3. Now the checkpoint is in place and the work tree is as recorded.
run 0 phaselint resume-check --manifest manifest.json --now "$now" --for mutate

# 4. Act: the refactoring edits a handler. Verify fails (the tests break).
printf 'def get_user(uid):\n    return repo.get(uid)\n' > src/api/handlers/user.py

# 5. The mutation has started: it may not proceed on a checkpoint it has
#    changed, and the advice is not to checkpoint again but to ask whether
#    the checkpoint is still a valid rollback point...
run 1 phaselint resume-check --manifest manifest.json --now "$now" --for mutate
# ...which it is: the stash is intact and matches the hash; user.py changed.
run 0 phaselint resume-check --manifest manifest.json --now "$now" --for rollback

# 6. Rollback, as phaselint says: discard the change, apply the stash; the
#    restored state is the checkpointed one again.
git checkout -q -- src/api/handlers/user.py
git stash apply -q
run 0 phaselint resume-check --manifest manifest.json --now "$now" --for mutate

# 7. Once the stash is dropped, the checkpoint is no rollback point any more.
git stash drop -q
run 1 phaselint resume-check --manifest manifest.json --now "$now" --for rollback

# 8. A stash that is not this checkpoint's, at stash@{0}: still none.
echo '# wip' >> tests/test_handlers.py
git stash push -q -m "unrelated work"
run 1 phaselint resume-check --manifest manifest.json --now "$now" --for rollback
