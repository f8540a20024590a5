#!/bin/sh
# Wire mode of the test bed (tests/integration/harness/wire.py): RDMA traffic from
# rxe0 (vg0, 10.77.0.1) to a second device, rxe1 on vg1 (10.77.0.2),
# crosses the veth pair instead of rxe's loopback, and each end's egress
# is a port: a token bucket at the line rate with a bounded queue. So
# does traffic between tenants' own addresses, 10.77.1.0/24 on vg0 (the
# near side) and 10.77.2.0/24 on vg1 (the far side), which wire.py adds.
#
#   wire.sh up RATE LIMIT [ORDER]   e.g. wire.sh up 25mbit 256kb rps
#   wire.sh steer NETDEV ADDR CPU   packets NETDEV sends from ADDR are
#                                   received on vCPU CPU
#   wire.sh down                    back to the base state (network.sh)
#
# ORDER says on which vCPU each end receives a packet. A veth hands a
# packet to the receive backlog of the CPU that sends it, and rxe sends
# a QP's packets from several CPUs (the poster's, its tasks', the port's
# timer's), so two backlogs deliver one QP's packets out of order: rxe
# answers with NAKs and resends the rest of the message, unpaced, which
# no NIC's port would make it do. With 'rps' (the default) receive
# packet steering hands every packet of a flow (a QP: RoCE's UDP source
# port) to one vCPU chosen by its hash, in order; for tests of shares
# and of NVMe-oF tenants. With 'backlog' each packet is received on its
# sender's vCPU: a pinned tenant's receive work stays on its own vCPU,
# for latency tenants with one small message outstanding (nothing to
# reorder) and no stream next to them, whose packets would leave from
# several vCPUs (the port's timer's, another sender's), out of order.
#
# 'steer' gives a tenant's packets a vCPU of their own, as a NIC's flow
# steering gives a tenant its receive queue and the queue its cores: a
# tenant's receive work then stays off its neighbours' vCPUs, which
# otherwise also received every packet of the other tenants. veth does
# not record a receive queue; the receiving end's RPS reads the transmit
# queue's number less one (get_rps_cpu()), so a clsact filter on the
# sender's egress that puts the packet on transmit queue CPU + 2 sends
# it to receive queue CPU + 1, whose RPS mask is that vCPU alone
# (network.sh makes the queues). Everything else goes to transmit queue
# 0, and so to receive queue 0, as without steering.
#
# Both addresses are local, so the kernel would deliver 10.77.0.1 ->
# 10.77.0.2 through lo. Two rules for locally generated packets (iif lo)
# send them out of vg0, and the replies out of vg1, before the local
# table, which moves behind them; each end accepts packets from the
# other's local address (accept_local) whose reverse route is not the
# interface they came in on (rp_filter off).
set -eu

# rps_cpus of both ends' receive queues: every vCPU, or none. Every
# vCPU the guest has (nproc --all), not the first of those this process
# may run on: with the test bed pinned (pinned_wire(testbed=...)) that
# named vCPU 0 alone. With every vCPU a flow is received where its hash
# says, which may be another tenant's vCPU; a test that wants each
# tenant's receive work on its own vCPU steers it (below). All queues
# alike: unsteered, a packet's transmit queue is its flow's hash, and
# the receive queue it lands in must not change where it goes.
rps() {
	for q in /sys/class/net/vg0/queues/rx-* /sys/class/net/vg1/queues/rx-*; do
		echo "$1" >"$q/rps_cpus"
	done
}

# The port's work runs in the softirqs of whichever vCPU gets to it: the
# qdisc's dequeue (on the vCPU whose timer fires or that holds it) and
# the RPS hand-off of a packet to its tenant's vCPU (an IPI sent at the
# end of that vCPU's NET_RX). Softirqs that a vCPU cannot finish at
# once go to its ksoftirqd, and while that thread is runnable 6.1 runs
# no other softirq at interrupt exit (ksoftirqd_running(), gone in
# 6.5): the victim's packets then waited behind the attacker's vCPU's
# scheduler, a fair share against the attacker's processes, 10-50 ms at
# a time for seconds (docs/husky/notes.md). A NIC's port does not wait
# for a tenant's CPU; at nice -20 ksoftirqd runs as soon as it is woken.
softirqd_nice() {
	for p in $(pgrep '^ksoftirqd/'); do
		renice -n "$1" -p "$p" >/dev/null
	done
}

