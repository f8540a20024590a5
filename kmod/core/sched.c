// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate hierarchical weighted scheduler: see sched.h.
 *
 * Tenant level: indexed 4-ary heaps (heap.h) of tenant slots. QP level:
 * one 4-ary heap per tenant, its root in s->qroot and the rest in
 * fixed-size blocks of the shared pool s->qpool (struct vg_qheap in
 * sched.h, the pool in qheap.c); the QP positions (s->qpos) are heap
 * indices.
 */
#include "qheap.h"
#include "sched.h"

/* Tags advance by cost * 2^VG_VT_SHIFT / weight. */
#define VG_VT_SHIFT	30

#define NONE	VG_SCHED_NONE

/* Virtual clocks: a 64-bit value and a count of its wrap-arounds. */

static void vg_vclock_advance(struct vg_vclock *c, u64 key)
{
	if (vg_before(c->v, key)) {
		if (key < c->v)
			c->hi++;
		c->v = key;
	}
}

/* Wrap count of @tag, which is at or after @c (by less than 2^63). */
static u32 vg_vclock_hi_of(const struct vg_vclock *c, u64 tag)
{
	return c->hi + (tag < c->v);
}

/* Start tag of an entity that (re)joins: max(its tag, virtual time). */
static u64 vg_vclock_start(const struct vg_vclock *c, u64 tag, u32 hi)
{
	if (hi > c->hi || (hi == c->hi && tag > c->v))
		return tag;
	return c->v;
}

static int vg_weight_check(u32 w)
{
	if (w < VG_WEIGHT_MIN)
		return -EINVAL;
	if (w > VG_WEIGHT_MAX)
		return -ERANGE;
	return 0;
}

static u32 vg_inv_weight(u32 w)
{
	return BIT(VG_VT_SHIFT) / w;
}

/*
 * QP heap operations: those of heap.h over struct vg_qheap. Each returns
 * the entries it wrote, at most one per level.
 */

/* Put @e at index @i or, if its key is smaller, above it. */
static inline u32 vg_qheap_up(const struct vg_qheap *hp, u32 i,
			      struct vg_heap_ent e)
{
	/* A copy the compiler may keep in registers across the stores. */
	const struct vg_qheap hc = *hp, *h = &hc;
	struct vg_heap_ent *slot = vg_qheap_at(h, i), *up;
	u32 moved = 1;

	while (i) {
		u32 parent = (i - 1) / VG_HEAP_D;

		up = vg_qheap_at(h, parent);
		if (!vg_before(e.key, up->key))
			break;
		*slot = *up;
		h->pos[up->id] = i + 1;
		slot = up;
		i = parent;
		moved++;
	}
	*slot = e;
	h->pos[e.id] = i + 1;
	return moved;
}

/*
 * Put @e at index @i or, if its key is larger, below it. The children of
 * index i are the group at 4i + 1; their children, the block of i, which
 * is all the next level needs.
 */
static inline u32 vg_qheap_down(const struct vg_qheap *hp, u32 i,
				struct vg_heap_ent e)
{
	const struct vg_qheap hc = *hp, *h = &hc;
	struct vg_heap_ent *slot = vg_qheap_at(h, i), *g = NULL, *gg;
	u32 n = h->n, moved = 1;

	if (VG_HEAP_D * i + 1 < n)
		g = vg_qheap_at(h, VG_HEAP_D * i + 1);
	for (;;) {
		u32 f = VG_HEAP_D * i + 1, c, k;

		if (f >= n)
			break;
		gg = NULL;
		if (likely(f + VG_HEAP_D <= n)) {
			/* Start loading the grandchildren meanwhile. */
			if (VG_HEAP_D * f + 1 < n) {
				gg = vg_qheap_block(h, i);
				prefetch(gg);
				prefetch(gg + 4);
				prefetch(gg + 8);
				prefetch(gg + 12);
			}
			c = vg_heap_min2(g, vg_heap_min2(g, 0, 1),
					 vg_heap_min2(g, 2, 3));
		} else {
			for (c = 0, k = 1; f + k < n; k++)
				c = vg_heap_min2(g, c, k);
		}
		if (!vg_before(g[c].key, e.key))
			break;
		*slot = g[c];
		h->pos[g[c].id] = i + 1;
		slot = &g[c];
		i = f + c;
		moved++;
		/* Only read if the new index has children, then gg is set. */
		g = gg ? gg + VG_HEAP_D * c : NULL;
	}
	*slot = e;
	h->pos[e.id] = i + 1;
	return moved;
}

