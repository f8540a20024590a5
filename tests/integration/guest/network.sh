# shellcheck shell=sh
# Sourced by rootinit.sh. The test bed's network: one veth pair with the
# rxe device on vg0; client and server both use rxe0 (rxe loopback). The
# addresses exist only inside the guest, which has no NIC to the outside.
VG_NETDEV=vg0
VG_ADDR=10.77.0.1
VG_RXE=rxe0

ip link set lo up
modprobe veth
# A queue per vCPU and two more: wire.sh's per-tenant steering puts a
# tenant's packets on transmit queue CPU + 2, received on queue CPU + 1;
# everything else uses queue 0 (wire.sh says why).
VG_QUEUES="numtxqueues $(($(nproc --all) + 2)) numrxqueues $(($(nproc --all) + 2))"
# shellcheck disable=SC2086 # two words each
ip link add "$VG_NETDEV" $VG_QUEUES type veth peer name vg1 $VG_QUEUES
ip addr add "$VG_ADDR/24" dev "$VG_NETDEV"
ip addr add 10.77.0.2/24 dev vg1
ip link set "$VG_NETDEV" up
ip link set vg1 up
modprobe rdma_rxe
rdma link add "$VG_RXE" type rxe netdev "$VG_NETDEV" ||
	echo "vg-guest: rdma link add failed"
