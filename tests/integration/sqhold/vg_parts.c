// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_parts: large RDMA WRITEs and SENDs whose data and completions are
 * checked exactly, for a send queue policy that releases WQEs in parts.
 *
 * Two RC QPs on one rxe device, connected to each other, or with
 * --peer, QP B on device PEER_DEV (at GID PEER_GID_INDEX), so that the
 * traffic crosses the wire between them. QP A posts
 * COUNT rounds of: a signaled WRITE of SIZE bytes, an unsignaled WRITE
 * of SIZE bytes, a signaled SEND of SIZE bytes into a receive QP B
 * posted beforehand and a signaled READ of SIZE bytes, every one from
 * its own random source buffer to its own destination. Then it checks:
 *
 *  - A's CQ: exactly 3 * COUNT completions, in posting order, each with
 *    its wr_id, status success, opcode (RDMA_WRITE, SEND or RDMA_READ)
 *    and byte_len SIZE; none for the unsignaled WRITEs;
 *  - B's CQ: exactly COUNT receive completions, in order, byte_len SIZE;
 *  - no further completion on either CQ 200 ms after the last one;
 *  - every destination equals its source.
 *
 * TIMEOUT and RETRY_CNT are A's RC timeout (4.096 us * 2^TIMEOUT) and
 * transport retry count. Prints
 *
 *   wrs=<posted> cqes=<send CQEs> recvs=<recv CQEs> data=ok|bad
 *
 * and exits 0 when everything matched.
 *
 * With FLUSH_FILE, A moves its QP to the error state once that file
 * exists (while the policy holds part of a WR, say) and checks A's CQ
 * instead:
 * each WR completes exactly once, in order, the signaled ones that ran
 * before the flush successfully, every other one from the first flushed
 * on with IBV_WC_WR_FLUSH_ERR (unsignaled ones too). Prints
 * "flushed=<n>" and exits 0 when that held.
 *
 *   vg_parts [--peer PEER_DEV:PEER_GID_INDEX] DEV GID_INDEX SIZE COUNT
 *            TIMEOUT RETRY_CNT [FLUSH_FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vg_rc.h"

#define WAIT_MS 120000

/*
 * Polls @cq for the next completion, or for none (want_id 0, for
 * @wait_ms); checks it against what is expected next.
 */
static int expect(struct ibv_cq *cq, uint64_t want_id,
		  enum ibv_wc_opcode opcode, uint32_t len, long wait_ms)
{
	long t0 = now_ms();
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now_ms() - t0 < wait_ms)
		usleep(200);
	if (n < 0)
		die("ibv_poll_cq");
	if (!want_id) {
		if (n)
			printf("unexpected completion: wr %llu %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
		return n;
	}
	if (!n) {
		printf("no completion for wr %llu\n",
		       (unsigned long long)want_id);
		return 1;
	}
	if (wc.wr_id != want_id || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != opcode || wc.byte_len != len) {
		printf("wr %llu: %s opcode %d byte_len %u, ",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		printf("expected wr %llu success opcode %d byte_len %u\n",
		       (unsigned long long)want_id, opcode, len);
		return 1;
	}
	return 0;
}

/*
 * Flush mode: WR i (wr_id i + 1) is unsignaled when i % 4 == 1. Returns
 * the number of WRs flushed, or -1 when a completion was not the one due.
 */
static int check_flush(struct ibv_qp *qa, struct ibv_cq *scq, unsigned int nwr,
		       const enum ibv_wc_opcode *wc_opcodes, uint32_t len,
		       const char *flush_file)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int flushed = 0, in_error = 0, n;
	unsigned int next = 0;
	long t0 = now_ms();
	struct ibv_wc wc;

	while (next < nwr && now_ms() - t0 < WAIT_MS) {
		if (!in_error && !access(flush_file, F_OK)) {
			if (ibv_modify_qp(qa, &a, IBV_QP_STATE))
				die("ERR");
			in_error = 1;
		}
		n = ibv_poll_cq(scq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0) {
			usleep(1000);
			continue;
		}
		/* before the flush, only an unsignaled WR goes unreported */
		if (!flushed && wc.status == IBV_WC_SUCCESS &&
		    wc.wr_id == next + 2 && next % 4 == 1)
			next++;
		if (wc.wr_id != next + 1 ||
		    (wc.status == IBV_WC_SUCCESS &&
		     (flushed || wc.opcode != wc_opcodes[next % 4] ||
		      wc.byte_len != len)) ||
		    (wc.status != IBV_WC_SUCCESS &&
		     wc.status != IBV_WC_WR_FLUSH_ERR)) {
			printf("wr %llu: %s, expected wr %u\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), next + 1);
			return -1;
		}
		flushed += wc.status == IBV_WC_WR_FLUSH_ERR;
		next++;
	}
	if (next < nwr) {
		printf("no completion for wr %u\n", next + 1);
		return -1;
	}
	return expect(scq, 0, 0, 0, 200) ? -1 : flushed;
}

int main(int argc, char **argv)
{
	static const enum ibv_wr_opcode opcodes[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_SEND,
		IBV_WR_RDMA_READ,
	};
	static const enum ibv_wc_opcode wc_opcodes[] = {
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_SEND,
		IBV_WC_RDMA_READ,
	};
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_cq *scq, *acq, *rcq, *bcq;
	struct ibv_context *ctx, *bctx;
	int gid_index, bgid_index, count, i, bad = 0, cqes = 0, recvs = 0;
	const char *peer = NULL, *colon;
	char peer_dev[64];
	struct ibv_qp *qa, *qb;
	struct ibv_sge sge;
	union ibv_gid gid, bgid;
	struct ibv_mr *mr, *bmr;
	struct ibv_pd *pd, *bpd;
	size_t size, total, n;
	char *src, *dst;

	if (argc > 2 && !strcmp(argv[1], "--peer")) {
		peer = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: %s [--peer DEV:GID_INDEX] %s %s\n",
			argv[0], "DEV GID_INDEX SIZE COUNT",
			"TIMEOUT RETRY_CNT [FLUSH_FILE]");
		return 2;
	}
	gid_index = atoi(argv[2]);
	size = strtoul(argv[3], NULL, 0);
	count = atoi(argv[4]);
	if (!size || size > (1u << 30) || count < 1 || count > 64)
		return 2;

	ctx = open_dev(argv[1], gid_index, &gid);
	bctx = ctx;
	bgid = gid;
	bgid_index = gid_index;
	if (peer) {
		colon = strchr(peer, ':');
		if (!colon || colon == peer ||
		    colon - peer >= (long)sizeof(peer_dev))
			return 2;
		memcpy(peer_dev, peer, colon - peer);
		peer_dev[colon - peer] = 0;
		bgid_index = atoi(colon + 1);
		bctx = open_dev(peer_dev, bgid_index, &bgid);
	}
	pd = ibv_alloc_pd(ctx);
	bpd = bctx == ctx ? pd : ibv_alloc_pd(bctx);
	/* A's send and receive CQs on A's device, B's on B's */
	scq = ibv_create_cq(ctx, 4 * count, NULL, NULL, 0);
	acq = ibv_create_cq(ctx, 4 * count, NULL, NULL, 0);
	rcq = ibv_create_cq(bctx, 4 * count, NULL, NULL, 0);
	bcq = ibv_create_cq(bctx, 4 * count, NULL, NULL, 0);
	/* per round: four sources, then four destinations */
	total = 8 * size * count;
	src = aligned_alloc(4096, (total + 4095) & ~4095ul);
	if (!pd || !bpd || !scq || !acq || !rcq || !bcq || !src)
		die("alloc");
	dst = src + 4 * size * count;
	srand(getpid());
	for (n = 0; n < 4 * size * count; n++)
		src[n] = (char)rand();
	memset(dst, 0, 4 * size * count);
	mr = ibv_reg_mr(pd, src, total, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	bmr = bpd == pd ? mr :
	      ibv_reg_mr(bpd, src, total, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr || !bmr)
		die("ibv_reg_mr");
	qa = make_qp(pd, scq, acq, IBV_QPT_RC, 4 * count, 4 * count, 1, 0);
	qb = make_qp(bpd, bcq, rcq, IBV_QPT_RC, 4 * count, 4 * count, 1, 0);
	connect_qp(qa, qb->qp_num, &bgid, gid_index, atoi(argv[5]),
		   atoi(argv[6]));
	connect_qp(qb, qa->qp_num, &gid, bgid_index, 14, 7);

	for (i = 0; i < count; i++) {
		memset(&rwr, 0, sizeof(rwr));
		sge = (struct ibv_sge){ .addr = (uintptr_t)dst +
						(4 * i + 2) * size,
					.length = size, .lkey = bmr->lkey };
		rwr.wr_id = i + 1;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		if (ibv_post_recv(qb, &rwr, &bad_rwr))
			die("ibv_post_recv");
	}
	for (i = 0; i < 4 * count; i++) {
		memset(&wr, 0, sizeof(wr));
		sge = (struct ibv_sge){ .addr = (uintptr_t)src + i * size,
					.length = size, .lkey = mr->lkey };
		wr.wr_id = i + 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = opcodes[i % 4];
		wr.send_flags = i % 4 == 1 ? 0 : IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)dst + i * size;
		wr.wr.rdma.rkey = bmr->rkey;
		if (wr.opcode == IBV_WR_RDMA_READ) {
			/* the same copy, pulled by A instead of pushed */
			sge.addr = (uintptr_t)dst + i * size;
			wr.wr.rdma.remote_addr = (uintptr_t)src + i * size;
		}
		if (ibv_post_send(qa, &wr, &bad_wr))
			die("ibv_post_send");
	}

	if (argc == 8) {
		bad = check_flush(qa, scq, 4 * count, wc_opcodes, size,
				  argv[7]);
		printf("flushed=%d\n", bad);
		return bad <= 0;
	}

	for (i = 0; i < 4 * count && !bad; i++) {
		if (i % 4 == 1)
			continue;
		bad = expect(scq, i + 1, wc_opcodes[i % 4], size, WAIT_MS);
		cqes += !bad;
	}
	for (i = 0; i < count && !bad; i++) {
		bad = expect(rcq, i + 1, IBV_WC_RECV, size, WAIT_MS);
		recvs += !bad;
	}
	if (!bad)
		bad = expect(scq, 0, 0, 0, 200) || expect(rcq, 0, 0, 0, 0) ||
		      expect(acq, 0, 0, 0, 0) || expect(bcq, 0, 0, 0, 0);
	n = memcmp(src, dst, 4 * size * count) != 0;
	printf("wrs=%d cqes=%d recvs=%d data=%s\n", 4 * count, cqes, recvs,
	       n ? "bad" : "ok");
	return bad || n;
}
