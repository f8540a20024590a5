// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_kpost: a test-only kernel ULP that measures whether two CPUs posting
 * on two QPs of one device post in parallel. It runs when it is loaded:
 *
 *   insmod vg_kpost.ko dev=rxe0 size=262144 depth=8 duration_ms=1000 rounds=3
 *
 * Two posters, each a kthread bound to its CPU (poster 0 to CPU 0,
 * poster 1 to CPU 1), each with its own PD, CQ, loopback pair of RC QPs
 * (send queues of @sq WRs) and buffers. A poster keeps @depth signaled
 * RDMA WRITEs of @size bytes outstanding on its sending QP for
 * @duration_ms, reposting a WR's slot as soon as its completion is
 * polled. Phase 1 runs one poster alone, poster 0 in even rounds and
 * poster 1 in odd ones, phase 2 both at once, over the same length of
 * time; each counts the WRs (and bytes) that completed within it.
 * @rounds times, alternating, so that a change in how fast the CPUs run
 * (an emulator's host may be shared) hits both kinds, and so that one
 * CPU running slower than the other (in an emulator, one may for seconds
 * at a time) weighs on phase 1 as it does on phase 2. The
 * ratio of phase 2 to phase 1 tells whether a second CPU posting on a
 * second QP adds throughput or only shares what one CPU moved: rxe, for
 * one, runs a kernel QP's requester (and, on the loopback, the responder
 * and completer behind it) in a tasklet on the CPU that posted to the
 * driver.
 *
 * Completions: each poster polls its own CQ (ib_create_cq(), armed with
 * ib_req_notify_cq()); the CQ's event handler only wakes the poster,
 * which polls and reposts on its own CPU. So everything the ULP and the
 * layers between it and the driver do for a QP (post, poll, their
 * bookkeeping) starts on that QP's CPU, and the measurement is about
 * where a post reaches the driver. A CQ polled in softirq would run its
 * poll, and whatever a layer does there, on the CPU the driver completed
 * on, whichever that was.
 *
 * Data is checked, so that a fast result cannot be a broken one: every
 * WR's source slot carries a stamp in its first and last 8 bytes, which
 * its completion must find in the destination slot; each phase fills the
 * sources with a pattern of its own and zeroes the destinations first,
 * and at its end compares every slot whole. Every completion must be
 * successful and name a WR outstanding.
 *
 * Results, summed over the rounds, in /sys/module/vg_kpost/parameters/
 * and one console line:
 *   phase1_bytes, phase1_wrs    completed within phase 1 (one poster)
 *   phase2_bytes, phase2_wrs    completed within phase 2 (two posters)
 *   phase1_wrs_each,            phase 1's, phase 2's WRs of poster 0,
 *   phase2_wrs_each             poster 1
 *   phase1_softirq_ms,          CPU 0's and CPU 1's time in softirq
 *   phase2_softirq_ms           during the phases: where rxe worked
 * insmod fails if a check fails (the console says which) or CPUs 0 and
 * 1 are not both online. Unload it with rmmod. Never load it outside
 * the test bed.
 *
 * Context: process context (insmod, the posters); the CQ event handler
 * runs in the driver's completion context. No locks of its own: a
 * poster's state is its thread's, the handler touches only its flag and
 * wait queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");
static uint size = 256 * 1024;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per RDMA WRITE (a multiple of 8, 64 to 4 MiB)");
static uint depth = 8;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "WRITEs each poster keeps outstanding (1 to 64)");
static uint duration_ms = 2000;
module_param(duration_ms, uint, 0444);
MODULE_PARM_DESC(duration_ms, "length of each phase (10 ms to 60 s)");
static uint rounds = 1;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "times phase 1 and phase 2 run, alternating (1 to 20; even: as often on each CPU)");
static uint sq = 128;
module_param(sq, uint, 0444);
MODULE_PARM_DESC(sq, "send queue each QP asks for (depth to 1024)");

