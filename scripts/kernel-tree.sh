#!/bin/sh
# Print the path of an extracted Debian linux-source-6.1 tree in the cache,
# extracting /usr/src/linux-source-6.1.tar.xz first when it is missing or
# older than the installed tarball. Cache: $VERBSGATE_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/verbsgate.
set -eu
cache=${VERBSGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/verbsgate}
tarball=/usr/src/linux-source-6.1.tar.xz
tree=$cache/linux-source-6.1
stamp=$cache/linux-source-6.1.stamp

if [ ! -f "$tarball" ]; then
	echo "verbsgate: $tarball missing; run 'make deps'" >&2
	exit 1
fi
mkdir -p "$cache"
want=$(stat -c '%s %Y' "$tarball")
exec 9>"$cache/linux-source-6.1.lock"
flock 9
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -d "$tree" ]; then
	echo "verbsgate: extracting $(basename "$tarball") into the cache" >&2
	rm -rf "$tree" "$stamp"
	tar -C "$cache" -xf "$tarball"
	echo "$want" >"$stamp"
fi
echo "$tree"