static void vg_qheap_push(struct vg_sched *s, struct vg_qheap *h, u32 qp,
			  u64 key, u32 aux)
{
	struct vg_heap_ent e = { .key = key, .id = qp, .aux = aux };

	s->qmoved += vg_qheap_up(h, h->n++, e);
}

/* Remove the entry at index @i. */
static void vg_qheap_remove_at(struct vg_sched *s, struct vg_qheap *h, u32 i)
{
	struct vg_heap_ent last;

	h->pos[vg_qheap_at(h, i)->id] = 0;
	if (i == --h->n)
		return;
	/* Fill the hole with the last entry and restore order around it. */
	last = *vg_qheap_at(h, h->n);
	if (i && vg_before(last.key, vg_qheap_at(h, (i - 1) / VG_HEAP_D)->key))
		s->qmoved += vg_qheap_up(h, i, last);
	else
		s->qmoved += vg_qheap_down(h, i, last);
}

static void vg_qheap_update_at(struct vg_sched *s, struct vg_qheap *h,
			       u32 i, u64 key)
{
	struct vg_heap_ent e = *vg_qheap_at(h, i);
	bool up = vg_before(key, e.key);

	e.key = key;
	s->qmoved += up ? vg_qheap_up(h, i, e) : vg_qheap_down(h, i, e);
}

/* Setup. */

static bool vg_sched_cfg_ok(const struct vg_sched_cfg *cfg)
{
	return cfg->max_tenants && cfg->max_qps &&
	       cfg->max_tenants <= VG_MAX_TENANTS && cfg->max_qps <= VG_MAX_QPS;
}

/* The pool comes first, aligned so that a node's children share a line. */
#define VG_QPOOL_ALIGN	64

size_t vg_sched_mem_size(const struct vg_sched_cfg *cfg)
{
	size_t t, q;

	if (!vg_sched_cfg_ok(cfg))
		return 0;
	t = cfg->max_tenants;
	q = cfg->max_qps;
	/* Limits are small: no overflow. 8-byte-aligned parts first. */
	return VG_QPOOL_ALIGN - 1 +
	       vg_qpool_blocks(t, q) * sizeof(union vg_qblk) +
	       t * (sizeof(struct vg_sched_tenant) + sizeof(struct vg_sched_tenant_ext)) +
	       q * sizeof(struct vg_sched_qp) +
	       (3 + VG_QHEAD) * t * sizeof(struct vg_heap_ent) +
	       (3 * t + q + t + q) * sizeof(u32);
}

int vg_sched_init(struct vg_sched *s, const struct vg_sched_cfg *cfg,
		  void *mem, size_t len)
{
	u32 t = cfg->max_tenants, q = cfg->max_qps, i;
	struct vg_heap_ent *ent;
	char *p = mem;
	u32 *pos;

	if (!cfg->max_tenants || !cfg->max_qps)
		return -EINVAL;
	if (cfg->max_tenants > VG_MAX_TENANTS || cfg->max_qps > VG_MAX_QPS)
		return -ERANGE;
	if (!mem || len < vg_sched_mem_size(cfg))
		return -EINVAL;

	BUILD_BUG_ON(sizeof(union vg_qblk) != VG_QBLK * sizeof(struct vg_heap_ent));
	BUILD_BUG_ON(VG_QDIR * sizeof(u32) != sizeof(union vg_qblk));
	/* Two directory levels cover every heap index. */
	BUILD_BUG_ON(VG_MAX_QPS - VG_QHEAD > VG_QBLK * VG_QDIR * VG_QDIR);

	memset(s, 0, sizeof(*s));
	memset(mem, 0, vg_sched_mem_size(cfg));
	p += -(uintptr_t)p & (VG_QPOOL_ALIGN - 1);
	s->qpool = (union vg_qblk *)p;
	s->qpool_cap = vg_qpool_blocks(t, q);
	p += s->qpool_cap * sizeof(union vg_qblk);
	/* A node's children, one cache line: right after the pool. */
	s->qtop = (struct vg_heap_ent *)p;
	p += VG_HEAP_D * t * sizeof(struct vg_heap_ent);
	s->tenants = (struct vg_sched_tenant *)p;
	p += t * sizeof(struct vg_sched_tenant);
	s->text = (struct vg_sched_tenant_ext *)p;
	p += t * sizeof(struct vg_sched_tenant_ext);
	s->qps = (struct vg_sched_qp *)p;
	p += q * sizeof(struct vg_sched_qp);
	ent = (struct vg_heap_ent *)p;
	p += 3 * t * sizeof(struct vg_heap_ent);
	s->qroot = (struct vg_heap_ent *)p;
	p += t * sizeof(struct vg_heap_ent);
	pos = (u32 *)p;
	p += 3 * t * sizeof(u32);
	s->qpos = (u32 *)p;
	p += q * sizeof(u32);
	s->tfree = (u32 *)p;
	p += t * sizeof(u32);
	s->qfree = (u32 *)p;

	vg_heap_init(&s->wfq, ent, pos, t);
	vg_heap_init(&s->grt, ent + t, pos + t, t);
	vg_heap_init(&s->cap, ent + 2 * t, pos + 2 * t, t);
	s->qblk_free = NONE;
	s->nqblk_free = s->qpool_cap;
	s->pick_qp = NONE;
	/* Free stacks hand out low slots first. */
	for (i = 0; i < t; i++)
		s->tfree[i] = t - 1 - i;
	for (i = 0; i < q; i++)
		s->qfree[i] = q - 1 - i;
	s->ntfree = t;
	s->nqfree = q;
	s->max_tenants = t;
	s->max_qps = q;
	s->capacity = cfg->capacity;
	s->slack_ns = cfg->rate_slack_ns ? cfg->rate_slack_ns : VG_RATE_SLACK_NS;
	return 0;
}

