#!/bin/sh
# checkpatch.pl --strict over the project's kernel C (module, policy core,
# KUnit suites, test modules, uapi) and over each driver patch in
# driver-patches/ (which must also apply to the cached linux-source-6.1
# tree, whose checkpatch.pl is used); and verbsgate's copy of the rxe
# send queue policy header must match the series'. Any finding fails.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
tree=$("$repo/scripts/kernel-tree.sh")
cd "$repo"
files=$(find kmod tests/kunit tests/integration uapi \
	-name '*.[ch]' ! -name '*.mod.c' | sort)
# Ten files per checkpatch.pl, on every CPU: one took 35 s of CI on two.
out=$(echo "$files" | xargs -n 10 -P "$(nproc)" perl \
	"$tree/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	-f 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
# Driver patch series: each patch as it would be mailed, named without a
# leading ./ (given ./driver-patches/..., checkpatch.pl checked only the
# first 17 lines of a patch and missed the whitespace errors below them).
# spdxcheck.py,
# which checkpatch runs on new files, needs python3-ply; without it it
# prints a traceback on stderr and checks nothing.
patches=$(find driver-patches -name '*.patch' | sort)
for p in $patches; do
	out="$out$(perl "$tree/scripts/checkpatch.pl" --strict --terse \
		--show-types "$p" 2>/dev/null |
		grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)"
done
if ! scripts/build-rxe.sh --check >/dev/null 2>&1; then
	out="$out
driver-patches/rdma_rxe: the series does not apply to $tree"
# verbsgate's copy of the send queue policy contract must be the header
# the whole series leaves, byte for byte: the two modules share the ops
# layout, and a difference would be memory corruption, not a build error.
elif ! scripts/build-rxe.sh --header 2>/dev/null |
	cmp -s - kmod/datapath/rxe_sq_policy.h; then
	out="$out
kmod/datapath/rxe_sq_policy.h differs from include/rdma/rxe_sq_policy.h as driver-patches/rdma_rxe leaves it; update the copy (scripts/build-rxe.sh --header >kmod/datapath/rxe_sq_policy.h) and review verbsgate's use of the changed contract"
fi
if [ -n "$out" ]; then
	echo "$out"
	echo "checkpatch: findings above"
	exit 1
fi
echo "checkpatch: $(echo "$files" | wc -l) files and" \
	"$(echo "$patches" | wc -w) driver patches clean"