static ulong phase1_bytes, phase1_wrs, phase2_bytes, phase2_wrs;
module_param(phase1_bytes, ulong, 0444);
MODULE_PARM_DESC(phase1_bytes, "result: bytes written in phase 1 (one poster)");
module_param(phase1_wrs, ulong, 0444);
MODULE_PARM_DESC(phase1_wrs, "result: WRs completed in phase 1");
module_param(phase2_bytes, ulong, 0444);
MODULE_PARM_DESC(phase2_bytes, "result: bytes written in phase 2 (two posters)");
module_param(phase2_wrs, ulong, 0444);
MODULE_PARM_DESC(phase2_wrs, "result: WRs completed in phase 2");
static ulong phase1_wrs_each[2], phase2_wrs_each[2];
module_param_array(phase1_wrs_each, ulong, NULL, 0444);
MODULE_PARM_DESC(phase1_wrs_each, "result: phase 1's WRs of poster 0, 1");
module_param_array(phase2_wrs_each, ulong, NULL, 0444);
MODULE_PARM_DESC(phase2_wrs_each, "result: phase 2's WRs of poster 0, 1");
static ulong phase1_softirq_ms[2], phase2_softirq_ms[2];
module_param_array(phase1_softirq_ms, ulong, NULL, 0444);
MODULE_PARM_DESC(phase1_softirq_ms, "result: CPU 0's, 1's softirq time in phase 1");
module_param_array(phase2_softirq_ms, ulong, NULL, 0444);
MODULE_PARM_DESC(phase2_softirq_ms, "result: CPU 0's, 1's softirq time in phase 2");

#define VG_KPOST_POSTERS	2
#define VG_KPOST_MAX_DEPTH	64
#define VG_KPOST_MAX_SIZE	SZ_4M
/* The largest @sq; a CQ has room for 4 times as many completions. */
#define VG_KPOST_MAX_SQ		1024
#define VG_KPOST_CQE		(4 * VG_KPOST_MAX_SQ)
/* Completions polled at once. */
#define VG_KPOST_POLL		16
/* A phase starts this long after its posters are created. */
#define VG_KPOST_LEAD_NS	(20 * NSEC_PER_MSEC)
/* After a phase, its outstanding WRs must complete within this. */
#define VG_KPOST_DRAIN_NS	(30ULL * NSEC_PER_SEC)

/**
 * struct vg_kpost_poster - one poster and what it posts on
 * @id: 0 or 1, also the CPU it runs on
 * @loop: its PD, its CQ (ib_create_cq()'s, polled by the poster only),
 *	the sending QP and the one it writes into, and source and
 *	destination buffers of @depth slots of @size bytes each
 * @stamp: the stamp of the WR outstanding on each slot, 0 if none
 * @next_stamp: the next WR's stamp (the phase in the top byte)
 * @outstanding: WRs posted and not completed
 * @event: the CQ event handler ran since the poster armed the CQ
 * @wq: the poster sleeps here until @event
 * @task: the poster's thread during a phase
 * @done: completed when the thread has finished its phase
 * @start_ns: when the phase starts (CLOCK_MONOTONIC)
 * @deadline_ns: when it ends: no WR is posted after, none counted
 * @bytes: bytes of the WRs that completed in the phase
 * @wrs: those WRs
 * @err: the first error, 0 if none
 */
struct vg_kpost_poster {
	int id;
	struct vg_kconn_loop loop;
	u64 stamp[VG_KPOST_MAX_DEPTH];
	u64 next_stamp;
	u32 outstanding;
	atomic_t event;
	wait_queue_head_t wq;
	struct task_struct *task;
	struct completion done;
	u64 start_ns;
	u64 deadline_ns;
	u64 bytes;
	u64 wrs;
	int err;
};

/* The CQ's event handler: the driver's completion context (any). */
static void vg_kpost_event(struct ib_cq *cq, void *context)
{
	struct vg_kpost_poster *p = context;

	atomic_set(&p->event, 1);
	wake_up(&p->wq);
}

static void *vg_kpost_slot(struct vg_kpost_poster *p, int which, u32 slot)
{
	return p->loop.buf[which] + (size_t)slot * size;
}

/* The stamp's two copies in a slot: its first and its last 8 bytes. */
static u64 *vg_kpost_head(void *slot)
{
	return slot;
}

static u64 *vg_kpost_tail(void *slot)
{
	return slot + size - sizeof(u64);
}

