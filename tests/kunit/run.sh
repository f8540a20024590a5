#!/bin/sh
# Run verbsgate's KUnit suites under UML.
#
# Links kmod/core and tests/kunit into a cached linux-source-6.1 tree as
# drivers/verbsgate/ and runs tools/testing/kunit/kunit.py there. The tree
# and the UML build directory live in the cache and are reused; kbuild
# rebuilds only what changed. Extra arguments go to `kunit.py run`.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=$("$repo/scripts/kernel-tree.sh")
cache=$(dirname "$tree")
build=$cache/kunit-uml

exec 8>"$cache/kunit.lock"
flock 8

# Hook drivers/verbsgate/ into the tree once; the links follow this checkout.
vg=$tree/drivers/verbsgate
mkdir -p "$vg"
ln -sfn "$repo/kmod/core" "$vg/core"
ln -sfn "$repo/tests/kunit" "$vg/tests"
ln -sfn tests/Kbuild "$vg/Kbuild"
ln -sfn tests/Kconfig "$vg/Kconfig"
grep -q 'drivers/verbsgate/Kconfig' "$tree/drivers/Kconfig" ||
	sed -i 's|^endmenu$|source "drivers/verbsgate/Kconfig"\n\nendmenu|' \
		"$tree/drivers/Kconfig"
grep -q 'verbsgate/' "$tree/drivers/Makefile" ||
	echo 'obj-$(CONFIG_VERBSGATE_KUNIT_TEST) += verbsgate/' \
		>>"$tree/drivers/Makefile"

cd "$tree"
exec python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir="$build" --jobs="$(nproc)" \
	--kunitconfig="$vg/tests/.kunitconfig" "$@"
