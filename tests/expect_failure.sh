#!/usr/bin/env bash
# Runs a command that must fail cleanly: a non-zero exit that is not a crash (no signal,
# no sanitizer abort), and a message matching REGEX. With --one-line, stderr must be
# exactly one line and the exit status 1, as choreo promises for bad input.
#   usage: expect_failure.sh [--one-line] REGEX COMMAND [ARGS...]
set -uo pipefail
one_line=0
if [[ ${1:-} == --one-line ]]; then one_line=1; shift; fi
regex=$1; shift

out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
timeout 120 "$@" >"$out" 2>"$err"
status=$?
cat "$out"; cat "$err" >&2

if [[ $status -eq 0 ]]; then echo "expect_failure: the command succeeded but should have failed" >&2; exit 1; fi
if [[ $status -eq 124 ]]; then echo "expect_failure: the command hung (killed after 120 s)" >&2; exit 1; fi
if [[ $status -ge 126 ]]; then echo "expect_failure: the command crashed (status $status)" >&2; exit 1; fi
if ! grep -Eq -- "$regex" "$out" "$err"; then echo "expect_failure: no line matches /$regex/" >&2; exit 1; fi
if [[ $one_line -eq 1 && $status -ne 1 ]]; then
  echo "expect_failure: expected exit status 1, got $status" >&2; exit 1
fi
if [[ $one_line -eq 1 && $(wc -l <"$err") -ne 1 ]]; then
  echo "expect_failure: expected exactly one line on stderr, got $(wc -l <"$err")" >&2; exit 1
fi
echo "expect_failure: OK (status $status, message matches)"
