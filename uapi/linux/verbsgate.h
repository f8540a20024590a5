/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * verbsgate: per-tenant performance isolation for shared RDMA devices.
 * User-kernel interface of the "verbsgate" generic netlink family.
 *
 * ABI rules:
 *  - Commands, attributes and enum values are only ever appended; values
 *    never change meaning and are never reused.
 *  - The kernel validates every request strictly, with one policy per
 *    command: an attribute it does not know, one the command does not take,
 *    one that is output-only, a wrong type or length, or a value out of
 *    range is rejected with an extended ack (message and offending
 *    attribute). Nothing changes when a request is rejected.
 *  - User space must tolerate attributes it does not know in replies and
 *    events, and enum values it does not know.
 *  - Commands that change state, and joining the events group, require
 *    CAP_NET_ADMIN (in the initial user namespace); GET and dump commands
 *    are open to every user, but the QP dump shows a reader without
 *    CAP_NET_ADMIN only the QPs its effective uid created. The family
 *    exists in the initial network namespace only.
 *
 * Units: rates are token bytes per second (payload plus the per-operation
 * cost, see VERBSGATE_ATTR_DEV_OP_COSTS), times are nanoseconds, sizes are
 * bytes. A rate of 0 means "none" (no guarantee, no cap).
 */
#ifndef _UAPI_LINUX_VERBSGATE_H
#define _UAPI_LINUX_VERBSGATE_H

#include <linux/const.h>

#define VERBSGATE_GENL_NAME	"verbsgate"
#define VERBSGATE_GENL_VERSION	1

/* Multicast group of change notifications (see "Events" below). */
#define VERBSGATE_MCGRP_EVENTS	"events"

/*
 * Tenant names: 1 to VERBSGATE_TENANT_NAME_MAX - 1 characters of
 * [A-Za-z0-9_.-], neither "." nor "..". They name sysfs directories.
 */
#define VERBSGATE_TENANT_NAME_MAX	32
/* The built-in tenant of everything no other tenant selects. */
#define VERBSGATE_DEFAULT_TENANT	"default"

/* Limits the kernel enforces (the policy core's). */
#define VERBSGATE_WEIGHT_MIN	1
#define VERBSGATE_WEIGHT_MAX	10000
#define VERBSGATE_MAX_TENANTS	4096
#define VERBSGATE_RATE_MAX	_BITULL(40)
#define VERBSGATE_CHUNK_TABLE_MAX	16
#define VERBSGATE_PPM		1000000

/* DEV_PKT_OVERHEAD in DEV_SET: the link layer's default again */
#define VERBSGATE_PKT_OVERHEAD_AUTO	0xffffffffU

/*
 * Commands. Requests are answered by a reply with the same command (GET),
 * by a series of them (dump), or by an ack.
 *
 * Events: after a successful change the kernel multicasts, to the
 * VERBSGATE_MCGRP_EVENTS group, a message whose command says what
 * happened and whose attributes are those of a GET reply for the object:
 * TENANT_ADD, TENANT_SET and TENANT_DEL (the tenant as it was) for
 * tenants, DEV_SET for devices, QP_CLASSIFIED for QPs.
 */
