#!/bin/sh
# checkpatch.pl --strict over the project's kernel C (module, policy core,
# KUnit suites, test modules, uapi), using the cached linux-source-6.1 tree.
# Any finding fails.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
tree=$("$repo/scripts/kernel-tree.sh")
cd "$repo"
files=$(find kmod tests/kunit tests/integration/faultmod \
	tests/integration/drainmod tests/integration/postfault \
	tests/integration/sqslots tests/integration/rcpair \
	tests/integration/sqcap uapi \
	-name '*.[ch]' ! -name '*.mod.c' | sort)
out=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict --terse \
	--show-types -f $files 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
if [ -n "$out" ]; then
	echo "$out"
	echo "checkpatch: findings above"
	exit 1
fi
echo "checkpatch: $(echo "$files" | wc -l) files clean"
