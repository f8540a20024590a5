// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_sqhold: a test-only send queue policy for the patched rdma_rxe.
 *
 * Governs every user QP created while it is loaded. While the @hold
 * parameter is 0 it releases each WQE as it is posted; while it is 1 it
 * holds them, and a timer (every @period_ms) releases whatever is held
 * once @hold is 0 again.
 *
 * With @part_bytes set, a WQE rxe can send in parts and longer than that
 * (an RDMA WRITE or SEND on an RC or UC QP, an RDMA READ on an RC QP),
 * and any WQE posted while others are held, is held, and each tick of
 * the timer releases @part_bytes more of the oldest held WQE of each QP
 * (rxe_sq_release_bytes()): a large WRITE, SEND or READ goes out in
 * parts with a pause of a tick between them, any other WQE whole.
 *
 * With @wait_sent set too, it asks rxe after each partial release
 * whether the requester is behind what was released (rxe_sq_unsent()),
 * and if so releases nothing more of that QP until rxe says it caught
 * up (->sq_caught_up), as verbsgate does: @behind counts the first,
 * @caught_up the second.
 *
 * With @decline set, it leaves every QP rxe offers it alone.
 *
 * Read-only counters: @qps governed so far, @posted WQEs offered,
 * @timer_released WQEs the timer released wholly, @parts partial
 * releases (some of the WQE still held after them), @part_left bytes
 * still held of the WQE the last partial release was for, @flushes of
 * held WQEs by rxe. Never load it outside the test bed.
 *
 *   insmod vg_sqhold.ko; echo 1 >/sys/module/vg_sqhold/parameters/hold
 *   insmod vg_sqhold.ko part_bytes=4096 period_ms=1
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <rdma/rxe_sq_policy.h>

static bool hold;
module_param(hold, bool, 0644);
MODULE_PARM_DESC(hold, "hold posted WQEs until this is 0 again");

static unsigned int period_ms = 50;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "period of the releasing timer");

static unsigned int part_bytes;
module_param(part_bytes, uint, 0444);
MODULE_PARM_DESC(part_bytes, "release held WQEs this many bytes per tick");

static bool wait_sent;
module_param(wait_sent, bool, 0444);
MODULE_PARM_DESC(wait_sent, "release no part while rxe is behind the last");

static bool decline;
module_param(decline, bool, 0644);
MODULE_PARM_DESC(decline, "leave every QP to rxe");

static atomic_t qps, posted, timer_released, parts, part_left, flushes;
static atomic_t behind, caught_up;

static int counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = { .get = counter_get };
module_param_cb(qps, &counter_ops, &qps, 0444);
module_param_cb(posted, &counter_ops, &posted, 0444);
module_param_cb(timer_released, &counter_ops, &timer_released, 0444);
module_param_cb(parts, &counter_ops, &parts, 0444);
module_param_cb(part_left, &counter_ops, &part_left, 0444);
module_param_cb(flushes, &counter_ops, &flushes, 0444);
module_param_cb(behind, &counter_ops, &behind, 0444);
module_param_cb(caught_up, &counter_ops, &caught_up, 0444);

/*
 * @answers counts rxe's callbacks that end a wait (->sq_caught_up, or a
 * flush); the timer waits while @waiting and none came since @asked.
 */
struct sqhold_qp {
	struct list_head node;
	struct ib_qp *qp;
	atomic_t answers;
	int asked;
	bool waiting;
};

/*
 * sqhold_lock guards sqhold_qps: taken by the timer (softirq) and by
 * attach/detach (process context, with _bh). Taken before rxe's gate lock
 * (the timer calls rxe_sq_release*() under it); never taken under it.
 */
static DEFINE_SPINLOCK(sqhold_lock);
static LIST_HEAD(sqhold_qps);
static struct timer_list sqhold_timer;