enum verbsgate_cmd {
	VERBSGATE_CMD_UNSPEC,
	/* Module-wide status; reply carries VERBSGATE_ATTR_VERSION, DEV_COUNT. */
	VERBSGATE_CMD_GET_STATUS,
	/*
	 * One device (request carries DEV_INDEX or DEV_NAME; both must name
	 * the same device) or, with NLM_F_DUMP, every device verbsgate is
	 * attached to. Reply: DEV_INDEX, DEV_NAME, DEV_DRIVER, DEV_PORTS,
	 * DEV_NODE_GUID, the settings DEV_SET takes, the controller's
	 * state (DEV_MAX_CHUNK .. DEV_AIMD_DECREASES), the QPs by
	 * enforcement and how each port is paced (DEV_PORTS_PACED,
	 * DEV_PORT_TABLE).
	 */
	VERBSGATE_CMD_DEV_GET,
	/*
	 * Create a tenant. Takes TENANT_NAME, TENANT_SELECTOR, TENANT_CLASS
	 * and TENANT_WEIGHT (all required), TENANT_MIN_RATE, TENANT_MAX_RATE
	 * and the QP bounds (TENANT_RNR_RETRY_MAX .. TENANT_RD_ATOMIC_MAX),
	 * TENANT_CTRL_RATE, TENANT_CTRL_BURST.
	 * Admin. Errors: EEXIST (name or selector taken), ENOSPC (too many
	 * tenants), ENOENT/ENOTDIR (no such cgroup), EDQUOT (the guaranteed
	 * rates would exceed a device's max rate), EINVAL/ERANGE.
	 */
	VERBSGATE_CMD_TENANT_ADD,
	/*
	 * Delete a tenant (TENANT_NAME). Its QPs are re-classified. The
	 * default tenant cannot be deleted. Admin.
	 */
	VERBSGATE_CMD_TENANT_DEL,
	/*
	 * Change a tenant's TENANT_CLASS, TENANT_WEIGHT, TENANT_MIN_RATE,
	 * TENANT_MAX_RATE, QP bounds or control verb pace (at least one;
	 * selectors cannot change). Admin.
	 */
	VERBSGATE_CMD_TENANT_SET,
	/*
	 * One tenant (TENANT_NAME) or, with NLM_F_DUMP, every tenant in id
	 * order. Reply: TENANT_ID, TENANT_NAME, TENANT_SELECTOR, TENANT_CLASS,
	 * TENANT_WEIGHT, TENANT_MIN_RATE, TENANT_MAX_RATE, the QP bounds,
	 * TENANT_CTRL_RATE, TENANT_CTRL_BURST, TENANT_QPS.
	 */
	VERBSGATE_CMD_TENANT_GET,
	/*
	 * Change device settings: DEV_INDEX or DEV_NAME, and at least one of
	 * DEV_MAX_RATE .. DEV_ENFORCE, DEV_USER_QPS or DEV_BURST. All or
	 * nothing. Admin.
	 */
	VERBSGATE_CMD_DEV_SET,
	/*
	 * Dump of the QPs verbsgate tracks (those created while it is
	 * loaded), optionally only of DEV_INDEX/DEV_NAME and of TENANT_NAME
	 * (ENODEV, ENOENT: no such device, tenant). Reply: DEV_INDEX,
	 * DEV_NAME, TENANT_ID, TENANT_NAME, QP_NUM, QP_TYPE; for QPs created
	 * by a process QP_PID, QP_COMM, QP_CGROUP_ID; for kernel QPs QP_ULP;
	 * once the address is known QP_LOCAL_GID, QP_PEER_GID; always
	 * QP_ENFORCEMENT and QP_REASON. Like `rdma
	 * res`: kernel QPs are listed only to readers in the initial pid
	 * namespace, a process's QPs only to readers whose pid namespace
	 * numbers the process, QP_PID as numbered there (none once the
	 * process has exited); a reader without CAP_NET_ADMIN gets only the
	 * QPs created under its effective uid.
	 */
	VERBSGATE_CMD_QP_GET,
	/*
	 * Dump of counters, one message per tenant (optionally only
	 * TENANT_NAME): TENANT_ID, TENANT_NAME, TENANT_QPS, TENANT_STATS.
	 */
	VERBSGATE_CMD_STATS_GET,
	/*
	 * Event only (never a request): a QP was classified into a tenant,
	 * at creation, when its address became known, or when tenants
	 * changed. Attributes as a QP_GET reply, without QP_PID: one
	 * message serves listeners in every pid namespace.
	 */
	VERBSGATE_CMD_QP_CLASSIFIED,

	__VERBSGATE_CMD_MAX,
	VERBSGATE_CMD_MAX = __VERBSGATE_CMD_MAX - 1
};

