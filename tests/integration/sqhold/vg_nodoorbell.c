// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_nodoorbell: a user QP that writes a WQE into its send queue without
 * ringing the doorbell, while an earlier WRITE keeps the requester busy.
 *
 * Two RC QPs on one rxe device, connected to each other. QP A posts a
 * BIG_LEN RDMA WRITE (doorbell rung as usual). With HOLD_FILE given,
 * "1" is written to it (vg_sqhold's hold parameter). Then A posts a
 * SMALL_LEN WRITE with the doorbell suppressed: librxe writes the WQE and
 * the producer index, and its doorbell write() to the uverbs file is
 * swallowed here. Stock rxe executes that WQE anyway, the next time the
 * requester runs for the big WRITE. After WAIT_MS, "0" is written to
 * HOLD_FILE (the policy releases). Prints, in ms since the small post:
 *
 *   big_ms=<n> small_ms=<n|-1> release_ms=<n|-1> posted_at_release=<n>
 *   suppressed=<doorbells swallowed> data=ok|bad
 *
 * posted_at_release is vg_sqhold's posted counter just before the
 * release (-1 without HOLD_FILE). Exits 0 when both WRITEs completed
 * successfully with intact data.
 *
 * With "flush" for WAIT_MS, HOLD_FILE is set to 1 first and both WRITEs
 * are posted with their doorbells; after 500 ms without a completion, QP
 * A is moved to the error state, and both WRITEs must complete, in order,
 * with IBV_WC_WR_FLUSH_ERR (prints "flushed=ok"; exits 0 then).
 *
 *   vg_nodoorbell DEV GID_INDEX WAIT_MS|flush [HOLD_FILE POSTED_FILE]
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BIG_LEN (16u << 20)
#define SMALL_LEN 4096u

static int suppress_fd = -1;
static int suppressed;

/* librxe rings the doorbell with write(2) on the uverbs file */
ssize_t write(int fd, const void *buf, size_t count)
{
	if (fd == suppress_fd) {
		suppressed++;
		return count;
	}
	return syscall(SYS_write, fd, buf, count);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void put_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

static int get_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f || fscanf(f, "%d", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

static void connect_qp(struct ibv_qp *qp, u_int32_t dest, union ibv_gid *gid,
		       int gid_index)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static void post_write(struct ibv_qp *qp, struct ibv_mr *mr, char *src,
		       char *dst, u_int32_t len, u_int64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
}

/* WRITEs held by the policy are flushed, in order, when the QP fails */
static int flush_held(struct ibv_qp *qa, struct ibv_cq *cq, struct ibv_mr *mr,
		      char *buf, const char *hold_file)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	unsigned long long next = 1;
	struct ibv_wc wc;
	long t0;
	int n;

	if (!hold_file)
		return 2;
	put_file(hold_file, "1");
	post_write(qa, mr, buf, buf + BIG_LEN + SMALL_LEN, BIG_LEN, 1);
	post_write(qa, mr, buf + BIG_LEN, buf + 2 * BIG_LEN + SMALL_LEN,
		   SMALL_LEN, 2);
	usleep(500000);
	n = ibv_poll_cq(cq, 1, &wc);
	if (n != 0) {
		printf("flushed=bad: a held WRITE completed (wr %llu)\n",
		       n > 0 ? (unsigned long long)wc.wr_id : 0ULL);
		put_file(hold_file, "0");
		return 1;
	}
	if (ibv_modify_qp(qa, &a, IBV_QP_STATE))
		die("ERR");
	for (t0 = now_ms(); next <= 2 && now_ms() - t0 < 10000;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0) {
			usleep(1000);
			continue;
		}
		if (wc.wr_id != next || wc.status != IBV_WC_WR_FLUSH_ERR) {
			printf("flushed=bad: wr %llu %s, expected wr %llu flushed\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status),
			       next);
			break;
		}
		next++;
	}
	put_file(hold_file, "0");
	if (next <= 2) {
		printf("flushed=bad: %llu of 2 completions\n",
		       next - 1);
		return 1;
	}
	printf("flushed=ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	long t0, big_ms = -1, small_ms = -1, release_ms = -1, wait_ms;
	const char *hold_file = NULL, *posted_file = NULL;
	int posted_at_release = -1, gid_index, n, bad = 0;
	size_t size = 2 * (BIG_LEN + SMALL_LEN);
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	union ibv_gid gid;
	char *buf;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: %s DEV GID_INDEX WAIT_MS [HOLD_FILE POSTED_FILE]\n",
			argv[0]);
		return 2;
	}
	gid_index = atoi(argv[2]);
	wait_ms = atol(argv[3]);
	if (argc == 6) {
		hold_file = argv[4];
		posted_file = argv[5];
	}

	devs = ibv_get_device_list(NULL);
	for (n = 0; devs && devs[n]; n++)
		if (!strcmp(ibv_get_device_name(devs[n]), argv[1]))
			break;
	if (!devs || !devs[n])
		die(argv[1]);
	ctx = ibv_open_device(devs[n]);
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, &gid))
		die("open");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = aligned_alloc(4096, size);
	if (!pd || !cq || !buf)
		die("alloc");
	for (n = 0; n < BIG_LEN + SMALL_LEN; n++)
		buf[n] = (char)(n * 7 + 3);
	memset(buf + BIG_LEN + SMALL_LEN, 0, BIG_LEN + SMALL_LEN);
	mr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	init.send_cq = cq;
	init.recv_cq = cq;
	qa = ibv_create_qp(pd, &init);
	qb = ibv_create_qp(pd, &init);
	if (!mr || !qa || !qb)
		die("mr/qp");
	connect_qp(qa, qb->qp_num, &gid, gid_index);
	connect_qp(qb, qa->qp_num, &gid, gid_index);

	if (!strcmp(argv[3], "flush"))
		return flush_held(qa, cq, mr, buf, hold_file);

	/* dst = buf + BIG_LEN + SMALL_LEN: big first, then small */
	post_write(qa, mr, buf, buf + BIG_LEN + SMALL_LEN, BIG_LEN, 1);
	if (hold_file)
		put_file(hold_file, "1");
	suppress_fd = ctx->cmd_fd;
	post_write(qa, mr, buf + BIG_LEN, buf + 2 * BIG_LEN + SMALL_LEN,
		   SMALL_LEN, 2);
	suppress_fd = -1;
	t0 = now_ms();

	while (big_ms < 0 || small_ms < 0) {
		long t = now_ms() - t0;

		if (hold_file && release_ms < 0 && t >= wait_ms) {
			posted_at_release = get_file(posted_file);
			put_file(hold_file, "0");
			release_ms = now_ms() - t0;
		}
		if (t > wait_ms + 10000)
			break;
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "wr %llu: %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			bad = 1;
			break;
		}
		if (wc.wr_id == 1)
			big_ms = t;
		else
			small_ms = t;
	}
	if (hold_file && release_ms < 0)
		put_file(hold_file, "0");
	if (memcmp(buf, buf + BIG_LEN + SMALL_LEN, BIG_LEN + SMALL_LEN))
		bad = 1;

	printf("big_ms=%ld small_ms=%ld release_ms=%ld ", big_ms, small_ms,
	       release_ms);
	printf("posted_at_release=%d suppressed=%d data=%s\n",
	       posted_at_release, suppressed,
	       bad || big_ms < 0 || small_ms < 0 ? "bad" : "ok");
	return bad || big_ms < 0 || small_ms < 0;
}