/* Tenants. */

static struct vg_sched_tenant *vg_sched_tenant_of(struct vg_sched *s, u32 id)
{
	if (id >= s->max_tenants || s->tenants[id].state == VG_T_FREE)
		return NULL;
	return &s->tenants[id];
}

static int vg_tenant_cfg_check(const struct vg_sched *s,
			       const struct vg_tenant_cfg *cfg, u64 old_min)
{
	int ret = vg_weight_check(cfg->weight);

	if (ret)
		return ret;
	if (cfg->tclass >= VG_CLASS_NR)
		return -EINVAL;
	if (cfg->min_rate > VG_RATE_MAX || cfg->max_rate > VG_RATE_MAX)
		return -ERANGE;
	if (cfg->max_rate && cfg->min_rate > cfg->max_rate)
		return -EINVAL;
	if (s->capacity &&
	    s->guaranteed - old_min + cfg->min_rate > s->capacity)
		return -EDQUOT;
	return 0;
}

static void vg_tenant_apply(struct vg_sched *s, u32 id,
			    const struct vg_tenant_cfg *cfg)
{
	struct vg_sched_tenant *t = &s->tenants[id];
	struct vg_sched_tenant_ext *x = &s->text[id];

	s->guaranteed = s->guaranteed - x->min_rate.per_sec + cfg->min_rate;
	x->weight = cfg->weight;
	t->inv_w = vg_inv_weight(cfg->weight);
	t->tclass = cfg->tclass;
	vg_rate_set(&x->min_rate, cfg->min_rate);
	vg_rate_set(&x->max_rate, cfg->max_rate);
	t->has_min = cfg->min_rate != 0;
	t->has_max = cfg->max_rate != 0;
}

/* An idle or capped tenant becomes eligible, or capped if its clock says so. */
static void vg_tenant_enqueue(struct vg_sched *s, u32 id, u64 now)
{
	struct vg_sched_tenant *t = &s->tenants[id];
	struct vg_sched_tenant_ext *x = &s->text[id];

	t->tag = vg_vclock_start(&s->vt, t->tag, t->tag_hi);
	if (t->has_max && vg_edt_time(&x->max_next) > now) {
		t->tag_hi = vg_vclock_hi_of(&s->vt, t->tag);
		vg_heap_push(&s->cap, id, x->max_next.ns, 0);
		t->state = VG_T_CAPPED;
		return;
	}
	vg_heap_push(&s->wfq, id, t->tag, 0);
	if (t->has_min) {
		/* No credit for time spent idle or capped. */
		vg_edt_floor(&x->min_next, now, 0);
		vg_heap_push(&s->grt, id, x->min_next.ns, 0);
	}
	t->state = VG_T_ACTIVE;
}