/* Process context (the poster): post slot @slot's WRITE, stamped anew. */
static int vg_kpost_post(struct vg_kpost_poster *p, u32 slot)
{
	void *src = vg_kpost_slot(p, 0, slot);
	struct ib_sge sge = {
		.addr = p->loop.dma[0] + (u64)slot * size,
		.length = size,
		.lkey = p->loop.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = slot,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = p->loop.dma[1] + (u64)slot * size,
		.rkey = p->loop.pd->unsafe_global_rkey,
	};
	u64 stamp = p->next_stamp++;
	int ret;

	*vg_kpost_head(src) = stamp;
	*vg_kpost_tail(src) = stamp;
	ret = ib_post_send(p->loop.qp[0], &wr.wr, NULL);
	if (ret) {
		pr_err("poster %d: post failed: %d\n", p->id, ret);
		return ret;
	}
	p->stamp[slot] = stamp;
	p->outstanding++;
	return 0;
}

/*
 * Process context (the poster): one completion, polled at @now. Counts
 * it if the phase had not ended. Return: 0, or -EIO if it fails a check.
 */
static int vg_kpost_complete(struct vg_kpost_poster *p,
			     const struct ib_wc *wc, u64 now)
{
	u64 slot = wc->wr_id;
	void *dst;

	if (wc->status != IB_WC_SUCCESS || wc->opcode != IB_WC_RDMA_WRITE) {
		pr_err("poster %d: WR %llu completed with status %s, opcode %d\n",
		       p->id, slot, ib_wc_status_msg(wc->status), wc->opcode);
		return -EIO;
	}
	if (slot >= depth || !p->stamp[slot]) {
		pr_err("poster %d: a completion of no WR outstanding (wr_id %llu)\n",
		       p->id, slot);
		return -EIO;
	}
	dst = vg_kpost_slot(p, 1, slot);
	if (*vg_kpost_head(dst) != p->stamp[slot] ||
	    *vg_kpost_tail(dst) != p->stamp[slot]) {
		pr_err("poster %d: WR %llx completed, its data is not there (%llx, %llx)\n",
		       p->id, p->stamp[slot], *vg_kpost_head(dst),
		       *vg_kpost_tail(dst));
		return -EIO;
	}
	p->stamp[slot] = 0;
	p->outstanding--;
	if (now <= p->deadline_ns) {
		p->bytes += size;
		p->wrs++;
	}
	return 0;
}

/*
 * Process context (the poster): poll what the CQ holds and repost the
 * slots freed while the phase lasts. Return: completions polled, or a
 * negative error.
 */
static int vg_kpost_poll(struct vg_kpost_poster *p)
{
	struct ib_wc wc[VG_KPOST_POLL];
	u64 now;
	int i, n, ret;

	n = ib_poll_cq(p->loop.cq, ARRAY_SIZE(wc), wc);
	if (n <= 0)
		return n;
	now = ktime_get_ns();
	for (i = 0; i < n; i++) {
		ret = vg_kpost_complete(p, &wc[i], now);
		if (ret)
			return ret;
	}
	for (i = 0; i < n && now < p->deadline_ns; i++) {
		ret = vg_kpost_post(p, wc[i].wr_id);
		if (ret)
			return ret;
	}
	return n;
}

/*
 * Process context (the poster): until the deadline, keep @depth WRs
 * outstanding; then wait until they have completed.
 */