enum verbsgate_attr {
	VERBSGATE_ATTR_UNSPEC,
	VERBSGATE_ATTR_PAD,
	VERBSGATE_ATTR_VERSION,		/* string: module version, output */
	VERBSGATE_ATTR_DEV_COUNT,	/* u32: attached devices, output */
	VERBSGATE_ATTR_DEV_INDEX,	/* u32: ib_device index (as `rdma dev`) */
	VERBSGATE_ATTR_DEV_NAME,	/* string: ib_device name, e.g. "rxe0" */
	VERBSGATE_ATTR_DEV_DRIVER,	/* string: driver module, output */
	VERBSGATE_ATTR_DEV_PORTS,	/* u32: number of ports, output */
	VERBSGATE_ATTR_DEV_NODE_GUID,	/* u64: node GUID (host order), output */

	/* Tenants */
	VERBSGATE_ATTR_TENANT_NAME,	/* string: see VERBSGATE_TENANT_NAME_MAX */
	VERBSGATE_ATTR_TENANT_ID,	/* u32: output; 0 is the default tenant */
	VERBSGATE_ATTR_TENANT_CLASS,	/* u32: enum verbsgate_class */
	VERBSGATE_ATTR_TENANT_WEIGHT,	/* u32: WEIGHT_MIN..WEIGHT_MAX */
	VERBSGATE_ATTR_TENANT_MIN_RATE,	/* u64: guaranteed rate, 0: none */
	VERBSGATE_ATTR_TENANT_MAX_RATE,	/* u64: cap, 0: none; >= MIN_RATE */
	VERBSGATE_ATTR_TENANT_SELECTOR,	/* nested: enum verbsgate_sel_attr */
	VERBSGATE_ATTR_TENANT_QPS,	/* u32: QPs in the tenant, output */
	VERBSGATE_ATTR_TENANT_STATS,	/* nested: enum verbsgate_stat_attr, output */

	/* Device settings (DEV_SET, DEV_GET) */
	VERBSGATE_ATTR_DEV_MAX_RATE,	/* u64: MaxRate, 1..RATE_MAX; default: link rate */
	VERBSGATE_ATTR_DEV_MAX_OPS,	/* u64: op/s at MaxRate; 0: no op pacing */
	VERBSGATE_ATTR_DEV_TARGET_P99,	/* u64: p99 target ns, <= 1 s; 0: none */
	VERBSGATE_ATTR_DEV_AIMD_STEP,	/* u64: SafeUtil additive increase; 0: MaxRate/256 */
	VERBSGATE_ATTR_DEV_AIMD_PERIOD,	/* u64: ns between AIMD steps, 1 us..10 s */
	/* u32: chunk size without latency or throughput tenants */
	VERBSGATE_ATTR_DEV_CHUNK_NOLAT,
	/*
	 * nested array: entries (any type) of enum verbsgate_chunk_attr, at
	 * most VERBSGATE_CHUNK_TABLE_MAX, sorted by strictly increasing size
	 * and non-decreasing utilization. With latency or throughput tenants
	 * the chunk size is the smallest entry that sustains SafeUtil.
	 * Replaces the table.
	 */
	VERBSGATE_ATTR_DEV_CHUNK_TABLE,
	/*
	 * nested array: entries of enum verbsgate_opcost_attr; each sets one
	 * operation class's cost, others keep theirs.
	 */
	VERBSGATE_ATTR_DEV_OP_COSTS,
	/* u8: 1: Rmin sums every latency tenant's weight; 0: counts them as one */
	VERBSGATE_ATTR_DEV_LAT_EACH,
	VERBSGATE_ATTR_DEV_ENFORCE,	/* u8: 1 enforce (default), 0 observe only */
	VERBSGATE_ATTR_DEV_MAX_CHUNK,	/* u32: largest message of the port, output */
	VERBSGATE_ATTR_DEV_SAFE_UTIL,	/* u64: current SafeUtil, output */
	VERBSGATE_ATTR_DEV_RMIN,	/* u64: current Rmin, output */
	VERBSGATE_ATTR_DEV_CHUNK_SIZE,	/* u32: current chunk size, output */
	VERBSGATE_ATTR_DEV_REF_P99,	/* u64: reference flow p99 ns, 0: none yet; output */
	VERBSGATE_ATTR_DEV_AIMD_INCREASES,	/* u64: output */
	VERBSGATE_ATTR_DEV_AIMD_DECREASES,	/* u64: output */