/* Take an active or capped tenant out of every heap. */
static void vg_tenant_unqueue(struct vg_sched *s, u32 id)
{
	struct vg_sched_tenant *t = &s->tenants[id];

	if (t->state == VG_T_ACTIVE)
		t->tag_hi = vg_vclock_hi_of(&s->vt, t->tag);
	vg_heap_remove(&s->wfq, id);
	vg_heap_remove(&s->grt, id);
	vg_heap_remove(&s->cap, id);
}

int vg_sched_tenant_add(struct vg_sched *s, const struct vg_tenant_cfg *cfg,
			u32 *id)
{
	struct vg_sched_tenant *t;
	int ret;

	ret = vg_tenant_cfg_check(s, cfg, 0);
	if (ret)
		return ret;
	if (!s->ntfree)
		return -ENOSPC;
	*id = s->tfree[--s->ntfree];
	t = &s->tenants[*id];
	memset(t, 0, sizeof(*t));
	memset(&s->text[*id], 0, sizeof(s->text[*id]));
	t->tag = s->vt.v;
	t->tag_hi = s->vt.hi;
	t->state = VG_T_IDLE;
	vg_tenant_apply(s, *id, cfg);
	s->ntenants++;
	return 0;
}

int vg_sched_tenant_set(struct vg_sched *s, u32 id,
			const struct vg_tenant_cfg *cfg, u64 now)
{
	struct vg_sched_tenant *t = vg_sched_tenant_of(s, id);
	int ret;

	if (!t)
		return -ENOENT;
	ret = vg_tenant_cfg_check(s, cfg, s->text[id].min_rate.per_sec);
	if (ret)
		return ret;
	vg_tenant_apply(s, id, cfg);
	if (t->state == VG_T_IDLE)
		return 0;
	/* Requeue so that a changed guarantee or cap applies at once. */
	vg_tenant_unqueue(s, id);
	vg_tenant_enqueue(s, id, now);
	return 0;
}

int vg_sched_tenant_del(struct vg_sched *s, u32 id)
{
	struct vg_sched_tenant *t = vg_sched_tenant_of(s, id);

	if (!t)
		return -ENOENT;
	if (s->text[id].nqps)
		return -EBUSY;
	s->guaranteed -= s->text[id].min_rate.per_sec;
	t->state = VG_T_FREE;
	s->tfree[s->ntfree++] = id;
	s->ntenants--;
	return 0;
}

void vg_sched_class_weights(const struct vg_sched *s,
			    struct vg_class_weights *cw)
{
	u32 i;

	memset(cw, 0, sizeof(*cw));
	for (i = 0; i < s->max_tenants; i++) {
		const struct vg_sched_tenant *t = &s->tenants[i];
		u32 w = s->text[i].weight;

		if (t->state == VG_T_FREE)
			continue;
		cw->sum[t->tclass] += w;
		cw->count[t->tclass]++;
		if (t->tclass == VG_CLASS_LATENCY)
			cw->max_latency = max(cw->max_latency, w);
	}
}

/* QPs. */

static struct vg_sched_qp *vg_qp_get(struct vg_sched *s, u32 qp)
{
	if (qp >= s->max_qps || s->qps[qp].state == VG_Q_FREE)
		return NULL;
	return &s->qps[qp];
}

bool vg_sched_qp_active(const struct vg_sched *s, u32 qp)
{
	return qp < s->max_qps && s->qps[qp].state == VG_Q_ACTIVE;
}

u64 vg_sched_qp_tag(const struct vg_sched *s, u32 qp)
{
	const struct vg_sched_qp *q = &s->qps[qp];
	struct vg_qheap h;

	if (q->state != VG_Q_ACTIVE)
		return q->tag;
	h = vg_sched_qheap(s, q->tenant);
	return vg_qheap_at(&h, s->qpos[qp] - 1)->key;
}

int vg_sched_qp_add(struct vg_sched *s, u32 tenant, u32 weight, u32 *qp)
{
	struct vg_sched_tenant *t = vg_sched_tenant_of(s, tenant);
	struct vg_sched_qp *q;
	int ret;

	if (!t)
		return -ENOENT;
	ret = vg_weight_check(weight);
	if (ret)
		return ret;
	/* The pool has room for max_qps QPs: the second test cannot fail. */
	if (!s->nqfree ||
	    s->nqblk_free < vg_qheap_grow_need(s->text[tenant].nqps))
		return -ENOSPC;
	vg_qheap_grow(s, tenant);
	*qp = s->qfree[--s->nqfree];
	q = &s->qps[*qp];
	memset(q, 0, sizeof(*q));
	q->tenant = tenant;
	q->weight = weight;
	q->inv_w = vg_inv_weight(weight);
	q->tag = t->vt.v;
	q->tag_hi = t->vt.hi;
	q->state = VG_Q_IDLE;
	s->text[tenant].nqps++;
	s->nqps++;
	return 0;
}

