/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate policy model and hierarchical weighted scheduler.
 *
 * Policy model. A device has tenants; a tenant has a class (bandwidth,
 * throughput, latency), a weight 1..VG_WEIGHT_MAX and optionally a
 * guaranteed minimum and a maximum rate; a tenant has QPs, each with its
 * own weight (default 1). Shares are hierarchical (Palos eq. 1): a QP gets
 * its tenant's weight share among the *active* tenants times its weight
 * share among the tenant's *active* QPs, so opening more QPs or processes
 * gains a tenant nothing, and idle tenants' and QPs' shares go to the
 * active ones (work-conserving).
 *
 * Algorithm: hierarchical start-time fair queuing (SFQ; Goyal, Vin and
 * Cheng, SIGCOMM '96) at two levels. Each active tenant carries a start
 * tag in the device's virtual time and each active QP one in its tenant's
 * virtual time. The scheduler picks the tenant with the smallest tag, and
 * in it the QP with the smallest tag; the caller sends that QP's next chunk
 * and charges its cost c (token bytes, see token.h), which advances the
 * QP's tag by c / w_qp and the tenant's by c / w_tenant. The virtual time
 * of a level is the tag of the entity last served there; an entity that
 * becomes active starts at max(its tag, virtual time), so idle time earns
 * no credit. Charging after the fact is what SFQ needs: a chunk's cost is
 * known only once the QP has been chosen.
 *
 * Fairness bound (SFQ theorem, per level): for two tenants f and g that
 * are continuously backlogged (and neither capped nor served through its
 * guarantee) during an interval, the token bytes W they receive satisfy
 *
 *	| W_f / w_f - W_g / w_g | <= L / w_f + L / w_g
 *
 * where L is the largest single charge (chunk size plus per-op cost for
 * split opcodes, the whole WR otherwise). The same holds between QPs of one
 * tenant relative to that tenant's service. Weights enter as 2^30 / w,
 * rounded down, which perturbs them by less than 1e-5 relative.
 *
 * Rates. A tenant with a maximum rate is not eligible until its EDT clock
 * (cost / max_rate per charge) reaches now; it then waits in a separate
 * heap. A tenant with a guaranteed minimum rate whose guarantee clock
 * (cost / min_rate per charge, never ahead of now at activation) has
 * fallen behind now is served first, earliest clock first; its service
 * still advances its fair-share tag, so it receives about max(guarantee,
 * fair share). Both clocks keep at most @rate_slack_ns of credit. The sum
 * of guarantees is admitted against @capacity.
 *
 * Latency-class tenants are counted by the controller (ctrl.h) and are
 * normally posted without pacing (Justitia §4.2); if the glue queues them
 * here they are scheduled by weight like the others.
 *
 * Data structures: the tenant level is three indexed 4-ary heaps (heap.h)
 * over tenant slots (eligible by tag, guaranteed by clock, capped by
 * clock). Each tenant's active QPs form a 4-ary heap. Its root and the
 * root's four children are the tenant's own (s->qroot, s->qtop); the
 * other entries live in blocks of VG_QBLK = 16 entries taken from a
 * shared pool: block b holds the 16 grandchildren of heap index b, so
 * index i >= 5 is entry (i - 5) % 16 of the tenant's data block
 * (i - 5) / 16, found directly for block 0 and through one or two
 * directory blocks (VG_QDIR block numbers each, from the same pool) for
 * the others. A tenant holds blocks for all of its QPs, active or not, so
 * activation never allocates; adding a QP takes at most three blocks (a
 * data block and the directories it needs) off the pool's free list,
 * deleting one returns as many. Nothing is ever copied: there is no
 * per-tenant segment to grow or compact. The four children of a node are
 * one aligned cache line, and while they are compared on the way down,
 * the block of the node's grandchildren is looked up and prefetched.
 *
 * Worst-case cost of each call, for T = max_tenants and a tenant of n QPs
 * (a QP heap has at most 1 + log4(n) levels, 9 for 65536 QPs; a tenant
 * heap at most 1 + log4(T), 7 for 4096 tenants):
 *
 *	vg_sched_tenant_add(), _del()		O(1)
 *	vg_sched_tenant_set()			O(log T): requeues the tenant
 *	vg_sched_qp_add()			O(1): at most 3 blocks taken
 *	vg_sched_qp_set_weight()		O(1)
 *	vg_sched_qp_del()			O(log n + log T): a deactivation,
 *						and at most 3 blocks returned
 *	vg_sched_activate(), _deactivate()	O(log n + log T)
 *	vg_sched_charge()			O(log n + log T)
 *	vg_sched_send_idle()			O(1)
 *	vg_sched_pick()				O(1), plus O(log T) for each capped
 *						tenant whose cap clock has come,
 *						at most VG_SCHED_CAP_RELEASE of
 *						them per pick
 *	vg_sched_class_weights()		O(T)
 *	vg_sched_init()				O(memory): clears it
 *
 * A heap operation moves at most one entry per level and finds each
 * level's entries through at most two directory blocks. So at the limits
 * (65536 QPs, 4096 tenants) a call makes at most one QP heap operation
 * (at most 9 entries moved) and a few tenant heap operations (at most 7
 * each; a pick up to VG_SCHED_CAP_RELEASE more), plus at most
 * three blocks taken or returned (vg_sched_class_weights() and
 * vg_sched_init() aside); that, not the size of the pool or of a tenant,
 * bounds the time the caller holds its lock (docs/performance.md has the
 * measured average per WR). Charging the QP just picked skips the QP
 * lookup, and a pick reads two cache lines: the tenant heap's root and
 * that tenant's QP heap root.
 *
 * Memory: the caller allocates vg_sched_mem_size(cfg) bytes (kvzalloc in
 * the kernel) and passes them to vg_sched_init(); the scheduler keeps them
 * until the caller frees them. No other allocation happens. That is 280
 * bytes per tenant slot and 40 per QP slot, plus the block pool, which
 * vg_qpool_blocks() in qheap.c sizes for the worst spread of QPs over
 * tenants: about 16 bytes per QP slot and up to 420 per tenant slot. In
 * all 6.0 MiB for 4096 tenants and 65536 QPs (2.4 MiB of it the pool),
 * 2.6 MiB for 4096 tenants and 16384 QPs.
 *
 * Context and locking: the scheduler takes no locks and never sleeps;
 * every function may be called in any context, including softirq and
 * hardirq-off. The caller serializes all calls on one struct vg_sched (the
 * device's scheduler spinlock); hot-path and control calls may interleave
 * freely under that lock.
 */
#ifndef _VG_CORE_SCHED_H
#define _VG_CORE_SCHED_H

#include "heap.h"
#include "rate.h"
#include "vg_compat.h"

#define VG_WEIGHT_MIN		1U
#define VG_WEIGHT_MAX		10000U
#define VG_QP_WEIGHT_DEFAULT	1U
#define VG_MAX_TENANTS		4096U
#define VG_MAX_QPS		65536U
/* Largest single charge; larger costs are charged as this much. */
#define VG_CHARGE_MAX		BIT_ULL(32)
#define VG_SCHED_NONE		U32_MAX
/* Capped tenants a pick releases at most (their cap clock has come). */
#define VG_SCHED_CAP_RELEASE	4U
/* Default credit kept by the rate clocks. */
#define VG_RATE_SLACK_NS	(100 * NSEC_PER_USEC)

enum vg_class {
	VG_CLASS_BANDWIDTH,
	VG_CLASS_THROUGHPUT,
	VG_CLASS_LATENCY,
	VG_CLASS_NR
};

enum vg_tenant_state {
	VG_T_FREE,
	VG_T_IDLE,		/* no active QP; in no heap */
	VG_T_ACTIVE,		/* in wfq, and in grt if it has a guarantee */
	VG_T_CAPPED,		/* waiting for its cap clock; in cap only */
};

enum vg_qp_state {
	VG_Q_FREE,
	VG_Q_IDLE,
	VG_Q_ACTIVE,		/* in its tenant's QP heap */
};

struct vg_tenant_cfg {
	u32 weight;		/* VG_WEIGHT_MIN..VG_WEIGHT_MAX */
	u32 tclass;		/* enum vg_class */
	u64 min_rate;		/* guaranteed token bytes/s; 0: none */
	u64 max_rate;		/* cap, token bytes/s; 0: none */
};

struct vg_sched_cfg {
	u32 max_tenants;	/* 1..VG_MAX_TENANTS */
	u32 max_qps;		/* 1..VG_MAX_QPS */
	u64 capacity;		/* token bytes/s guarantees may sum to; 0: any */
	u64 rate_slack_ns;	/* 0: VG_RATE_SLACK_NS */
};

/* Virtual time of one level: 64 bits plus a count of wrap-arounds. */
struct vg_vclock {
	u64 v;
	u32 hi;
};

/*
 * QP heap blocks: VG_QBLK heap entries (256 bytes, four cache lines), or
 * VG_QDIR block numbers of a directory, or a link of the free list. The
 * first VG_QHEAD heap indices, the root and its children, are the
 * tenant's own (s->qroot, s->qtop).
 */
#define VG_QBLK		(VG_HEAP_D * VG_HEAP_D)
#define VG_QDIR		64U
#define VG_QHEAD	(1 + VG_HEAP_D)

union vg_qblk {
	struct vg_heap_ent ent[VG_QBLK];
	u32 dir[VG_QDIR];
};

/* A tenant's state used on every pick and charge: one cache line. */
struct vg_sched_tenant {
	u64 tag;		/* SFQ start tag in device virtual time */
	struct vg_vclock vt;	/* virtual time of this tenant's QPs */
	u64 served;		/* token bytes charged */
	u32 inv_w;		/* 2^30 / weight */
	u32 nactive;		/* active QPs, the heap's size */
	u32 qblk0;		/* QP heap indices 1..VG_QBLK: its first block */
	u32 qdir;		/* with qdepth > 0: its directory block */
	u32 tag_hi;		/* while not queued: wraps of @tag */
	u8 state;		/* enum vg_tenant_state */
	u8 tclass;		/* enum vg_class */
	u8 qdepth;		/* directory levels: 0, 1 or 2 */
	bool has_min, has_max;
};

/* The rest of a tenant: configuration and rate clocks. */
struct vg_sched_tenant_ext {
	struct vg_edt min_next;	/* guarantee clock (biased ns) */
	struct vg_edt max_next;	/* cap clock (biased ns) */
	struct vg_rate min_rate;
	struct vg_rate max_rate;
	u32 weight;
	u32 nqps;		/* QPs; it holds blocks for this many */
};

/*
 * A QP. While it is active its tag and 2^30 / weight live in its heap
 * entry (key and aux), so charging it does not touch this structure.
 */
struct vg_sched_qp {
	u64 tag;		/* SFQ start tag while idle */
	u32 inv_w;		/* 2^30 / weight */
	u32 tenant;
	u32 weight;
	u32 tag_hi;		/* while idle: wraps of @tag */
	u8 state;		/* enum vg_qp_state */
};

struct vg_sched {
	struct vg_sched_tenant *tenants;
	struct vg_sched_tenant_ext *text;
	struct vg_sched_qp *qps;
	struct vg_heap wfq;	/* eligible active tenants by tag */
	struct vg_heap grt;	/* eligible tenants with a guarantee, by clock */
	struct vg_heap cap;	/* capped tenants by cap clock */
	union vg_qblk *qpool;	/* QP heap blocks */
	struct vg_heap_ent *qroot;	/* tenant -> root of its QP heap */
	struct vg_heap_ent *qtop;	/* tenant -> the root's children */
	u32 *qpos;		/* QP -> index + 1 in its tenant's heap */
	u32 *tfree, *qfree;	/* free slot stacks */
	u32 ntfree, nqfree;
	u32 qpool_cap;		/* blocks in qpool */
	u32 qpool_top;		/* blocks below it were taken at least once */
	u32 qblk_free;		/* free list of blocks taken before */
	u32 nqblk_free;		/* free blocks, on the list or above the top */
	u32 pick_qp, pick_tenant;	/* last pick, while still at its root */
	struct vg_vclock vt;	/* device virtual time */
	u64 capacity;
	u64 guaranteed;		/* sum of min rates */
	u64 slack_ns;
	/* Work counters, for tests: their growth per call is bounded. */
	u64 qmoved;		/* QP heap entries written */
	u64 qblocks;		/* blocks taken from or returned to qpool */
	u32 max_tenants, max_qps;
	u32 ntenants, nqps;
};

/* Per-class weight sums, for the controller's Rmin. */
struct vg_class_weights {
	u64 sum[VG_CLASS_NR];	/* sum of weights per class */
	u32 count[VG_CLASS_NR];	/* tenants per class */
	u32 max_latency;	/* largest latency-class weight, 0 if none */
};

/**
 * vg_sched_mem_size() - bytes vg_sched_init() needs for @cfg
 * @cfg: configuration
 *
 * Return: the size, or 0 if @cfg is invalid (see vg_sched_init()).
 */
size_t vg_sched_mem_size(const struct vg_sched_cfg *cfg);

/**
 * vg_sched_init() - set up an empty scheduler
 * @s: scheduler
 * @cfg: configuration
 * @mem: vg_sched_mem_size(@cfg) bytes, 8-byte aligned, owned by @s after
 * @len: size of @mem
 *
 * Return: 0; -EINVAL if a limit is 0 or @len too small; -ERANGE if
 * max_tenants > VG_MAX_TENANTS or max_qps > VG_MAX_QPS.
 */
int vg_sched_init(struct vg_sched *s, const struct vg_sched_cfg *cfg,
		  void *mem, size_t len);

/**
 * vg_sched_tenant_add() - create a tenant
 * @s: scheduler
 * @cfg: its policy
 * @id: its handle, < cfg->max_tenants
 *
 * Errors: -EINVAL weight 0, unknown class, or min_rate > max_rate;
 * -ERANGE weight above VG_WEIGHT_MAX or a rate above VG_RATE_MAX;
 * -ENOSPC max_tenants tenants exist; -EDQUOT the guarantees would exceed
 * the capacity.
 * Return: 0 or an error above (nothing changed).
 */
int vg_sched_tenant_add(struct vg_sched *s, const struct vg_tenant_cfg *cfg,
			u32 *id);

/**
 * vg_sched_tenant_set() - change a tenant's policy
 * @s: scheduler
 * @id: tenant
 * @cfg: new policy
 * @now: time, ns
 *
 * A new weight applies from the next charge; new rates at once.
 * Return: 0; -ENOENT no such tenant; otherwise as vg_sched_tenant_add().
 */
int vg_sched_tenant_set(struct vg_sched *s, u32 id,
			const struct vg_tenant_cfg *cfg, u64 now);

/**
 * vg_sched_tenant_del() - delete a tenant without QPs
 * @s: scheduler
 * @id: tenant
 *
 * Return: 0; -ENOENT no such tenant; -EBUSY it still has QPs.
 */
int vg_sched_tenant_del(struct vg_sched *s, u32 id);

/**
 * vg_sched_qp_add() - create an idle QP in a tenant
 * @s: scheduler
 * @tenant: tenant
 * @weight: VG_WEIGHT_MIN..VG_WEIGHT_MAX (VG_QP_WEIGHT_DEFAULT unless the
 *	tenant asked for another)
 * @qp: its handle, < cfg->max_qps
 *
 * O(1): takes at most three blocks for the tenant's QP heap, copies
 * nothing.
 * Return: 0; -ENOENT no such tenant; -EINVAL weight 0; -ERANGE weight
 * above VG_WEIGHT_MAX; -ENOSPC max_qps QPs exist.
 */
int vg_sched_qp_add(struct vg_sched *s, u32 tenant, u32 weight, u32 *qp);

/**
 * vg_sched_qp_set_weight() - change a QP's weight, effective next charge
 * @s: scheduler
 * @qp: QP
 * @weight: VG_WEIGHT_MIN..VG_WEIGHT_MAX
 *
 * Return: 0; -ENOENT; -EINVAL weight 0; -ERANGE weight too large.
 */
int vg_sched_qp_set_weight(struct vg_sched *s, u32 qp, u32 weight);

/**
 * vg_sched_qp_del() - delete a QP, active or not
 * @s: scheduler
 * @qp: QP
 *
 * Return: 0 or -ENOENT.
 */
int vg_sched_qp_del(struct vg_sched *s, u32 qp);

/**
 * vg_sched_activate() - a QP has work queued (idempotent)
 * @s: scheduler
 * @qp: QP
 * @now: time, ns below 2^62 (the caller's monotonic clock)
 *
 * Return: 0 or -ENOENT.
 */
int vg_sched_activate(struct vg_sched *s, u32 qp, u64 now);

/**
 * vg_sched_deactivate() - a QP has no more work (or cannot post), without
 *	a charge (idempotent)
 * @s: scheduler
 * @qp: QP
 *
 * Return: 0 or -ENOENT.
 */
int vg_sched_deactivate(struct vg_sched *s, u32 qp);

/**
 * vg_sched_pick() - choose the QP that sends the next chunk
 * @s: scheduler
 * @now: time, ns
 * @qp: the chosen QP
 * @next: with -EAGAIN, when the first capped tenant becomes eligible
 *
 * Does not consume anything: the caller sends the QP's next chunk and
 * then calls vg_sched_charge() (or vg_sched_deactivate() if it could not).
 * Return: 0; -ENODATA no active QP; -EAGAIN all active tenants are capped.
 */
int vg_sched_pick(struct vg_sched *s, u64 now, u32 *qp, u64 *next);

/**
 * vg_sched_pick_near() - vg_sched_pick(), serving @pref within its tenant
 * @s: scheduler
 * @now: time, ns
 * @pref: a QP the caller would rather serve, or VG_SCHED_NONE
 * @qp: the chosen QP
 * @next: as for vg_sched_pick()
 *
 * Tenants are chosen exactly as by vg_sched_pick(). If the chosen tenant
 * is @pref's and @pref is active, @pref is chosen instead of the tenant's
 * QP with the smallest tag: a tenant's service is shared out among its QPs
 * by whoever asks, which lets several CPUs each serve their own QP of one
 * tenant. Tenants' shares, guarantees and caps are unaffected; between
 * the QPs of one tenant, a QP that is preferred less is served first by
 * every plain pick until its tag catches up.
 *
 * Cost: that of vg_sched_pick(), plus O(1).
 * Return: as vg_sched_pick().
 */
int vg_sched_pick_near(struct vg_sched *s, u64 now, u32 pref, u32 *qp,
		       u64 *next);

/**
 * vg_sched_pick_spare() - the QP another tenant would send next
 * @s: scheduler
 * @busy: an active QP, whose tenant is left out
 * @qp: the chosen QP
 *
 * For tokens that @busy's tenant, whose turn it is, cannot use as fast as
 * they come (shaper.c): the QP with the smallest tag of the eligible
 * tenant with the smallest tag but @busy's. Capped tenants are not
 * eligible; a guaranteed tenant is chosen by its fair-share tag. Nothing
 * changes: the caller charges what the QP sends, as it would any QP's.
 *
 * Cost: O(1), the tenant heap's root and its children.
 * Return: 0; -ENOENT @busy is not active; -ENODATA no other tenant is
 * eligible.
 */
int vg_sched_pick_spare(const struct vg_sched *s, u32 busy, u32 *qp);

/**
 * vg_sched_charge() - account @cost token bytes sent by an active QP
 * @s: scheduler
 * @qp: QP (normally the one vg_sched_pick() returned)
 * @cost: token bytes (token.h); 0 counts as 1 and anything above
 *	VG_CHARGE_MAX as VG_CHARGE_MAX
 * @now: time of sending, ns
 * @backlogged: whether the QP still has work; false deactivates it
 *
 * Return: 0; -ENOENT no such QP; -EINVAL the QP is not active.
 */
int vg_sched_charge(struct vg_sched *s, u32 qp, u64 cost, u64 now,
		    bool backlogged);

/**
 * vg_sched_charge_spare() - vg_sched_charge() for a chunk sent in a spare
 *	turn (vg_sched_pick_spare())
 * @s: scheduler
 * @qp: an active QP
 * @cost: token bytes, as for vg_sched_charge()
 * @now: time of sending, ns
 * @backlogged: as for vg_sched_charge()
 *
 * The tokens were nobody's share: the tenant's fair-share tag takes the
 * least charge and it keeps its place among the tenants. Everything else
 * takes @cost, as for vg_sched_charge(): its QP's place among its
 * tenant's QPs, its count, and its guarantee's and cap's clocks, so a
 * capped tenant gets no more than its cap in spare turns either.
 *
 * Return: as vg_sched_charge().
 */
int vg_sched_charge_spare(struct vg_sched *s, u32 qp, u64 cost, u64 now,
			  bool backlogged);

/**
 * vg_sched_send_idle() - account @cost token bytes sent by a QP while no
 *	QP of the device is active
 * @s: scheduler
 * @qp: an idle QP
 * @cost: token bytes, as for vg_sched_charge()
 * @now: time of sending, ns
 *
 * Leaves @s exactly as vg_sched_activate(), vg_sched_pick() (which then
 * picks @qp) and vg_sched_charge(@backlogged false) would, in O(1) and
 * without touching a heap: the post path of a device with nothing
 * backlogged calls this for every WR.
 * Return: 0; -ENOENT no such QP; -EBUSY a QP is active (use the three
 * calls); -EAGAIN @qp's tenant is held back by its cap (nothing changed).
 */
int vg_sched_send_idle(struct vg_sched *s, u32 qp, u64 cost, u64 now);

/**
 * vg_sched_class_weights() - per-class weight sums of the tenants
 * @s: scheduler
 * @cw: result
 *
 * O(max_tenants).
 */
void vg_sched_class_weights(const struct vg_sched *s,
			    struct vg_class_weights *cw);

/**
 * vg_sched_qp_active() - whether @qp is active
 * @s: scheduler
 * @qp: QP handle, < max_qps
 */
bool vg_sched_qp_active(const struct vg_sched *s, u32 qp);

/**
 * vg_sched_qp_tag() - a QP's current start tag (statistics and tests)
 * @s: scheduler
 * @qp: an existing QP
 */
u64 vg_sched_qp_tag(const struct vg_sched *s, u32 qp);

/*
 * A tenant's QP heap as the heap operations see it, built on the fly
 * (sched.c and tests).
 */
struct vg_qheap {
	struct vg_heap_ent *root;	/* index 0 */
	struct vg_heap_ent *top;	/* indices 1..4, the root's children */
	union vg_qblk *pool;
	u32 *pos;		/* QP -> index + 1 */
	u32 n;			/* entries: the tenant's active QPs */
	u32 blk0, dir, depth;	/* the tenant's qblk0, qdir, qdepth */
};

static inline struct vg_qheap vg_sched_qheap(const struct vg_sched *s,
					     u32 tenant)
{
	const struct vg_sched_tenant *t = &s->tenants[tenant];
	struct vg_qheap h = {
		.root = &s->qroot[tenant],
		.top = &s->qtop[tenant * VG_HEAP_D],
		.pool = s->qpool,
		.pos = s->qpos,
		.n = t->nactive,
		.blk0 = t->qblk0,
		.dir = t->qdir,
		.depth = t->qdepth,
	};

	return h;
}

/*
 * Where the directory of @h keeps the number of data block @b >= 1 (so
 * @h has more than one, and a directory).
 */
static inline const u32 *vg_qheap_dirslot(const struct vg_qheap *h, u32 b)
{
	const union vg_qblk *pool = h->pool;

	if (h->depth > 1)
		return &pool[pool[h->dir].dir[b / VG_QDIR]].dir[b % VG_QDIR];
	return &pool[h->dir].dir[b];
}

/*
 * Data block @b of @h: heap indices VG_QHEAD + VG_QBLK * b and the 15
 * after them, the grandchildren of index b.
 */
static inline struct vg_heap_ent *vg_qheap_block(const struct vg_qheap *h,
						 u32 b)
{
	return h->pool[likely(!b) ? h->blk0 : *vg_qheap_dirslot(h, b)].ent;
}

/* Entry @i of @h, the root included. */
static inline struct vg_heap_ent *vg_qheap_at(const struct vg_qheap *h, u32 i)
{
	if (i < VG_QHEAD)
		return i ? &h->top[i - 1] : h->root;
	i -= VG_QHEAD;
	return &vg_qheap_block(h, i / VG_QBLK)[i % VG_QBLK];
}

#endif /* _VG_CORE_SCHED_H */