	/* QPs (QP_GET replies, QP_CLASSIFIED events) */
	VERBSGATE_ATTR_QP_NUM,		/* u32: QP number */
	VERBSGATE_ATTR_QP_TYPE,		/* u32: enum ib_qp_type value */
	VERBSGATE_ATTR_QP_PID,		/* u32: creating process (tgid), in the reader's pid ns */
	VERBSGATE_ATTR_QP_COMM,		/* string: creating task's comm */
	VERBSGATE_ATTR_QP_ULP,		/* string: kernel owner (restrack name) */
	VERBSGATE_ATTR_QP_CGROUP_ID,	/* u64: creator's cgroup v2 id */
	VERBSGATE_ATTR_QP_LOCAL_GID,	/* binary[16]: once the address is known */
	VERBSGATE_ATTR_QP_PEER_GID,	/* binary[16]: once the address is known */
	VERBSGATE_ATTR_QP_WEIGHT,	/* u32: weight inside its tenant */
	VERBSGATE_ATTR_QP_STATS,	/* nested: enum verbsgate_stat_attr */
	VERBSGATE_ATTR_QP_ENFORCEMENT,	/* u32: enum verbsgate_qp_enforcement */
	VERBSGATE_ATTR_QP_REASON,	/* u32: enum verbsgate_qp_reason */

	/* A device's QPs by enforcement (DEV_GET replies), u32 each */
	VERBSGATE_ATTR_DEV_QPS_ENFORCED,
	VERBSGATE_ATTR_DEV_QPS_TRACKED,
	VERBSGATE_ATTR_DEV_QPS_UNSUPPORTED,
	/*
	 * QPs the device has that verbsgate does not track: created before
	 * it was loaded, of a type it does not follow (GSI, XRC target,
	 * raw), or refused for want of memory. ib_core's count less the rest.
	 */
	VERBSGATE_ATTR_DEV_QPS_UNTRACKED,

	/*
	 * User QPs (DEV_SET, DEV_GET). USER_QPS is a setting, enum
	 * verbsgate_user_qps; USER_QPS_ENFORCED (u8, output) says whether
	 * the device's driver lets verbsgate shape user QPs; USER_QPS_REFUSED
	 * (u64, output) counts user QPs refused by USER_QPS deny.
	 */
	VERBSGATE_ATTR_DEV_USER_QPS,
	VERBSGATE_ATTR_DEV_USER_QPS_ENFORCED,
	VERBSGATE_ATTR_DEV_USER_QPS_REFUSED,

	/*
	 * How each port is paced (DEV_GET replies). PORTS_PACED (u32): how
	 * many of the device's DEV_PORTS ports the shaper paces apart, each
	 * at its own rate, from the first; QPs of the ports above are paced
	 * with the first. 0: the device is not shaped (no memory for its
	 * shaper, or no QPs to shape). PORT_TABLE: nested array, one entry
	 * of enum verbsgate_port_attr per port paced apart; absent if none.
	 */
	VERBSGATE_ATTR_DEV_PORTS_PACED,
	VERBSGATE_ATTR_DEV_PORT_TABLE,

	/*
	 * u32 (DEV_SET, DEV_GET): depth of each port pacer's byte bucket,
	 * token bytes, 0..64 MiB, default 256 KiB: what an idle port may
	 * send back to back before pacing starts. Set it no larger than the
	 * port's transmit buffer, or a paced burst queues there; 0 paces
	 * every chunk.
	 */
	VERBSGATE_ATTR_DEV_BURST,