int vg_sched_qp_set_weight(struct vg_sched *s, u32 qp, u32 weight)
{
	struct vg_sched_qp *q = vg_qp_get(s, qp);
	int ret;

	if (!q)
		return -ENOENT;
	ret = vg_weight_check(weight);
	if (ret)
		return ret;
	q->weight = weight;
	q->inv_w = vg_inv_weight(weight);
	if (q->state == VG_Q_ACTIVE) {
		struct vg_qheap h = vg_sched_qheap(s, q->tenant);

		vg_qheap_at(&h, s->qpos[qp] - 1)->aux = q->inv_w;
	}
	return 0;
}

int vg_sched_qp_del(struct vg_sched *s, u32 qp)
{
	struct vg_sched_qp *q = vg_qp_get(s, qp);

	if (!q)
		return -ENOENT;
	vg_sched_deactivate(s, qp);
	s->text[q->tenant].nqps--;
	vg_qheap_shrink(s, q->tenant);
	q->state = VG_Q_FREE;
	s->qfree[s->nqfree++] = qp;
	s->nqps--;
	return 0;
}

/* Hot path. */

int vg_sched_activate(struct vg_sched *s, u32 qp, u64 now)
{
	struct vg_sched_qp *q = vg_qp_get(s, qp);
	struct vg_sched_tenant *t;
	struct vg_qheap h;

	if (!q)
		return -ENOENT;
	if (q->state == VG_Q_ACTIVE)
		return 0;
	/* The new QP may become its tenant's root. */
	s->pick_qp = NONE;
	t = &s->tenants[q->tenant];
	h = vg_sched_qheap(s, q->tenant);
	vg_qheap_push(s, &h, qp, vg_vclock_start(&t->vt, q->tag, q->tag_hi),
		      q->inv_w);
	q->state = VG_Q_ACTIVE;
	t->nactive = h.n;
	if (h.n == 1)
		vg_tenant_enqueue(s, q->tenant, now);
	return 0;
}

/* Take active QP @qp at index @i of its tenant's heap out of the heap. */
static void vg_qp_unqueue(struct vg_sched *s, u32 tid, u32 qp, u32 i)
{
	struct vg_qheap h = vg_sched_qheap(s, tid);
	struct vg_sched_tenant *t = &s->tenants[tid];
	struct vg_sched_qp *q = &s->qps[qp];

	q->tag = vg_qheap_at(&h, i)->key;
	q->tag_hi = vg_vclock_hi_of(&t->vt, q->tag);
	q->state = VG_Q_IDLE;
	vg_qheap_remove_at(s, &h, i);
	t->nactive = h.n;
	s->pick_qp = NONE;
}

int vg_sched_deactivate(struct vg_sched *s, u32 qp)
{
	struct vg_sched_qp *q = vg_qp_get(s, qp);
	u32 tid;

	if (!q)
		return -ENOENT;
	if (q->state != VG_Q_ACTIVE)
		return 0;
	tid = q->tenant;
	vg_qp_unqueue(s, tid, qp, s->qpos[qp] - 1);
	if (!s->tenants[tid].nactive) {
		vg_tenant_unqueue(s, tid);
		s->tenants[tid].state = VG_T_IDLE;
	}
	return 0;
}

