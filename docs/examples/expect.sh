# Sourced by every example in this folder. `run N COMMAND...` prints the
# command, runs it, prints its exit code, and stops the example when the
# code is not N, so an example that runs to its end shows each step gave
# the answer its text says. Set PHASELINT to use a phaselint that is not on
# PATH.
phaselint() { command "${PHASELINT:-phaselint}" "$@"; }

run() {
  local expected=$1
  shift
  printf '\n$ %s\n' "$*"
  local code=0
  "$@" || code=$?
  printf '[exit %s]\n' "$code"
  if [ "$code" != "$expected" ]; then
    printf 'example stopped: expected exit %s, got %s\n' "$expected" "$code" >&2
    exit 1
  fi
}