	/*
	 * A tenant's bounds on the retry and RDMA READ attributes of its
	 * QPs (TENANT_ADD, TENANT_SET, TENANT_GET). A modify QP of one of
	 * the tenant's QPs that asks for more than a bound allows gets the
	 * bound instead, as if it had asked for it (a query of the QP shows
	 * it), and is counted in STAT_ATTR_QP_CLAMPS. A bound applies to
	 * the modifications made after it is set; a QP keeps what it has.
	 * Unset at creation, each meaning "no bound":
	 *  RNR_RETRY_MAX (u8, 0..7): most RNR NAK retries of a request;
	 *	7, the verbs' "retry forever", is no bound.
	 *  RETRY_CNT_MAX (u8, 0..7): most transport retries after a
	 *	timeout; 7, the largest count, is no bound.
	 *  RNR_TIMER_MIN (u64, ns, 0..655360000): shortest RNR NAK timer
	 *	the tenant's QPs tell their peers to wait, rounded up to a
	 *	value of the verbs' table (10 us to 655.36 ms); 0: no bound.
	 *  TIMEOUT_MIN (u64, ns, 0..8796093022208): shortest local ACK
	 *	timeout, rounded up to 4.096 us * 2^n; an infinite timeout
	 *	is kept; 0: no bound.
	 *  RD_ATOMIC_MAX (u8): most RDMA READ and atomic operations a QP
	 *	keeps outstanding as initiator; 0: no bound.
	 */
	VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX,
	VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX,
	VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN,
	VERBSGATE_ATTR_TENANT_TIMEOUT_MIN,
	VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX,

	/*
	 * A tenant's pace of control verbs (TENANT_ADD, TENANT_SET,
	 * TENANT_GET): the verbs a process calls through uverbs to create,
	 * modify and destroy QPs, CQs and PDs and to register and
	 * deregister MRs, charged to the tenant the process's QPs would be
	 * created in (its cgroup). CTRL_RATE (u32, verbs/s, 0..1000000):
	 * the pace, 0: none (the default). CTRL_BURST (u32, verbs,
	 * 1..1000000, default 64): how many may go back to back after a
	 * quiet time. A create, register, allocate or modify over the pace
	 * sleeps, interruptibly, in its caller's context before the driver
	 * sees it (a signal ends it with EINTR, nothing created); a destroy
	 * or deregister never waits but is charged, up to a burst ahead.
	 * Kernel ULPs' verbs are not paced. Counted in STAT_ATTR_CTRL_VERBS
	 * and STAT_ATTR_CTRL_WAIT_NS.
	 */
	VERBSGATE_ATTR_TENANT_CTRL_RATE,
	VERBSGATE_ATTR_TENANT_CTRL_BURST,

	/*
	 * u64 (TENANT_ADD, TENANT_SET, TENANT_GET): most bytes of memory
	 * the tenant's processes may hold registered as MRs at once, over
	 * every device, 0: no quota (the default). A registration through
	 * uverbs that would pass it fails with EDQUOT before the driver
	 * pins anything, and is counted in STAT_ATTR_MR_REFUSED; lowering
	 * the quota leaves registered MRs alone. STAT_ATTR_MR_BYTES is what
	 * the tenant holds now. Kernel ULPs' MRs are not counted. How many
	 * QPs, CQs, MRs and other objects a tenant may have is the rdma
	 * cgroup controller's (rdma.max in the tenant's cgroup).
	 */
	VERBSGATE_ATTR_TENANT_MR_BYTES_MAX,

	/*
	 * What the port's line counts (DEV_SET, DEV_GET), so that pacing
	 * at its rate fills it and queues nothing there.
	 *  LINK_RATE (u64, bytes/s, 0..RATE_MAX): the rate of each of the
	 *	device's ports, where the device cannot know it (a software
	 *	device behind a shaped or slower link); 0, the default: what
	 *	the device reports (PORT_ATTR_LINK_RATE shows the rate in
	 *	use). MaxRate follows it unless the operator set DEV_MAX_RATE.
	 *  PKT_OVERHEAD (u32, bytes, 0..512): what each packet adds at
	 *	the port besides its payload (headers, CRCs, framing), charged
	 *	per packet of each chunk at the QP's path MTU. Default by the
	 *	link layer: 82 on Ethernet (RoCEv2 over IPv4, with preamble,
	 *	FCS and inter-frame gap), 26 on InfiniBand; DEV_SET with
	 *	PKT_OVERHEAD_AUTO goes back to it. DEV_GET: the value in use.
	 */
	VERBSGATE_ATTR_DEV_LINK_RATE,
	VERBSGATE_ATTR_DEV_PKT_OVERHEAD,

