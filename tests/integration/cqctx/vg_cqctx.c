// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_cqctx: a test-only kernel ULP that checks from which context its
 * completions reach it. For each kind of send CQ a ULP can have, it
 * connects an RC QP pair over the device's loopback, posts @wrs signaled
 * RDMA WRITEs of @size bytes and, @delay_ms later, moves the sending QP
 * to the error state, so that what verbsgate still holds of them is
 * reported as flushed. With a slow pacer and WRs that are not split, the
 * chunks posted by then have completed: nothing of the QP is in the
 * driver, and no completion of the driver's brings the poll that reports
 * the flushes. Every completion callback and CQ event handler checks
 * that it runs in the context its CQ promises:
 *
 *   softirq          in_serving_softirq() (irq_poll)
 *   workqueue        current_work() is the CQ's work
 *   unbound          likewise
 *   legacy           a comp_handler of ib_create_cq(): called only while
 *                    armed by ib_req_notify_cq(), in softirq (rxe's CQ
 *                    tasklet)
 *
 * and that verbsgate did not call it (its timer must never call a ULP):
 * no frame of verbsgate between the callback and the start of its
 * context. Every WR must complete exactly once. The scenario runs in
 * module init; insmod fails if any check failed, and the console says
 * which:
 *
 *   insmod vg_cqctx.ko dev=rxe0 wrs=16 size=262144 rounds=4 delay_ms=200
 *
 * Never load it outside the test bed.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");
static uint wrs = 16;
module_param(wrs, uint, 0444);
MODULE_PARM_DESC(wrs, "RDMA WRITEs posted per QP (at most 64)");
static uint size = 256 * 1024;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per RDMA WRITE");
static uint rounds = 4;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "times each kind of CQ is tried");
static uint delay_ms = 200;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "time between the posts and the failure");

#define VG_CQCTX_MAX_WRS	64
#define VG_CQCTX_STACK		48

enum vg_cqctx_kind {
	VG_CQCTX_SOFTIRQ,
	VG_CQCTX_WORKQUEUE,
	VG_CQCTX_UNBOUND,
	VG_CQCTX_LEGACY,
	VG_CQCTX_KINDS
};

static const char *const vg_cqctx_names[VG_CQCTX_KINDS] = {
	"softirq", "workqueue", "unbound workqueue", "legacy",
};

static const enum ib_poll_context vg_cqctx_poll[VG_CQCTX_KINDS] = {
	IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE, IB_POLL_UNBOUND_WORKQUEUE, 0,
};

/* One QP pair and its CQ, and what the callbacks saw. */
struct vg_cqctx {
	struct vg_kconn_loop loop;
	enum vg_cqctx_kind kind;
	struct ib_cqe cqe[VG_CQCTX_MAX_WRS];
	atomic_t seen[VG_CQCTX_MAX_WRS];
	atomic_t done;
	struct completion all_done;
	atomic_t stray;
	atomic_t wrong_context;
	atomic_t from_verbsgate;
	atomic_t unarmed;
	atomic_t armed;
	atomic_t events;
};

/*
 * Any context: whether verbsgate called the callback, directly or
 * through the calls between: a frame of verbsgate on the stack before
 * the frame that started this context (the softirq loop or the
 * workqueue's). Frames beyond are of whatever the interrupt or the
 * softirq happened to interrupt.
 */
static bool vg_cqctx_called_by_verbsgate(void)
{
	unsigned long entries[VG_CQCTX_STACK];
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, n;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++) {
		snprintf(sym, sizeof(sym), "%pS", (void *)entries[i]);
		if (str_has_prefix(sym, "handle_softirqs") ||
		    str_has_prefix(sym, "__do_softirq") ||
		    str_has_prefix(sym, "process_one_work"))
			break;
		if (strstr(sym, "[verbsgate]")) {
			pr_err_once("vg_cqctx: called from %s\n", sym);
			return true;
		}
	}
	return false;
}

/* The callback's context: the CQ's promise, and nothing of verbsgate. */
static void vg_cqctx_check(struct vg_cqctx *c)
{
	bool ok;

	switch (c->kind) {
	case VG_CQCTX_WORKQUEUE:
	case VG_CQCTX_UNBOUND:
		ok = !in_interrupt() && current_work() == &c->loop.cq->work;
		break;
	default:
		ok = in_serving_softirq();
		break;
	}
	if (!ok)
		atomic_inc(&c->wrong_context);
	if (vg_cqctx_called_by_verbsgate())
		atomic_inc(&c->from_verbsgate);
}

/* A completion, however it was polled. */
static void vg_cqctx_seen(struct vg_cqctx *c, struct ib_wc *wc)
{
	long i = wc->wr_cqe - c->cqe;

	if (i < 0 || i >= wrs) {
		atomic_inc(&c->stray);
		return;
	}
	atomic_inc(&c->seen[i]);
	if (atomic_inc_return(&c->done) == wrs)
		complete(&c->all_done);
}

/* ib_alloc_cq() CQs: irq_poll's softirq or the CQ's work. */
static void vg_cqctx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vg_cqctx *c = cq->cq_context;

	vg_cqctx_check(c);
	vg_cqctx_seen(c, wc);
}

/* Any context: arm the legacy CQ for its next completion. */
static int vg_cqctx_arm(struct vg_cqctx *c)
{
	atomic_set(&c->armed, 1);
	return ib_req_notify_cq(c->loop.cq, IB_CQ_NEXT_COMP |
				IB_CQ_REPORT_MISSED_EVENTS);
}