static int sqhold_attach(struct ib_qp *qp, u32 depth, void **priv)
{
	struct sqhold_qp *q;

	if (READ_ONCE(decline))
		return 1;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->qp = qp;
	spin_lock_bh(&sqhold_lock);
	list_add_tail(&q->node, &sqhold_qps);
	spin_unlock_bh(&sqhold_lock);
	atomic_inc(&qps);
	*priv = q;
	return 0;
}

static void sqhold_detach(struct ib_qp *qp, void *priv)
{
	struct sqhold_qp *q = priv;

	spin_lock_bh(&sqhold_lock);
	list_del(&q->node);
	spin_unlock_bh(&sqhold_lock);
	kfree(q);
}

/* rxe's gate lock held, interrupts off */
static u32 sqhold_post(struct ib_qp *qp, void *priv,
		       const struct rxe_send_wqe *wqe, u32 held)
{
	atomic_inc(&posted);
	if (READ_ONCE(hold))
		return 0;
	if (!part_bytes)
		return held;
	/* what the timer would release whole in one tick goes now */
	return held == 1 && (wqe->dma.length <= part_bytes ||
			     !rxe_sq_wqe_in_parts(qp, wqe));
}

/* rxe's gate lock held, interrupts off */
static void sqhold_flush(struct ib_qp *qp, void *priv)
{
	struct sqhold_qp *q = priv;

	atomic_inc(&flushes);
	atomic_inc(&q->answers);
}

/* rxe's gate lock held, interrupts off: the requester caught up */
static void sqhold_caught_up(struct ib_qp *qp, void *priv)
{
	struct sqhold_qp *q = priv;

	atomic_inc(&caught_up);
	atomic_inc(&q->answers);
}

/* timer (softirq), sqhold_lock held: @part_bytes more of @q's oldest WQE */
static void sqhold_release_part(struct sqhold_qp *q)
{
	int answers = atomic_read(&q->answers);
	u32 left;

	if (q->waiting && answers == q->asked)
		return;		/* rxe is behind the last part */
	q->waiting = false;
	if (rxe_sq_release_bytes(q->qp, part_bytes, &left))
		return;		/* nothing held */
	if (wait_sent && rxe_sq_unsent(q->qp)) {
		atomic_inc(&behind);
		q->asked = answers;
		q->waiting = true;
	}
	if (left) {
		atomic_inc(&parts);
		atomic_set(&part_left, left);
	} else {
		atomic_inc(&timer_released);
	}
}

/* timer (softirq) */
static void sqhold_tick(struct timer_list *t)
{
	struct sqhold_qp *q;

	if (!READ_ONCE(hold)) {
		spin_lock(&sqhold_lock);
		list_for_each_entry(q, &sqhold_qps, node) {
			if (part_bytes)
				sqhold_release_part(q);
			else
				atomic_add(rxe_sq_release(q->qp, U32_MAX),
					   &timer_released);
		}
		spin_unlock(&sqhold_lock);
	}
	mod_timer(&sqhold_timer, jiffies + msecs_to_jiffies(period_ms));
}

static const struct rxe_sq_policy_ops sqhold_ops = {
	.owner = THIS_MODULE,
	.name = "vg_sqhold",
	.qp_attach = sqhold_attach,
	.qp_detach = sqhold_detach,
	.sq_post = sqhold_post,
	.sq_flush = sqhold_flush,
	.sq_caught_up = sqhold_caught_up,
};

static int __init sqhold_init(void)
{
	int err;

	timer_setup(&sqhold_timer, sqhold_tick, 0);
	err = rxe_sq_policy_register(&sqhold_ops);
	if (err)
		return err;
	mod_timer(&sqhold_timer, jiffies + msecs_to_jiffies(period_ms));
	return 0;
}

static void __exit sqhold_exit(void)
{
	/* detaches every QP: the timer finds none afterwards */
	rxe_sq_policy_unregister(&sqhold_ops);
	del_timer_sync(&sqhold_timer);
}

module_init(sqhold_init);
module_exit(sqhold_exit);
MODULE_DESCRIPTION("verbsgate test: a send queue policy that holds WQEs");
MODULE_LICENSE("GPL");