steer() {
	queue=$(($3 + 1))
	if ! [ -e "/sys/devices/system/cpu/cpu$3" ] ||
		! [ -e "/sys/class/net/vg0/queues/tx-$((queue + 1))" ] ||
		! [ -e "/sys/class/net/vg1/queues/tx-$((queue + 1))" ]; then
		echo "wire.sh: no queue on vg0 and vg1 for vCPU $3" >&2
		exit 2
	fi
	for d in vg0 vg1; do
		# Each part on its own: a steer that failed half-way leaves
		# nothing for the next to trip on.
		tc qdisc show dev "$d" | grep -q '^qdisc clsact' ||
			tc qdisc add dev "$d" clsact
		tc filter show dev "$d" egress pref 2 | grep -q matchall ||
			tc filter add dev "$d" egress pref 2 protocol all \
				matchall action skbedit queue_mapping 0
		printf '%x\n' $((1 << $3)) \
			>"/sys/class/net/$d/queues/rx-$queue/rps_cpus"
	done
	tc filter add dev "$1" egress pref 1 protocol ip flower \
		src_ip "$2" action skbedit queue_mapping $((queue + 1))
}

up() {
	case "${3:-rps}" in
	rps)	rps "$(printf %x $(((1 << $(nproc --all)) - 1)))" ;;
	backlog) rps 0 ;;
	*)	echo "wire.sh: ORDER is rps or backlog, not '$3'" >&2; exit 2 ;;
	esac
	rdma link add rxe1 type rxe netdev vg1
	# A vCPU receives both ends' packets of the tenants steered to it
	# (its requests at the far end, their ACKs at the near one), which
	# two hosts would receive on two NICs. The kernel's backlog of 1000
	# packets per CPU is less than what 16 QPs may leave in a netdev's
	# hands (rxe stops a requester at 64 skbs per QP, and veth keeps its
	# skbs until the far end frees them); when the attacker's vCPU fell
	# behind, that backlog dropped its packets (585 and 632 in two runs
	# of the husky latency cell), rxe resent every QP's window unpaced
	# and the port dropped and delayed the victim's WRITEs for 0.4-0.6 s
	# (docs/husky/notes.md). With room for 64 QPs' packets both ways
	# the test bed drops only at its ports, as a NIC's line does.
	sysctl -qw net.core.netdev_max_backlog=8192
	softirqd_nice -20
	for c in all vg0 vg1; do
		sysctl -qw "net.ipv4.conf.$c.rp_filter=0" \
			"net.ipv4.conf.$c.accept_local=1"
	done
	ip rule add pref 100 iif lo from 10.77.0.1 to 10.77.0.2 lookup 100
	ip rule add pref 101 iif lo from 10.77.0.2 to 10.77.0.1 lookup 101
	ip rule add pref 102 iif lo from 10.77.1.0/24 to 10.77.2.0/24 lookup 100
	ip rule add pref 103 iif lo from 10.77.2.0/24 to 10.77.1.0/24 lookup 101
	ip rule add pref 1000 lookup local
	ip rule del pref 0 lookup local
	ip route add 10.77.0.2 dev vg0 src 10.77.0.1 table 100
	ip route add 10.77.2.0/24 dev vg0 table 100
	ip route add 10.77.0.1 dev vg1 src 10.77.0.2 table 101
	ip route add 10.77.1.0/24 dev vg1 table 101
	# rdma_cm accepts a connection on a netdev only if the route to its
	# peer, looked up with that netdev as the output, leaves by it: each
	# side's tenant subnet is reachable from the other side's port too
	# (10.77.0.0/24 is, being on both).
	ip route add 10.77.1.0/24 dev vg1 metric 1000
	ip route add 10.77.2.0/24 dev vg0 metric 1000
	# The burst is two 16 KB (GSO-sized) buffers: enough to run at the
	# rate, too little to hide a burst from the queue.
	for d in vg0 vg1; do
		tc qdisc add dev "$d" root tbf rate "$1" burst 32kb limit "$2"
	done
}

down() {
	rps 0
	ip addr flush dev vg0 to 10.77.1.0/24 2>/dev/null || true
	ip addr flush dev vg1 to 10.77.2.0/24 2>/dev/null || true
	rdma link delete rxe1 2>/dev/null || true
	for d in vg0 vg1; do
		tc qdisc del dev "$d" root 2>/dev/null || true
		tc qdisc del dev "$d" clsact 2>/dev/null || true
	done
	ip rule add pref 0 lookup local 2>/dev/null || true
	ip rule del pref 1000 lookup local 2>/dev/null || true
	for p in 100 101 102 103; do
		ip rule del pref $p 2>/dev/null || true
	done
	ip route del 10.77.1.0/24 dev vg1 metric 1000 2>/dev/null || true
	ip route del 10.77.2.0/24 dev vg0 metric 1000 2>/dev/null || true
	ip route flush table 100 2>/dev/null || true
	ip route flush table 101 2>/dev/null || true
	sysctl -qw net.core.netdev_max_backlog=1000
	softirqd_nice 0
	# rp_filter stays off, the kernel's default and the base state's.
	for c in all vg0 vg1; do
		sysctl -qw "net.ipv4.conf.$c.accept_local=0"
	done
}

case "${1:-}" in
up)	shift; up "$@" ;;
steer)	shift; steer "$@" ;;
down)	down ;;
*)	echo "usage: wire.sh up RATE LIMIT [rps|backlog] |" \
		"steer NETDEV ADDR CPU | down" >&2; exit 2 ;;
esac