int vg_sched_pick(struct vg_sched *s, u64 now, u32 *qp, u64 *next)
{
	u64 bnow = now + VG_TIME_BIAS;
	const struct vg_heap_ent *e;
	u32 id, n;

	/*
	 * Release capped tenants whose clock has come, earliest first, a
	 * bounded number per pick: the caller holds its lock, and caps of
	 * many tenants may come due at once. The others follow in the next
	 * picks, each a pick later at most.
	 */
	for (n = 0; n < VG_SCHED_CAP_RELEASE && s->cap.n &&
	     !vg_before(bnow, s->cap.ent[0].key); n++) {
		id = s->cap.ent[0].id;
		vg_heap_remove(&s->cap, id);
		vg_tenant_enqueue(s, id, now);
	}
	if (s->grt.n && !vg_before(bnow, s->grt.ent[0].key))
		e = &s->grt.ent[0];	/* behind its guarantee */
	else if (s->wfq.n)
		e = &s->wfq.ent[0];
	else if (s->cap.n) {
		*next = s->cap.ent[0].key - VG_TIME_BIAS;
		return -EAGAIN;
	} else {
		return -ENODATA;
	}
	*qp = s->qroot[e->id].id;
	s->pick_qp = *qp;
	s->pick_tenant = e->id;
	/* Read if the charge finds the QP drained; the caller works first. */
	prefetchw(&s->qps[*qp]);
	return 0;
}

int vg_sched_pick_near(struct vg_sched *s, u64 now, u32 pref, u32 *qp,
		       u64 *next)
{
	const struct vg_sched_qp *q;
	int ret;

	ret = vg_sched_pick(s, now, qp, next);
	if (ret || pref == *qp)
		return ret;
	q = vg_qp_get(s, pref);
	if (q && q->state == VG_Q_ACTIVE && q->tenant == s->pick_tenant) {
		*qp = pref;
		/* Not the tenant's root: the charge looks it up. */
		s->pick_qp = NONE;
	}
	return 0;
}

int vg_sched_pick_spare(const struct vg_sched *s, u32 busy, u32 *qp)
{
	const struct vg_heap_ent *e, *best = NULL;
	u32 i, last;

	if (!vg_sched_qp_active(s, busy))
		return -ENOENT;
	/* The smallest tag of the others is the root's or a child's. */
	last = min_t(u32, s->wfq.n, VG_HEAP_D + 1);
	for (i = 0; i < last; i++) {
		e = &s->wfq.ent[i];
		if (e->id == s->qps[busy].tenant)
			continue;
		if (!best || vg_before(e->key, best->key))
			best = e;
	}
	if (!best)
		return -ENODATA;
	*qp = s->qroot[best->id].id;
	return 0;
}

/* The rate clocks' part of a charge: each keeps at most the slack. */
static void vg_tenant_charge_rates(const struct vg_sched *s,
				   const struct vg_sched_tenant *t,
				   struct vg_sched_tenant_ext *x, u64 cost,
				   u64 now)
{
	if (t->has_min) {
		vg_edt_floor(&x->min_next, now, s->slack_ns);
		vg_edt_advance(&x->min_next, &x->min_rate, cost);
	}
	if (t->has_max) {
		vg_edt_floor(&x->max_next, now, s->slack_ns);
		vg_edt_advance(&x->max_next, &x->max_rate, cost);
	}
}

/*
 * Charge the tenant level; the QP level is done. Its fair-share tag moves
 * by @share of the @cost its rate clocks and its count take.
 */
static void vg_tenant_charge(struct vg_sched *s, u32 id, u64 cost,
			     u64 share, u64 now)
{
	struct vg_sched_tenant *t = &s->tenants[id];
	struct vg_sched_tenant_ext *x;

	if (t->state == VG_T_ACTIVE) {
		vg_vclock_advance(&s->vt, s->wfq.ent[0].key);
	} else {
		/* Capped: catch the tag up before charging it. */
		t->tag = vg_vclock_start(&s->vt, t->tag, t->tag_hi);
	}
	t->tag += share * t->inv_w;
	t->served += cost;
	if (likely(!t->has_min && !t->has_max)) {
		if (!t->nactive) {
			vg_tenant_unqueue(s, id);
			t->state = VG_T_IDLE;
		} else {
			vg_heap_update(&s->wfq, id, t->tag);
		}
		return;
	}

	x = &s->text[id];
	vg_tenant_charge_rates(s, t, x, cost, now);
	if (!t->nactive) {
		vg_tenant_unqueue(s, id);
		t->state = VG_T_IDLE;
	} else if (t->state == VG_T_CAPPED) {
		t->tag_hi = vg_vclock_hi_of(&s->vt, t->tag);
		vg_heap_update(&s->cap, id, x->max_next.ns);
	} else if (t->has_max && vg_edt_time(&x->max_next) > now) {
		vg_tenant_unqueue(s, id);
		vg_heap_push(&s->cap, id, x->max_next.ns, 0);
		t->state = VG_T_CAPPED;
	} else {
		vg_heap_update(&s->wfq, id, t->tag);
		if (t->has_min)
			vg_heap_update(&s->grt, id, x->min_next.ns);
	}
}

