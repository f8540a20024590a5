#!/bin/sh
# Install the Debian packages verbsgate needs to build, test and demonstrate
# (`make deps`; `make demo` and `make check` run it first), and the
# packages given as arguments. Installs only what is missing; as
# non-root, prints the command to run instead.
set -eu

PACKAGES="
make gcc g++ cmake pkg-config bc flex bison libelf-dev libssl-dev kmod ccache
xz-utils cpio gzip util-linux
linux-image-amd64 linux-headers-amd64 linux-source-6.1
qemu-system-x86 busybox-static iproute2
rdma-core ibverbs-providers ibverbs-utils libibverbs-dev perftest
python3-pyverbs
libnl-3-dev libnl-genl-3-dev
nvme-cli fio
python3 python3-pytest
googletest libgtest-dev libbenchmark-dev
"

# A make target's own extras (`make husky`: python3-matplotlib).
PACKAGES="$PACKAGES $*"

missing=
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all $(echo $PACKAGES | wc -w) packages installed"
	exit 0
fi

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: as root, run: apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
