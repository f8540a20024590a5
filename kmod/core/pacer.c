// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate device pacer arithmetic: see pacer.h.
 */
#include "pacer.h"

static void vg_pacer_burst_ns(struct vg_pacer *p)
{
	p->bburst_ns = vg_rate_ns(&p->brate, p->burst_bytes);
	p->oburst_ns = vg_rate_ns(&p->orate, p->burst_ops);
}

int vg_pacer_set_rates(struct vg_pacer *p, u64 byte_rate, u64 op_rate)
{
	if (byte_rate > VG_RATE_MAX || op_rate > VG_RATE_MAX)
		return -ERANGE;
	vg_rate_set(&p->brate, byte_rate);
	vg_rate_set(&p->orate, op_rate);
	vg_pacer_burst_ns(p);
	return 0;
}

int vg_pacer_set_burst(struct vg_pacer *p, u64 burst_bytes)
{
	if (burst_bytes > VG_COST_MAX)
		return -ERANGE;
	p->burst_bytes = burst_bytes;
	vg_pacer_burst_ns(p);
	return 0;
}

int vg_pacer_init(struct vg_pacer *p, const struct vg_pacer_cfg *cfg, u64 now)
{
	int ret;

	if (cfg->burst_bytes > VG_COST_MAX || cfg->burst_ops > VG_COST_MAX)
		return -ERANGE;
	memset(p, 0, sizeof(*p));
	p->burst_bytes = cfg->burst_bytes;
	p->burst_ops = cfg->burst_ops;
	ret = vg_pacer_set_rates(p, cfg->byte_rate, cfg->op_rate);
	if (ret)
		return ret;
	/* Full buckets: the first burst may leave at once. */
	vg_edt_floor(&p->bedt, now, p->bburst_ns);
	vg_edt_floor(&p->oedt, now, p->oburst_ns);
	return 0;
}

static void vg_bucket_charge(struct vg_edt *d, const struct vg_rate *r,
			     u64 burst_ns, u64 now, u64 units)
{
	if (!r->npu)
		return;
	/* Tokens beyond the bucket depth are lost while idle. */
	vg_edt_floor(d, now, burst_ns);
	vg_edt_advance(d, r, units);
}

void vg_pacer_charge(struct vg_pacer *p, u64 now, const struct vg_token *t)
{
	vg_bucket_charge(&p->bedt, &p->brate, p->bburst_ns, now, t->bytes);
	vg_bucket_charge(&p->oedt, &p->orate, p->oburst_ns, now, t->ops);
	p->sent_bytes += t->bytes;
	p->sent_ops += t->ops;
}
