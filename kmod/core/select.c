// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate tenant selectors: see select.h for the rules.
 */
#include "select.h"

bool vg_sel_prefix_match(const u8 *prefix, unsigned int plen, const u8 *addr)
{
	unsigned int bytes = plen / 8, bits = plen % 8;

	if (plen > VG_SEL_PLEN_MAX)
		return false;
	if (memcmp(prefix, addr, bytes))
		return false;
	return !bits || !((prefix[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/* Whether @sel's cgroup is the QP's cgroup or one of its ancestors. */
static bool vg_sel_cgroup_match(const struct vg_sel *sel,
				const struct vg_sel_facts *f)
{
	return f->user && f->ancestors && sel->cgrp &&
	       sel->level >= 0 && sel->level <= f->level &&
	       f->ancestors[sel->level] == sel->cgrp;
}

u64 vg_sel_rank(const struct vg_sel *sel, const struct vg_sel_facts *f)
{
	switch (sel->type) {
	case VG_SEL_CGROUP:
		if (vg_sel_cgroup_match(sel, f))
			return VG_SEL_RANK(VG_SEL_RULE_CGROUP, sel->level);
		return 0;
	case VG_SEL_LOCAL_ADDR:
		if (f->local && vg_sel_prefix_match(sel->addr, sel->plen,
						    f->local))
			return VG_SEL_RANK(VG_SEL_RULE_ADDR, 2 * sel->plen);
		return 0;
	case VG_SEL_PEER_ADDR:
		if (f->peer && vg_sel_prefix_match(sel->addr, sel->plen,
						   f->peer))
			return VG_SEL_RANK(VG_SEL_RULE_ADDR, 2 * sel->plen + 1);
		return 0;
	case VG_SEL_ULP:
		if (!f->user && f->ulp && sel->ulp && !strcmp(f->ulp, sel->ulp))
			return VG_SEL_RANK(VG_SEL_RULE_ULP, 0);
		return 0;
	case VG_SEL_DEFAULT:
		return VG_SEL_RANK(VG_SEL_RULE_DEFAULT, 0);
	default:
		return 0;
	}
}

bool vg_sel_equal(const struct vg_sel *a, const struct vg_sel *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case VG_SEL_CGROUP:
		return a->cgrp == b->cgrp;
	case VG_SEL_ULP:
		if (!a->ulp || !b->ulp)
			return a->ulp == b->ulp;
		return !strcmp(a->ulp, b->ulp);
	case VG_SEL_LOCAL_ADDR:
	case VG_SEL_PEER_ADDR:
		return a->plen == b->plen &&
		       !memcmp(a->addr, b->addr, sizeof(a->addr));
	default:
		return true;
	}
}

int vg_sel_prefix_init(struct vg_sel *sel, const u8 *addr, unsigned int len,
		       int plen)
{
	unsigned int max = len * 8;
	unsigned int i, n;

	if (len != 4 && len != VG_SEL_ADDR_LEN)
		return -EINVAL;
	if (plen < -1 || plen > (int)max)
		return -ERANGE;
	n = plen < 0 ? max : plen;
	for (i = n; i < max; i++)
		if (addr[i / 8] & (0x80 >> (i % 8)))
			return -EINVAL;

	memset(sel->addr, 0, sizeof(sel->addr));
	if (len == 4) {
		/* ::ffff:a.b.c.d, the IPv4-mapped GIDs RoCEv2 uses. */
		sel->addr[10] = 0xff;
		sel->addr[11] = 0xff;
		memcpy(&sel->addr[12], addr, 4);
		sel->plen = n + 96;
	} else {
		memcpy(sel->addr, addr, VG_SEL_ADDR_LEN);
		sel->plen = n;
	}
	return 0;
}
