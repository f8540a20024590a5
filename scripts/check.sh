#!/bin/sh
# Every test of the project, in order of cost; each stage runs even when an
# earlier one failed, and a summary closes the run. Called by `make check`
# after `make deps all test-modules`.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
BUILD=${BUILD:-$repo/build}
# pytest comes from Debian's python3-pytest.
PYTHON=${PYTHON:-/usr/bin/python3}

passed=0
failed=0
summary=
stage() {
	name=$1
	shift
	echo "=== $name: $*"
	start=$(date +%s)
	if "$@"; then
		result=passed
		passed=$((passed + 1))
	else
		result=FAILED
		failed=$((failed + 1))
	fi
	summary="$summary$(printf '%-12s %-7s %4ss' "$name" "$result" \
		"$(($(date +%s) - start))")
"
}

stage checkpatch scripts/checkpatch.sh
stage kunit tests/kunit/run.sh
stage unit ctest --test-dir "$BUILD/userspace" --output-on-failure
stage integration "$PYTHON" -m pytest tests/integration -v -rfE --durations=60

echo "=== summary"
printf '%s' "$summary"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