/* Any context: everything the legacy CQ holds. */
static void vg_cqctx_drain_legacy(struct vg_cqctx *c)
{
	struct ib_wc wc;

	do {
		while (ib_poll_cq(c->loop.cq, 1, &wc) > 0)
			vg_cqctx_seen(c, &wc);
	} while (vg_cqctx_arm(c) > 0);
}

/* The legacy CQ's event handler: the driver's completion context. */
static void vg_cqctx_event(struct ib_cq *cq, void *context)
{
	struct vg_cqctx *c = context;

	atomic_inc(&c->events);
	if (!atomic_xchg(&c->armed, 0))
		atomic_inc(&c->unarmed);
	vg_cqctx_check(c);
	vg_cqctx_drain_legacy(c);
}

/* Process context: a PD, a CQ of @c->kind, two connected QPs. */
static int vg_cqctx_setup(struct vg_cqctx *c, struct ib_device *ibdev)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 2 * wrs + 4 };
	bool legacy = c->kind == VG_CQCTX_LEGACY;
	struct ib_cq *cq;
	int ret;

	ret = vg_kconn_loop_open(&c->loop, ibdev, size);
	if (ret)
		return ret;
	if (legacy)
		cq = ib_create_cq(ibdev, vg_cqctx_event, NULL, c, &cq_attr);
	else
		cq = ib_alloc_cq(ibdev, c, cq_attr.cqe, 0,
				 vg_cqctx_poll[c->kind]);
	return vg_kconn_loop_connect(&c->loop, cq, legacy, wrs);
}

/* Process context: @wrs signaled WRITEs, then the sender to ERR. */
static int vg_cqctx_post_and_fail(struct vg_cqctx *c)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	ret = vg_kconn_post_writes(c->loop.qp[0], c->loop.dma[0],
				   c->loop.dma[1], size, c->cqe, wrs,
				   vg_cqctx_done);
	if (ret)
		return ret;
	msleep(delay_ms);
	return ib_modify_qp(c->loop.qp[0], &attr, IB_QP_STATE);
}

/* Process context: 0 if @count is, else 1 and the console says so. */
static int vg_cqctx_none(struct vg_cqctx *c, u32 round, atomic_t *count,
			 const char *what)
{
	if (!atomic_read(count))
		return 0;
	pr_err("vg_cqctx: %s round %u: %d %s\n", vg_cqctx_names[c->kind],
	       round, atomic_read(count), what);
	return 1;
}

/* Process context: one QP pair of @kind; 0 if every check passed. */
static int vg_cqctx_run(struct ib_device *ibdev, enum vg_cqctx_kind kind,
			u32 round)
{
	const char *name = vg_cqctx_names[kind];
	struct vg_cqctx *c;
	int i, ret, bad = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->kind = kind;
	init_completion(&c->all_done);
	ret = vg_cqctx_setup(c, ibdev);
	if (!ret && kind == VG_CQCTX_LEGACY && vg_cqctx_arm(c) > 0)
		vg_cqctx_drain_legacy(c);
	if (!ret)
		ret = vg_cqctx_post_and_fail(c);
	if (ret) {
		pr_err("vg_cqctx: %s round %u: setup failed: %d\n", name,
		       round, ret);
		goto out;
	}
	if (!wait_for_completion_timeout(&c->all_done, 60 * HZ)) {
		pr_err("vg_cqctx: %s round %u: %d of %u WRs completed in 60 s\n",
		       name, round, atomic_read(&c->done), wrs);
		bad++;
	}
	for (i = 0; i < wrs; i++) {
		if (atomic_read(&c->seen[i]) > 1) {
			pr_err("vg_cqctx: %s round %u: WR %d completed %d times\n",
			       name, round, i, atomic_read(&c->seen[i]));
			bad++;
		}
	}
	bad += vg_cqctx_none(c, round, &c->stray, "completions of no WR");
	bad += vg_cqctx_none(c, round, &c->wrong_context,
			     "callbacks in the wrong context");
	bad += vg_cqctx_none(c, round, &c->from_verbsgate,
			     "callbacks called by verbsgate");
	bad += vg_cqctx_none(c, round, &c->unarmed, "events on an unarmed CQ");
	ret = bad ? -EIO : 0;
out:
	vg_kconn_loop_close(&c->loop);
	kfree(c);
	return ret;
}

static int __init vg_cqctx_init(void)
{
	struct ib_device *ibdev;
	int kind, ret = 0;
	u32 round;

	if (!wrs || wrs > VG_CQCTX_MAX_WRS || !size)
		return -EINVAL;
	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return -ENODEV;
	for (round = 0; round < rounds && !ret; round++)
		for (kind = 0; kind < VG_CQCTX_KINDS && !ret; kind++)
			ret = vg_cqctx_run(ibdev, kind, round);
	ib_device_put(ibdev);
	if (!ret)
		pr_info("vg_cqctx: %u rounds of every CQ kind passed\n", rounds);
	return ret;
}

static void __exit vg_cqctx_exit(void)
{
}

module_init(vg_cqctx_init);
module_exit(vg_cqctx_exit);

MODULE_DESCRIPTION("verbsgate test bed: the context of completion callbacks");
MODULE_LICENSE("GPL");
