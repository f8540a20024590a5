// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate multi-resource token cost model: see token.h.
 */
#include "token.h"

void vg_cost_model_default(struct vg_cost_model *m)
{
	m->cls[VG_OPC_DATA] = (struct vg_op_cost){ .bytes = 200, .units = 1 };
	m->cls[VG_OPC_ATOMIC] = (struct vg_op_cost){ .bytes = 400, .units = 2 };
	m->cls[VG_OPC_MR] = (struct vg_op_cost){ .bytes = 4096, .units = 8 };
	m->pkt_bytes = 0;
}

int vg_cost_model_set(struct vg_cost_model *m, unsigned int cls, u32 op_bytes,
		      u32 op_units)
{
	if (cls >= VG_OPC_NR || !op_units)
		return -EINVAL;
	if (op_bytes > VG_OP_BYTES_MAX || op_units > VG_OP_UNITS_MAX)
		return -ERANGE;
	m->cls[cls].bytes = op_bytes;
	m->cls[cls].units = op_units;
	return 0;
}

int vg_cost_model_set_pkt(struct vg_cost_model *m, u32 pkt_bytes)
{
	if (pkt_bytes > VG_PKT_BYTES_MAX)
		return -ERANGE;
	m->pkt_bytes = pkt_bytes;
	return 0;
}
