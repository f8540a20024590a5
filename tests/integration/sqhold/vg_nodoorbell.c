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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vg_rc.h"

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
	long t0, big_ms = -1, small_ms = -1, release_ms = -1, wait_ms;
	const char *hold_file = NULL, *posted_file = NULL;
	int posted_at_release = -1, gid_index, n, bad = 0;
	size_t size = 2 * (BIG_LEN + SMALL_LEN);
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

	ctx = open_dev(argv[1], gid_index, &gid);
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
	if (!mr)
		die("ibv_reg_mr");
	qa = make_qp(pd, cq, cq, IBV_QPT_RC, 16, 1, 1, 0);
	qb = make_qp(pd, cq, cq, IBV_QPT_RC, 16, 1, 1, 0);
	connect_qp(qa, qb->qp_num, &gid, gid_index, 14, 7);
	connect_qp(qb, qa->qp_num, &gid, gid_index, 14, 7);

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
