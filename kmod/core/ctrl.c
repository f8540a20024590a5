// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate device controller: see ctrl.h.
 */
#include "ctrl.h"

void vg_ctrl_default_cfg(struct vg_ctrl_cfg *cfg, u64 max_rate, u64 max_ops,
			 u32 max_chunk)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_rate = max_rate;
	cfg->max_ops = max_ops;
	cfg->step = max_t(u64, max_rate >> 8, 1);
	cfg->period_ns = VG_CTRL_PERIOD_NS;
	cfg->max_chunk = max_chunk;
	cfg->chunk_nolat = min_t(u32, VG_CTRL_CHUNK_NOLAT, max_chunk);
	cfg->ntable = 1;
	cfg->table[0].chunk = min_t(u32, VG_CTRL_CHUNK_LAT, max_chunk);
	cfg->table[0].util_ppm = VG_PPM;
}

static int vg_ctrl_check_chunk(const struct vg_ctrl_cfg *cfg, u32 chunk)
{
	if (!chunk)
		return -EINVAL;
	if (chunk > cfg->max_chunk)
		return -ERANGE;
	return 0;
}

int vg_ctrl_check_cfg(const struct vg_ctrl_cfg *cfg)
{
	u32 i;
	int ret;

	if (!cfg->max_rate || !cfg->step || !cfg->period_ns ||
	    !cfg->max_chunk || (cfg->flags & ~VG_CTRL_LAT_EACH))
		return -EINVAL;
	if (cfg->max_rate > VG_RATE_MAX || cfg->max_ops > VG_RATE_MAX ||
	    cfg->step > cfg->max_rate || cfg->max_chunk > VG_SPLIT_MAX_CHUNK)
		return -ERANGE;
	ret = vg_ctrl_check_chunk(cfg, cfg->chunk_nolat);
	if (ret)
		return ret;
	if (!cfg->ntable)
		return -EINVAL;
	if (cfg->ntable > VG_CTRL_MAX_TABLE)
		return -E2BIG;
	for (i = 0; i < cfg->ntable; i++) {
		const struct vg_chunk_ent *e = &cfg->table[i];

		ret = vg_ctrl_check_chunk(cfg, e->chunk);
		if (ret)
			return ret;
		if (e->util_ppm > VG_PPM)
			return -ERANGE;
		if (i && (e->chunk <= e[-1].chunk ||
			  e->util_ppm < e[-1].util_ppm))
			return -EINVAL;
	}
	return 0;
}

/*
 * Smallest chunk that sustains SafeUtil, or the largest if none does;
 * @chunk_nolat with neither latency nor throughput tenants.
 */
static u32 vg_ctrl_chunk(const struct vg_ctrl *c)
{
	const struct vg_ctrl_cfg *cfg = &c->cfg;
	u32 i;

	if (!c->nlat && !c->nthr)
		return cfg->chunk_nolat;
	for (i = 0; i < cfg->ntable; i++) {
		u64 sustains = mul_u64_u64_shr(cfg->max_rate,
					       div_u64((u64)cfg->table[i].util_ppm
						       << 32, VG_PPM), 32);

		if (sustains >= c->safe)
			return cfg->table[i].chunk;
	}
	return cfg->table[cfg->ntable - 1].chunk;
}

/* Clamp SafeUtil to [Rmin, MaxRate] and pick the chunk; true if changed. */
static bool vg_ctrl_settle(struct vg_ctrl *c, u64 old_safe, u32 old_chunk)
{
	c->safe = clamp(c->safe, c->rmin, c->cfg.max_rate);
	c->chunk = vg_ctrl_chunk(c);
	return c->safe != old_safe || c->chunk != old_chunk;
}

int vg_ctrl_init(struct vg_ctrl *c, const struct vg_ctrl_cfg *cfg, u64 now)
{
	int ret = vg_ctrl_check_cfg(cfg);

	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->rmin_num = 1;
	c->rmin_den = 1;
	c->rmin = cfg->max_rate;
	c->safe = cfg->max_rate;
	c->last_ns = now;
	vg_ctrl_settle(c, 0, 0);
	return 0;
}

/* Rmin = MaxRate * num / den, rounded down, at least 1. */
static void vg_ctrl_rmin(struct vg_ctrl *c)
{
	u64 prod, r;

	if (!check_mul_overflow(c->cfg.max_rate, c->rmin_num, &prod)) {
		r = div64_u64(prod, c->rmin_den);
	} else {
		/* num < den < 2^27: a 32.32 fraction loses < 2^-26. */
		r = mul_u64_u64_shr(c->cfg.max_rate,
				    div64_u64(c->rmin_num << 32, c->rmin_den),
				    32);
	}
	c->rmin = max_t(u64, r, 1);
}

int vg_ctrl_set_cfg(struct vg_ctrl *c, const struct vg_ctrl_cfg *cfg)
{
	int ret = vg_ctrl_check_cfg(cfg);

	if (ret)
		return ret;
	c->cfg = *cfg;
	vg_ctrl_rmin(c);
	if (!c->nlat)
		c->safe = cfg->max_rate;
	else if (!cfg->target_p99_ns)
		c->safe = c->rmin;
	vg_ctrl_settle(c, 0, 0);
	return 0;
}

void vg_ctrl_set_weights(struct vg_ctrl *c, const struct vg_class_weights *cw)
{
	u64 num = cw->sum[VG_CLASS_BANDWIDTH] + cw->sum[VG_CLASS_THROUGHPUT];
	u64 lat = c->cfg.flags & VG_CTRL_LAT_EACH ? cw->sum[VG_CLASS_LATENCY] :
						   cw->max_latency;
	u64 old_safe = c->safe;
	u32 old_chunk = c->chunk;

	c->nlat = cw->count[VG_CLASS_LATENCY];
	c->nthr = cw->count[VG_CLASS_THROUGHPUT];
	/* num, lat < 2^26 (4096 tenants of weight 10000). */
	c->rmin_num = c->nlat && lat ? num : 1;
	c->rmin_den = c->nlat && lat ? num + lat : 1;
	vg_ctrl_rmin(c);
	if (!c->nlat)
		c->safe = c->cfg.max_rate;
	else if (!c->cfg.target_p99_ns)
		c->safe = c->rmin;
	vg_ctrl_settle(c, old_safe, old_chunk);
}

bool vg_ctrl_update(struct vg_ctrl *c, u64 now, u64 p99_ns)
{
	const struct vg_ctrl_cfg *cfg = &c->cfg;
	u64 old_safe = c->safe;
	u32 old_chunk = c->chunk;

	if (c->stepped && now - c->last_ns < cfg->period_ns)
		return false;
	c->stepped = true;
	c->last_ns = now;

	if (!c->nlat) {
		c->safe = cfg->max_rate;
	} else if (!cfg->target_p99_ns) {
		c->safe = c->rmin;
	} else if (p99_ns > cfg->target_p99_ns) {
		c->safe = max(c->safe / 2, c->rmin);
		c->decreases++;
	} else {
		c->safe = min(c->safe + cfg->step, cfg->max_rate);
		c->increases++;
	}
	return vg_ctrl_settle(c, old_safe, old_chunk);
}

u64 vg_ctrl_op_rate(const struct vg_ctrl *c)
{
	u64 frac;

	if (!c->cfg.max_ops)
		return 0;
	frac = div64_u64(c->safe << 20, c->cfg.max_rate);
	return max_t(u64, mul_u64_u64_shr(c->cfg.max_ops, frac, 20), 1);
}
