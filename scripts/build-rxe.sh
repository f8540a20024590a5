#!/bin/sh
# Build rdma_rxe.ko with the driver-patches/rdma_rxe series (`make rxe`).
#
# Copies drivers/infiniband/sw/rxe (and MAINTAINERS, which the series
# touches) from the cached linux-source-6.1 tree to $BUILD/rdma_rxe,
# applies the series there and builds the module out of tree against
# /lib/modules/$KVER/build. The series' new header, include/rdma/
# rxe_sq_policy.h, lands in $BUILD/rdma_rxe/include for policy modules;
# the module and its Module.symvers are in
# $BUILD/rdma_rxe/drivers/infiniband/sw/rxe.
#
# With --check, only checks that the series applies to the cached tree
# (git apply --check), without building (scripts/checkpatch.sh).
# With --header, prints the send queue policy header as the whole series
# leaves it (scripts/checkpatch.sh compares verbsgate's copy with it).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
tree=$("$repo/scripts/kernel-tree.sh")
series=$(ls "$repo"/driver-patches/rdma_rxe/*.patch)

# git apply acts as a plain patch(1) outside a git work tree; keep it from
# finding this checkout's repository above the directory it patches. The
# series goes in as one input: given as separate files, --check would
# check each patch against the unpatched tree, and a patch that changes
# what an earlier one added would not apply.
apply() {
	dir=$1
	shift
	cat $series | (cd "$dir" && GIT_CEILING_DIRECTORIES=$(dirname "$dir") \
		git apply -p1 "$@")
}

if [ "${1:-}" = --check ]; then
	apply "$tree" --check
	echo "rxe: $(echo "$series" | wc -l) patches apply to $(basename "$tree")"
	exit 0
fi

if [ "${1:-}" = --header ]; then
	hdr=include/rdma/rxe_sq_policy.h
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# Every patch's hunks of the header, in order, and nothing else.
	apply "$tmp" --include="$hdr"
	cat "$tmp/$hdr"
	exit 0
fi

BUILD=${BUILD:-$repo/build}
KVER=${KVER:-$("$repo/scripts/kernel-version.sh")}
KDIR=${KDIR:-/lib/modules/$KVER/build}
out=$BUILD/rdma_rxe
rxe=$out/drivers/infiniband/sw/rxe

rm -rf "$out"
mkdir -p "$out/drivers/infiniband/sw" "$out/include/rdma"
cp -a "$tree/drivers/infiniband/sw/rxe" "$out/drivers/infiniband/sw/"
cp "$tree/MAINTAINERS" "$out/"
apply "$out"
# CC: `make rxe` passes ccache's, as for every module it builds.
make -j"${JOBS:-$(nproc)}" -C "$KDIR" M="$rxe" ${CC:+"CC=$CC"} CONFIG_RDMA_RXE=m \
	KCFLAGS="-I$out/include" modules
echo "rxe: built $rxe/rdma_rxe.ko for $KVER"