static int vg_kpost_run(struct vg_kpost_poster *p)
{
	u64 start = p->start_ns;
	ktime_t until = ns_to_ktime(start);
	u32 slot;
	int ret;

	/* Both posters of phase 2 start together. */
	set_current_state(TASK_UNINTERRUPTIBLE);
	while (ktime_get_ns() < start) {
		schedule_hrtimeout(&until, HRTIMER_MODE_ABS);
		set_current_state(TASK_UNINTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	for (slot = 0; slot < depth; slot++) {
		ret = vg_kpost_post(p, slot);
		if (ret)
			return ret;
	}
	while (p->outstanding) {
		ret = vg_kpost_poll(p);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			cond_resched();
			continue;
		}
		/* Empty: arm, poll what came meanwhile, else sleep. */
		atomic_set(&p->event, 0);
		ret = ib_req_notify_cq(p->loop.cq, IB_CQ_NEXT_COMP |
				       IB_CQ_REPORT_MISSED_EVENTS);
		if (ret < 0)
			return ret;
		if (ret > 0)
			continue;
		if (ktime_get_ns() > p->deadline_ns + VG_KPOST_DRAIN_NS) {
			pr_err("poster %d: %u WRs never completed\n", p->id,
			       p->outstanding);
			return -ETIMEDOUT;
		}
		wait_event_timeout(p->wq, atomic_read(&p->event), HZ);
	}
	return 0;
}

/* The poster's thread: process context, bound to CPU @p->id. */
static int vg_kpost_thread(void *arg)
{
	struct vg_kpost_poster *p = arg;

	p->err = vg_kpost_run(p);
	complete(&p->done);
	/* Stay until vg_kpost_phase() stops the thread. */
	set_current_state(TASK_UNINTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_UNINTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Process context: source slots hold @phase's pattern, destinations 0. */
static void vg_kpost_fill(struct vg_kpost_poster *p, u32 phase)
{
	u32 *src = p->loop.buf[0];
	size_t i, words = (size_t)depth * size / sizeof(u32);

	for (i = 0; i < words; i++)
		src[i] = (u32)i * 2654435761U ^ (phase << 24 | p->id << 16);
	memset(p->loop.buf[1], 0, (size_t)depth * size);
	memset(p->stamp, 0, sizeof(p->stamp));
	/* Never 0: a slot's stamp 0 means no WR outstanding. */
	p->next_stamp = (u64)phase << 56 | (u64)p->id << 48 | 1;
}

/*
 * Process context: after a phase, with nothing outstanding, every slot
 * of the destination must hold its source.
 */
static int vg_kpost_verify(struct vg_kpost_poster *p, u32 phase)
{
	u32 slot;

	for (slot = 0; slot < depth; slot++) {
		if (memcmp(vg_kpost_slot(p, 0, slot), vg_kpost_slot(p, 1, slot),
			   size)) {
			pr_err("phase %u, poster %d: slot %u does not hold what was written\n",
			       phase, p->id, slot);
			return -EIO;
		}
	}
	return 0;
}

/*
 * Process context: time CPU @cpu has spent in softirq, where rxe moves
 * the data of kernel QPs (tick-sampled, unless irq time is accounted).
 */
static u64 vg_kpost_softirq_ns(int cpu)
{
	struct kernel_cpustat st;

	kcpustat_cpu_fetch(&st, cpu);
	return st.cpustat[CPUTIME_SOFTIRQ];
}

/*
 * Process context: phase @phase, with posters 0 to @n - 1 at once.
 * Return: 0 or the first error; the posters' counts in @ps, each CPU's
 * softirq time in the phase added to @softirq_ms.
 */
static int vg_kpost_phase(struct vg_kpost_poster *ps, u32 phase, int n,
			  ulong *softirq_ms)
{
	u64 start, softirq[VG_KPOST_POSTERS];
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		vg_kpost_fill(&ps[i], phase);
		ps[i].bytes = 0;
		ps[i].wrs = 0;
		ps[i].err = 0;
		init_completion(&ps[i].done);
		ps[i].task = kthread_create(vg_kpost_thread, &ps[i],
					    "vg_kpost/%d", i);
		if (IS_ERR(ps[i].task)) {
			ret = PTR_ERR(ps[i].task);
			ps[i].task = NULL;
			break;
		}
		kthread_bind(ps[i].task, ps[i].id);
	}
	if (ret) {
		/* Never woken, they never ran. */
		while (i--)
			kthread_stop(ps[i].task);
		return ret;
	}
	for (i = 0; i < VG_KPOST_POSTERS; i++)
		softirq[i] = vg_kpost_softirq_ns(i);
	start = ktime_get_ns() + VG_KPOST_LEAD_NS;
	for (i = 0; i < n; i++) {
		ps[i].start_ns = start;
		ps[i].deadline_ns = start + (u64)duration_ms * NSEC_PER_MSEC;
		wake_up_process(ps[i].task);
	}
	for (i = 0; i < n; i++) {
		wait_for_completion(&ps[i].done);
		kthread_stop(ps[i].task);
		ps[i].task = NULL;
		ret = ret ?: ps[i].err;
	}
	for (i = 0; i < VG_KPOST_POSTERS; i++)
		softirq_ms[i] += div_u64(vg_kpost_softirq_ns(i) - softirq[i],
					 NSEC_PER_MSEC);
	for (i = 0; i < n && !ret; i++)
		ret = vg_kpost_verify(&ps[i], phase);
	return ret;
}

/* Process context: poster @id's PD, buffers, armed CQ and QP pair. */
static int vg_kpost_setup(struct vg_kpost_poster *p, int id,
			  struct ib_device *ibdev)
{
	struct ib_cq_init_attr cqa = { .cqe = VG_KPOST_CQE };
	struct ib_cq *cq;
	int ret;

	p->id = id;
	init_waitqueue_head(&p->wq);
	ret = vg_kconn_loop_open(&p->loop, ibdev, (size_t)depth * size);
	if (ret)
		return ret;
	cq = ib_create_cq(ibdev, vg_kpost_event, NULL, p, &cqa);
	return vg_kconn_loop_connect(&p->loop, cq, true, sq);
}

static int __init vg_kpost_init(void)
{
	struct vg_kpost_poster *ps;
	struct ib_device *ibdev;
	int i, ret = 0;
	u32 r;

	if (!depth || depth > VG_KPOST_MAX_DEPTH || size < 64 ||
	    size > VG_KPOST_MAX_SIZE || size % sizeof(u64) ||
	    duration_ms < 10 || duration_ms > 60000 || !rounds || rounds > 20 ||
	    sq < depth || sq > VG_KPOST_MAX_SQ)
		return -EINVAL;
	for (i = 0; i < VG_KPOST_POSTERS; i++) {
		if (!cpu_online(i)) {
			pr_err("CPU %d is not online: two posters need CPUs 0 and 1\n",
			       i);
			return -ENODEV;
		}
	}
	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return -ENODEV;
	ps = kcalloc(VG_KPOST_POSTERS, sizeof(*ps), GFP_KERNEL);
	if (!ps) {
		ret = -ENOMEM;
		goto out_put;
	}
	for (i = 0; i < VG_KPOST_POSTERS && !ret; i++)
		ret = vg_kpost_setup(&ps[i], i, ibdev);
	if (ret) {
		pr_err("setup failed: %d\n", ret);
		goto out;
	}

	/* Alternating, so that a change in the CPUs' speed hits both. */
	for (r = 0; r < rounds; r++) {
		struct vg_kpost_poster *alone = &ps[r % VG_KPOST_POSTERS];

		ret = vg_kpost_phase(alone, 2 * r + 1, 1, phase1_softirq_ms);
		if (ret)
			break;
		phase1_bytes += alone->bytes;
		phase1_wrs += alone->wrs;
		phase1_wrs_each[alone->id] += alone->wrs;
		ret = vg_kpost_phase(ps, 2 * r + 2, 2, phase2_softirq_ms);
		if (ret)
			break;
		phase2_bytes += ps[0].bytes + ps[1].bytes;
		phase2_wrs += ps[0].wrs + ps[1].wrs;
		phase2_wrs_each[0] += ps[0].wrs;
		phase2_wrs_each[1] += ps[1].wrs;
	}
	if (!ret)
		pr_info("%u-byte WRITEs, %u outstanding, %u x %u ms: 1 poster %lu WRs (%lu + %lu), 2 posters %lu WRs (%lu + %lu)\n",
			size, depth, rounds, duration_ms, phase1_wrs,
			phase1_wrs_each[0], phase1_wrs_each[1], phase2_wrs,
			phase2_wrs_each[0], phase2_wrs_each[1]);
out:
	for (i = 0; i < VG_KPOST_POSTERS; i++)
		vg_kconn_loop_close(&ps[i].loop);
	kfree(ps);
out_put:
	ib_device_put(ibdev);
	return ret;
}

static void __exit vg_kpost_exit(void)
{
}

module_init(vg_kpost_init);
module_exit(vg_kpost_exit);

MODULE_DESCRIPTION("verbsgate test bed: do two CPUs post in parallel?");
MODULE_LICENSE("GPL");
