#!/bin/sh
# Print the kernel release to build verbsgate against: the running kernel
# when its headers are installed (a real host), otherwise the newest
# installed kernel that has both an image and headers (the test bed's
# guest kernel, Debian's linux-image-amd64 + linux-headers-amd64).
set -eu
running=$(uname -r)
if [ -d "/lib/modules/$running/build" ]; then
	echo "$running"
	exit 0
fi
for dir in $(ls -d /lib/modules/*/build 2>/dev/null | sort -rV); do
	release=$(basename "$(dirname "$dir")")
	if [ -e "/boot/vmlinuz-$release" ]; then
		echo "$release"
		exit 0
	fi
done
echo "verbsgate: no kernel headers found; run 'make deps'" >&2
exit 1