	__VERBSGATE_ATTR_MAX,
	VERBSGATE_ATTR_MAX = __VERBSGATE_ATTR_MAX - 1
};

/*
 * What a device does with user QPs it cannot enforce (DEV_USER_QPS), on
 * a device whose USER_QPS_ENFORCED is 0: ALLOW creates them, tracked
 * but unshaped (the default); DENY refuses their creation with EPERM
 * unless the creating process belongs to a latency-class tenant (which
 * verbsgate never paces), so that no paced tenant can bypass it there.
 */
enum verbsgate_user_qps {
	VERBSGATE_USER_QPS_ALLOW,
	VERBSGATE_USER_QPS_DENY,

	__VERBSGATE_USER_QPS_MAX,
	VERBSGATE_USER_QPS_MAX = __VERBSGATE_USER_QPS_MAX - 1
};

/* How verbsgate covers a QP it tracks (QP_ENFORCEMENT). */
enum verbsgate_qp_enforcement {
	/* its posts are classified, queued, split and paced */
	VERBSGATE_QP_ENFORCED,
	/* counted and classified, but its posts bypass verbsgate */
	VERBSGATE_QP_TRACKED,
	/* verbsgate cannot shape it; QP_REASON says why */
	VERBSGATE_QP_UNSUPPORTED,

	__VERBSGATE_QP_ENFORCEMENT_MAX,
	VERBSGATE_QP_ENFORCEMENT_MAX = __VERBSGATE_QP_ENFORCEMENT_MAX - 1
};

/* Why a QP is not enforced (QP_REASON). */
enum verbsgate_qp_reason {
	VERBSGATE_QP_REASON_NONE,
	/* a process's QP: it posts through a doorbell the driver owns */
	VERBSGATE_QP_REASON_USER_QP,
	/* only RC and UC send queues are shaped */
	VERBSGATE_QP_REASON_QP_TYPE,
	/* the device's shaper could not be set up (no memory at attach) */
	VERBSGATE_QP_REASON_NO_SHAPER,
	/* created without a send queue */
	VERBSGATE_QP_REASON_NO_SEND_QUEUE,
	/* no memory for its state at creation */
	VERBSGATE_QP_REASON_NO_MEMORY,
	/* the device's scheduler has no slot left for it */
	VERBSGATE_QP_REASON_QP_LIMIT,
	/* it had no tenant when created */
	VERBSGATE_QP_REASON_NO_TENANT,
	/* its WRs may carry more SGEs than verbsgate handles (VG_MAX_SGE) */
	VERBSGATE_QP_REASON_SGE_LIMIT,

	__VERBSGATE_QP_REASON_MAX,
	VERBSGATE_QP_REASON_MAX = __VERBSGATE_QP_REASON_MAX - 1
};

/* Tenant classes (Justitia §3): what a tenant needs from the device. */
enum verbsgate_class {
	VERBSGATE_CLASS_BANDWIDTH,	/* large messages; paced and split */
	VERBSGATE_CLASS_THROUGHPUT,	/* many small messages; paced */
	VERBSGATE_CLASS_LATENCY,	/* not paced; protected by SafeUtil */

	__VERBSGATE_CLASS_MAX,
	VERBSGATE_CLASS_MAX = __VERBSGATE_CLASS_MAX - 1
};

/*
 * What a tenant selects. A QP belongs to one tenant, found in this order
 * (the first rule that matches wins):
 *  1. CGROUP: a QP created by a task belongs to the tenant whose cgroup
 *     is the deepest ancestor (or itself) of the task's cgroup v2 at
 *     creation time.
 *  2. LOCAL_ADDR / PEER_ADDR: once the QP's address vector is set, the
 *     tenant with the longest prefix matching the QP's local or peer GID
 *     (IPv4 prefixes match IPv4-mapped GIDs); on equal lengths PEER_ADDR
 *     wins. A QP may change tenant when its address becomes known.
 *  3. ULP: a QP created by the kernel belongs to the tenant naming its
 *     owner (the restrack name, e.g. "nvme_rdma", "nvmet_rdma").
 *  4. DEFAULT: the built-in tenant "default".
 * Adding or deleting a tenant re-classifies the existing QPs by the same
 * rules. Two tenants cannot have the same selector.
 */