/* vg_sched_charge(), the tenant's tag moved by @share of @cost. */
static int vg_sched_charge_share(struct vg_sched *s, u32 qp, u64 cost,
				 u64 share, u64 now, bool backlogged)
{
	struct vg_heap_ent *e;
	struct vg_qheap h;
	u32 tid, i;
	u64 key;

	/* pick_qp is NONE while there is no pick: that is no QP handle. */
	if (qp == s->pick_qp && qp != NONE) {
		/* Fast path: the QP just picked is still its tenant's root. */
		tid = s->pick_tenant;
		i = 0;
	} else {
		struct vg_sched_qp *q = vg_qp_get(s, qp);

		if (!q)
			return -ENOENT;
		if (q->state != VG_Q_ACTIVE)
			return -EINVAL;
		tid = q->tenant;
		i = s->qpos[qp] - 1;
	}
	/* Free chunks would let a QP keep the lowest tag: charge >= 1. */
	cost = clamp_t(u64, cost, 1, VG_CHARGE_MAX);
	share = clamp_t(u64, share, 1, cost);

	/* QP level: virtual time is the smallest active tag, the root's. */
	h = vg_sched_qheap(s, tid);
	e = vg_qheap_at(&h, i);
	vg_vclock_advance(&s->tenants[tid].vt, h.root->key);
	key = e->key + cost * e->aux;
	if (backlogged) {
		vg_qheap_update_at(s, &h, i, key);
		/* Still the root? Then the next charge is fast too. */
		if (h.root->id != qp)
			s->pick_qp = NONE;
	} else {
		e->key = key;
		vg_qp_unqueue(s, tid, qp, i);
	}

	vg_tenant_charge(s, tid, cost, share, now);
	/* Warm up what the next pick and charge will read. */
	if (likely(s->wfq.n)) {
		u32 next = s->wfq.ent[0].id;

		prefetchw(&s->tenants[next]);
		prefetchw(&s->qroot[next]);
		prefetchw(&s->qtop[next * VG_HEAP_D]);
	}
	return 0;
}

int vg_sched_charge(struct vg_sched *s, u32 qp, u64 cost, u64 now,
		    bool backlogged)
{
	return vg_sched_charge_share(s, qp, cost, cost, now, backlogged);
}

int vg_sched_charge_spare(struct vg_sched *s, u32 qp, u64 cost, u64 now,
			  bool backlogged)
{
	return vg_sched_charge_share(s, qp, cost, 1, now, backlogged);
}

int vg_sched_send_idle(struct vg_sched *s, u32 qp, u64 cost, u64 now)
{
	struct vg_sched_qp *q = vg_qp_get(s, qp);
	struct vg_sched_tenant_ext *x;
	struct vg_sched_tenant *t;
	u64 start;

	if (!q)
		return -ENOENT;
	/* An active QP makes its tenant active or capped: wfq or cap. */
	if (s->wfq.n || s->cap.n)
		return -EBUSY;
	t = &s->tenants[q->tenant];
	x = &s->text[q->tenant];
	if (t->has_max && vg_edt_time(&x->max_next) > now)
		return -EAGAIN;
	cost = clamp_t(u64, cost, 1, VG_CHARGE_MAX);

	/* QP level: alone in its tenant, it starts at the tenant's vtime. */
	start = vg_vclock_start(&t->vt, q->tag, q->tag_hi);
	vg_vclock_advance(&t->vt, start);
	q->tag = start + cost * q->inv_w;
	q->tag_hi = vg_vclock_hi_of(&t->vt, q->tag);

	/* Tenant level: likewise alone on the device. */
	t->tag = vg_vclock_start(&s->vt, t->tag, t->tag_hi);
	vg_vclock_advance(&s->vt, t->tag);
	t->tag += cost * t->inv_w;
	t->tag_hi = vg_vclock_hi_of(&s->vt, t->tag);
	t->served += cost;
	/* Activation drops the guarantee's idle credit (vg_tenant_enqueue()). */
	if (t->has_min)
		vg_edt_floor(&x->min_next, now, 0);
	vg_tenant_charge_rates(s, t, x, cost, now);
	s->pick_qp = NONE;
	return 0;
}
