/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate multi-resource token cost model.
 *
 * Every WR (or chunk) handed to the NIC is charged two resources
 * (Justitia's Token_Bytes / Token_Ops, §4.3.4):
 *
 *	bytes = payload length + op_bytes[class] + packets * pkt_bytes
 *	ops   = op_units[class]
 *
 * pkt_bytes is what each packet adds at the port besides its payload:
 * headers, CRCs and framing. A port's line rate counts them, so pacing
 * a port at its line rate counts them too; packets are the payload over
 * the QP's path MTU, at least one (none for the MR class, which sends
 * nothing). An operator sets it per device; the device's default follows
 * its link layer (control/devcfg.c).
 *
 * op_bytes is the per-operation cost expressed in payload bytes: the
 * doorbell MMIO, WQE fetch and PCIe TLP overhead every request adds no
 * matter how small (Husky key finding #4), so a flood of 16-byte WRITEs is
 * charged for the NIC and PCIe work it causes, not for its 16 bytes. The
 * scheduler's fairness is on @bytes; the pacer limits @bytes and @ops with
 * separate rates. The classes and defaults:
 *
 *	class	opcodes					op_bytes  op_units
 *	DATA	WRITE*, SEND*, READ			200	  1
 *	ATOMIC	CMP_SWP, FETCH_ADD			400	  2
 *	MR	REG_MR, LOCAL_INV			4096	  8
 *
 * 200 bytes is one operation's share of an RNIC that moves 48 Gbit/s or
 * 30 Mop/s (Justitia's 56G ConnectX-3: 6e9 B/s / 30e6 op/s); atomics count
 * double (two PCIe round trips at the responder); memory-registration WRs
 * update NIC translation state, Husky's most disruptive verb class. They
 * are starting points: an operator calibrates them per device.
 *
 * Context and locking: pure functions on caller-owned data; any context.
 * Updating a model that a pacing path reads needs the caller's lock (or a
 * copy-and-swap under RCU in the glue).
 */
#ifndef _VG_CORE_TOKEN_H
#define _VG_CORE_TOKEN_H

#include "vg_compat.h"
#include "wr.h"

enum vg_op_class {
	VG_OPC_DATA,
	VG_OPC_ATOMIC,
	VG_OPC_MR,
	VG_OPC_NR
};

#define VG_OP_BYTES_MAX		BIT(20)
#define VG_OP_UNITS_MAX		1024U
#define VG_PKT_BYTES_MAX	512U

struct vg_op_cost {
	u32 bytes;		/* per-operation cost in payload bytes */
	u32 units;		/* ops charged, >= 1 */
};

struct vg_cost_model {
	struct vg_op_cost cls[VG_OPC_NR];
	u32 pkt_bytes;		/* per packet at the port, <= VG_PKT_BYTES_MAX */
};

/*
 * What one WR or chunk costs. For a WR of at most VG_MAX_MSG bytes at a
 * path MTU of 256 or more (the smallest the verbs have), @bytes <= 2^31 +
 * VG_OP_BYTES_MAX + 2^23 * VG_PKT_BYTES_MAX < 2^33, what a pacer takes
 * in one charge (VG_COST_MAX).
 */
struct vg_token {
	u64 bytes;
	u32 ops;
};

/**
 * vg_cost_model_default() - fill @m with the defaults in the table above
 * @m: model
 *
 * pkt_bytes starts at 0: payload alone, until the device's link layer
 * is known.
 */
void vg_cost_model_default(struct vg_cost_model *m);

/**
 * vg_cost_model_set() - set one class's per-operation cost
 * @m: model
 * @cls: enum vg_op_class
 * @op_bytes: 0..VG_OP_BYTES_MAX
 * @op_units: 1..VG_OP_UNITS_MAX
 *
 * Return: 0; -EINVAL for an unknown class or @op_units == 0; -ERANGE if
 * @op_bytes or @op_units is above its maximum. @m is unchanged on error.
 */
int vg_cost_model_set(struct vg_cost_model *m, unsigned int cls, u32 op_bytes,
		      u32 op_units);

/**
 * vg_cost_model_set_pkt() - set what each packet adds at the port
 * @m: model
 * @pkt_bytes: 0..VG_PKT_BYTES_MAX
 *
 * Return: 0, or -ERANGE (then @m is unchanged).
 */
int vg_cost_model_set_pkt(struct vg_cost_model *m, u32 pkt_bytes);

/**
 * vg_opcode_class() - cost class of an opcode
 * @opcode: enum vg_opcode, < VG_OP_NR
 */
static inline enum vg_op_class vg_opcode_class(u8 opcode)
{
	switch (opcode) {
	case VG_OP_ATOMIC_CMP_SWP:
	case VG_OP_ATOMIC_FETCH_ADD:
		return VG_OPC_ATOMIC;
	case VG_OP_REG_MR:
	case VG_OP_LOCAL_INV:
		return VG_OPC_MR;
	default:
		return VG_OPC_DATA;
	}
}

/**
 * vg_packets() - packets an operation of @length payload bytes sends
 * @cls: its enum vg_op_class
 * @length: payload bytes
 * @mtu: the QP's path MTU in bytes, 0 if unknown (counts one packet)
 */
static inline u32 vg_packets(enum vg_op_class cls, u32 length, u32 mtu)
{
	if (cls == VG_OPC_MR)
		return 0;
	if (!mtu || length <= mtu)
		return 1;
	return length / mtu + !!(length % mtu);
}

/**
 * vg_cost() - tokens one operation of @length payload bytes costs
 * @m: model
 * @opcode: enum vg_opcode, < VG_OP_NR
 * @length: payload bytes (a chunk's length, or a whole WR's)
 * @mtu: the QP's path MTU in bytes, 0 if unknown
 * @t: result
 *
 * O(1), any context.
 */
static inline void vg_cost(const struct vg_cost_model *m, u8 opcode,
			   u32 length, u32 mtu, struct vg_token *t)
{
	enum vg_op_class cls = vg_opcode_class(opcode);
	const struct vg_op_cost *c = &m->cls[cls];

	t->bytes = (u64)length + c->bytes +
		   (u64)vg_packets(cls, length, mtu) * m->pkt_bytes;
	t->ops = c->units;
}

#endif /* _VG_CORE_TOKEN_H */