enum verbsgate_selector {
	VERBSGATE_SEL_DEFAULT,		/* output only */
	VERBSGATE_SEL_CGROUP,
	VERBSGATE_SEL_ULP,
	VERBSGATE_SEL_LOCAL_ADDR,
	VERBSGATE_SEL_PEER_ADDR,

	__VERBSGATE_SEL_MAX,
	VERBSGATE_SEL_MAX = __VERBSGATE_SEL_MAX - 1
};

/* Attributes nested in VERBSGATE_ATTR_TENANT_SELECTOR. */
enum verbsgate_sel_attr {
	VERBSGATE_SEL_ATTR_UNSPEC,
	VERBSGATE_SEL_ATTR_PAD,
	VERBSGATE_SEL_ATTR_TYPE,	/* u32: enum verbsgate_selector */
	/*
	 * string: CGROUP: path on the cgroup v2 hierarchy relative to the
	 * root of the requester's cgroup namespace, e.g. "/tenants/blue".
	 */
	VERBSGATE_SEL_ATTR_CGROUP_PATH,
	VERBSGATE_SEL_ATTR_CGROUP_ID,	/* u64: CGROUP: the cgroup's id, output */
	VERBSGATE_SEL_ATTR_ULP,		/* string: ULP: restrack owner name */
	/*
	 * binary: *_ADDR: 4 bytes (IPv4) or 16 bytes (IPv6 address or GID),
	 * network order; bits beyond the prefix length must be 0.
	 */
	VERBSGATE_SEL_ATTR_ADDR,
	VERBSGATE_SEL_ATTR_PREFIX_LEN,	/* u8: *_ADDR: default all bits */

	__VERBSGATE_SEL_ATTR_MAX,
	VERBSGATE_SEL_ATTR_MAX = __VERBSGATE_SEL_ATTR_MAX - 1
};

/*
 * Counters (TENANT_STATS, QP_STATS), u64 each, monotonic except
 * QUEUED_WRS and MR_BYTES. They count what the enforcement path does.
 */
enum verbsgate_stat_attr {
	VERBSGATE_STAT_ATTR_UNSPEC,
	VERBSGATE_STAT_ATTR_PAD,
	VERBSGATE_STAT_ATTR_TX_BYTES,	/* payload bytes posted to the device */
	VERBSGATE_STAT_ATTR_TX_WRS,	/* work requests posted */
	VERBSGATE_STAT_ATTR_CHUNKS,	/* chunks posted (split WRs count each) */
	VERBSGATE_STAT_ATTR_SPLIT_WRS,	/* WRs split into more than one chunk */
	VERBSGATE_STAT_ATTR_THROTTLED_NS,	/* time WRs waited for tokens */
	VERBSGATE_STAT_ATTR_QUEUED_WRS,	/* WRs queued now (a gauge) */
	/* modify QP calls given a bound instead of what they asked for */
	VERBSGATE_STAT_ATTR_QP_CLAMPS,
	/* control verbs of the tenant's processes (see TENANT_CTRL_RATE) */
	VERBSGATE_STAT_ATTR_CTRL_VERBS,
	/* time they slept for the tenant's control verb pace, ns */
	VERBSGATE_STAT_ATTR_CTRL_WAIT_NS,
	/* bytes its processes hold registered as MRs now (a gauge) */
	VERBSGATE_STAT_ATTR_MR_BYTES,
	/* registrations refused by TENANT_MR_BYTES_MAX */
	VERBSGATE_STAT_ATTR_MR_REFUSED,
	/*
	 * work requests of its processes that failed their QP (charged to
	 * TENANT_CTRL_RATE); on devices whose driver reports them
	 */
	VERBSGATE_STAT_ATTR_QP_ERRORS,
	/*
	 * payload its QPs sent again in retries (RNR NAK, sequence error,
	 * ACK timeout) that verbsgate paced; on devices whose driver lets
	 * it (rdma_rxe with driver-patches/)
	 */
	VERBSGATE_STAT_ATTR_RETRY_BYTES,

