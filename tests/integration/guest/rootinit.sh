#!/bin/sh
# PID 1 of the test-bed guest, on the host's root (read-only over 9p).
# Mounts the kernel filesystems and tmpfs for writable state, creates a
# veth pair with Soft-RoCE on one end, and hands over to the command agent.
# Everything printed here goes to the serial console the host records.
exec >/dev/console 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
# Before tmpfs hides anything: the checkout may live under /tmp itself.
guestdir=$(dirname "$(readlink -f "$0")")
repo=$(cd "$guestdir/../../.." && pwd)

# A fresh tmpfs on $1, keeping the checkout visible at its own path if it
# lies below $1 (the host's tree is bind-mounted back over the tmpfs).
writable() {
	case "$repo/" in
	"$1"/*)
		mkdir -p /dev/.vg-hold
		mount --bind "$1" /dev/.vg-hold
		mount -t tmpfs -o "mode=$2" tmpfs "$1"
		mkdir -p "$repo"
		mount --bind "/dev/.vg-hold${repo#"$1"}" "$repo"
		umount -l /dev/.vg-hold
		;;
	*)
		mount -t tmpfs -o "mode=$2" tmpfs "$1"
		;;
	esac
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "vg-guest: root init at $(cut -d' ' -f1 /proc/uptime) s"
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
writable /tmp 1777
writable /run 0755
writable /var/tmp 1777
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
modprobe configfs
mount -t configfs configfs /sys/kernel/config
hostname vg-guest
# Kernel messages of every level reach the console the host scans.
echo 8 >/proc/sys/kernel/printk
# The host asks a hung guest for backtraces with SysRq on the emulated
# keyboard; tasks stuck in D state report themselves before the host gives
# up on a command (its timeout plus Guest.reply_grace).
echo 1 >/proc/sys/kernel/sysrq
echo 20 >/proc/sys/kernel/hung_task_timeout_secs

# shellcheck disable=SC1091
. "$guestdir/network.sh"

echo "vg-guest: ready for the agent after $(cut -d' ' -f1 /proc/uptime) s"
exec python3 -I -S "$guestdir/agent.py"