	__VERBSGATE_STAT_ATTR_MAX,
	VERBSGATE_STAT_ATTR_MAX = __VERBSGATE_STAT_ATTR_MAX - 1
};

/* One entry of VERBSGATE_ATTR_DEV_CHUNK_TABLE. */
enum verbsgate_chunk_attr {
	VERBSGATE_CHUNK_ATTR_UNSPEC,
	VERBSGATE_CHUNK_ATTR_SIZE,	/* u32: bytes, 1..the device's max chunk */
	VERBSGATE_CHUNK_ATTR_UTIL,	/* u32: MaxRate share it sustains, ppm */

	__VERBSGATE_CHUNK_ATTR_MAX,
	VERBSGATE_CHUNK_ATTR_MAX = __VERBSGATE_CHUNK_ATTR_MAX - 1
};

/* Operation classes of the token cost model. */
enum verbsgate_op_class {
	VERBSGATE_OP_CLASS_DATA,	/* WRITE, SEND, READ */
	VERBSGATE_OP_CLASS_ATOMIC,	/* compare-and-swap, fetch-and-add */
	VERBSGATE_OP_CLASS_MR,		/* REG_MR, LOCAL_INV */

	__VERBSGATE_OP_CLASS_MAX,
	VERBSGATE_OP_CLASS_MAX = __VERBSGATE_OP_CLASS_MAX - 1
};

/*
 * One entry of VERBSGATE_ATTR_DEV_OP_COSTS: what one operation of a class
 * costs on top of its payload. CLASS is required; BYTES and UNITS default
 * to the current value.
 */
enum verbsgate_opcost_attr {
	VERBSGATE_OPCOST_ATTR_UNSPEC,
	VERBSGATE_OPCOST_ATTR_CLASS,	/* u32: enum verbsgate_op_class */
	VERBSGATE_OPCOST_ATTR_BYTES,	/* u32: token bytes, 0..2^20 */
	VERBSGATE_OPCOST_ATTR_UNITS,	/* u32: operations charged, 1..1024 */

	__VERBSGATE_OPCOST_ATTR_MAX,
	VERBSGATE_OPCOST_ATTR_MAX = __VERBSGATE_OPCOST_ATTR_MAX - 1
};

/*
 * One entry of VERBSGATE_ATTR_DEV_PORT_TABLE: one port's pacer. The first
 * port's runs at SafeUtil (DEV_SAFE_UTIL); each other port's at the same
 * fraction of its own link rate, or at SafeUtil once the operator set
 * DEV_MAX_RATE, or where a link rate is unknown.
 */
enum verbsgate_port_attr {
	VERBSGATE_PORT_ATTR_UNSPEC,
	VERBSGATE_PORT_ATTR_PAD,
	VERBSGATE_PORT_ATTR_NUM,	/* u32: port number (as `rdma link`) */
	VERBSGATE_PORT_ATTR_LINK_RATE,	/* u64: link data rate, bytes/s; 0: unknown */
	VERBSGATE_PORT_ATTR_RATE,	/* u64: the pacer's rate; 0: unlimited */
	VERBSGATE_PORT_ATTR_OP_RATE,	/* u64: the pacer's op/s; 0: unlimited */
	VERBSGATE_PORT_ATTR_QPS,	/* u32: shaped QPs on the port now */
	/*
	 * u64 each, monotonic: payload bytes and operations (chunks, and
	 * WRs posted whole) the pacer let through. WRs of latency tenants,
	 * which verbsgate does not pace, are not counted.
	 */
	VERBSGATE_PORT_ATTR_PACED_BYTES,
	VERBSGATE_PORT_ATTR_PACED_OPS,

	__VERBSGATE_PORT_ATTR_MAX,
	VERBSGATE_PORT_ATTR_MAX = __VERBSGATE_PORT_ATTR_MAX - 1
};

#endif /* _UAPI_LINUX_VERBSGATE_H */
