// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_usqattack: an unprivileged process that tries to get work executed
 * past an rxe send queue policy by writing the send queue it shares with
 * the kernel directly, as any process may.
 *
 * Two RC QPs of one device, A and B, connected to each other. A's send
 * queue is found in the process's mappings of the uverbs device (the
 * ring librxe writes WQEs into; its layout is rxe's ABI, struct
 * rxe_queue_buf of <rdma/rdma_user_rxe.h> with struct rxe_send_wqe
 * slots). A doorbell is replayed from the last one librxe rang (librxe
 * rings it with write(2) on the uverbs file). Modes:
 *
 *  rewrite   A posts a 16 MB WRITE, then a 4 KB WRITE from S1 to D1 with
 *	      its doorbell, and at once rewrites that WQE in the ring to
 *	      copy 8 KB of S2 to D2 (remote address, SGE and length).
 *	      Prints "executed": "original" when D1 got S1, nothing more,
 *	      and D2 is untouched, "rewritten" when D2 got S2, else "none".
 *	      A requester that reads WQEs in place executes the rewrite,
 *	      as long as the 16 MB WRITE keeps it from reaching the WQE
 *	      before the rewrite.
 *  reop      Like rewrite, but what is rewritten after the doorbell is
 *	      the opcode: the 4 KB WRITE of S1 to D1 becomes an RDMA READ
 *	      of D1 into S1. Prints "executed": "original" when D1 got S1,
 *	      "rewritten" when S1 got D1's bytes instead, else "none".
 *  remerr    A posts a 1 MB WRITE into a remote region registered for
 *	      512 KB only, then a 4 KB WRITE. The responder refuses the
 *	      first (remote access error) and the QP fails, which flushes
 *	      the second. Prints the completions, the first error status,
 *	      and how many bytes of the 512 KB region "landed" (rxe checks
 *	      the whole length at the first packet: none). A policy that
 *	      releases the 1 MB WRITE in parts still holds most of them
 *	      when the error comes back.
 *  flood N S A posts one 1 MB WRITE, keeping its doorbell back, writes
 *	      N copies of its WQE (wr_ids 2..N+1) into the ring, advances
 *	      the producer index past them and rings the one doorbell.
 *	      Prints "completed": how many of the N + 1 WRITEs completed
 *	      within S seconds (the requester executes what the index says
 *	      unless a policy holds it).
 *  garbage   After a WRITE, A sets the producer index to 0xdeadbeef
 *	      and rings the doorbell. Prints what completed within 2 s and
 *	      the first error status: what executes of the stale slots is
 *	      up to the kernel, which must stay well.
 *  opcode OP A WRITE is written to the ring, its doorbell kept back;
 *	      its opcode is then set to OP and the first 8 bytes of its wr
 *	      union, where a kernel REG_MR WQE (opcode 0x20, which librxe
 *	      never writes) keeps a struct ib_mr pointer, to a
 *	      non-canonical address; then the doorbell. Prints what
 *	      completed within 2 s and the first error status: rxe must
 *	      complete it with an error and neither dereference the address
 *	      nor read outside its opcode table.
 *  fork N CG A forks; the child moves itself to cgroup directory CG and
 *	      posts N 1 MB WRITEs on A. Its WQEs land in the ring, but the
 *	      kernel refuses the doorbell of a process whose credentials are
 *	      not those that opened the uverbs file (a forked child's never
 *	      are): "child_doorbell" says so. Then the parent posts one more
 *	      WRITE, and prints how many of the N + 1 completed within 60 s
 *	      (the QP, and so what it executes, stays its creator's).
 *
 * Prints one JSON object; exits 0 unless a verb failed (2).
 *
 *   vg_usqattack DEV GID_INDEX rewrite | reop | remerr | flood N S |
 *		  garbage | opcode OP | fork N CG
 */
#define _GNU_SOURCE
#include <rdma/rdma_user_rxe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vg_rc.h"

#define MB		(1024u * 1024)
#define BIG_LEN		(16 * MB)
#define SMALL_LEN	4096u
#define MARKER		0x7e57ab1e00000000ull
#define SQ_DEPTH	256

/* The uverbs file, and the last doorbell librxe wrote to it. */
static int cmd_fd = -1;
static char doorbell[256];
static size_t doorbell_len;
static int swallow;

ssize_t write(int fd, const void *buf, size_t count)
{
	if (fd == cmd_fd && count <= sizeof(doorbell)) {
		memcpy(doorbell, buf, count);
		doorbell_len = count;
		if (swallow)
			return count;
	}
	return syscall(SYS_write, fd, buf, count);
}

static void ring_doorbell(void)
{
	if (!doorbell_len ||
	    syscall(SYS_write, cmd_fd, doorbell, doorbell_len) < 0)
		die("doorbell");
}

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	char *buf;
	size_t size;
};

static void setup(struct ctx *c, const char *dev, int gid_index, size_t size)
{
	union ibv_gid gid;

	c->ctx = open_dev(dev, gid_index, &gid);
	cmd_fd = c->ctx->cmd_fd;
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 2 * SQ_DEPTH, NULL, NULL, 0);
	c->size = size;
	c->buf = aligned_alloc(4096, size);
	if (!c->pd || !c->cq || !c->buf)
		die("alloc");
	memset(c->buf, 0, size);
	c->mr = ibv_reg_mr(c->pd, c->buf, size, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		die("ibv_reg_mr");
	c->qa = make_qp(c->pd, c->cq, c->cq, IBV_QPT_RC, SQ_DEPTH, 1, 1, 0);
	c->qb = make_qp(c->pd, c->cq, c->cq, IBV_QPT_RC, 1, 1, 1, 0);
	connect_qp(c->qa, c->qb->qp_num, &gid, gid_index, 18, 7);
	connect_qp(c->qb, c->qa->qp_num, &gid, gid_index, 18, 7);
}

/*
 * The send queue ring: the mapping of the uverbs file whose slot just
 * below the producer index holds the WQE with wr_id @id.
 */
static struct rxe_queue_buf *find_sq(unsigned long long id)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	struct rxe_queue_buf *q, *found = NULL;
	unsigned long lo, hi;
	char line[512];
	unsigned int idx;

	if (!maps)
		die("/proc/self/maps");
	while (!found && fgets(line, sizeof(line), maps)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
		    hi - lo < sizeof(*q))
			continue;
		q = (struct rxe_queue_buf *)lo;
		if (q->log2_elem_size < 6 || q->log2_elem_size > 16)
			continue;
		idx = (q->producer_index - 1) & q->index_mask;
		if (sizeof(*q) + (((size_t)idx + 1) << q->log2_elem_size) >
		    hi - lo)
			continue;
		if (((struct rxe_send_wqe *)(q->data +
			((size_t)idx << q->log2_elem_size)))->wr.wr_id == id)
			found = q;
	}
	fclose(maps);
	if (!found)
		die("send queue not found");
	return found;
}

static struct rxe_send_wqe *slot(struct rxe_queue_buf *q, unsigned int idx)
{
	return (struct rxe_send_wqe *)(q->data +
		((size_t)(idx & q->index_mask) << q->log2_elem_size));
}

/* Completions within @ms, by status; stops once @want have completed. */
static int collect(struct ctx *c, long ms, int want, int *errors,
		   char *statuses, size_t len)
{
	long t0 = now_ms();
	struct ibv_wc wc[16];
	int ok = 0, n, i;

	*errors = 0;
	statuses[0] = 0;
	while (now_ms() - t0 < ms && ok + *errors < want) {
		n = ibv_poll_cq(c->cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (!n) {
			usleep(500);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				ok++;
				continue;
			}
			if (!*errors)
				snprintf(statuses, len, "%s",
					 ibv_wc_status_str(wc[i].status));
			(*errors)++;
		}
	}
	return ok;
}

static int mode_rewrite(struct ctx *c)
{
	char *s1 = c->buf + BIG_LEN, *s2 = s1 + SMALL_LEN;
	char *d1 = s2 + 2 * SMALL_LEN, *d2 = d1 + 2 * SMALL_LEN;
	char *big_dst = d2 + 2 * SMALL_LEN, st[64];
	struct rxe_queue_buf *q;
	struct rxe_send_wqe *w;
	const char *what = "none";
	int errors, done;

	memset(s1, 0x11, SMALL_LEN);
	memset(s2, 0x22, 2 * SMALL_LEN);
	post_write(c->qa, c->mr, c->buf, big_dst, BIG_LEN, 1);
	post_write(c->qa, c->mr, s1, d1, SMALL_LEN, MARKER);
	q = find_sq(MARKER);
	w = slot(q, q->producer_index - 1);
	/* after the doorbell: another source, destination and length */
	w->wr.wr.rdma.remote_addr = (uintptr_t)d2;
	w->iova = (uintptr_t)d2;
	w->dma.sge[0].addr = (uintptr_t)s2;
	w->dma.sge[0].length = 2 * SMALL_LEN;
	w->dma.length = 2 * SMALL_LEN;
	w->dma.resid = 2 * SMALL_LEN;
	__sync_synchronize();
	done = collect(c, 120000, 2, &errors, st, sizeof(st));
	/* d1's second half and all of d2 start out zero */
	if (!memcmp(d1, s1, SMALL_LEN) && d1[SMALL_LEN] == 0 &&
	    !memcmp(d1 + SMALL_LEN, d1 + SMALL_LEN + 1, 3 * SMALL_LEN - 1))
		what = "original";
	else if (!memcmp(d2, s2, 2 * SMALL_LEN))
		what = "rewritten";
	printf("{\"mode\": \"rewrite\", \"completed\": %d, \"errors\": %d, \"executed\": \"%s\"}\n",
	       done, errors, what);
	return 0;
}

static int mode_reop(struct ctx *c)
{
	char *s1 = c->buf + BIG_LEN, *d1 = s1 + 2 * SMALL_LEN;
	char *big_dst = d1 + 2 * SMALL_LEN, st[64];
	const char *what = "none";
	struct rxe_queue_buf *q;
	int errors, done;

	memset(s1, 0x11, SMALL_LEN);
	memset(d1, 0x33, SMALL_LEN);
	post_write(c->qa, c->mr, c->buf, big_dst, BIG_LEN, 1);
	post_write(c->qa, c->mr, s1, d1, SMALL_LEN, MARKER);
	q = find_sq(MARKER);
	/* after the doorbell: the same buffers, the other direction */
	slot(q, q->producer_index - 1)->wr.opcode = IBV_WR_RDMA_READ;
	__sync_synchronize();
	done = collect(c, 120000, 2, &errors, st, sizeof(st));
	if (!memcmp(d1, s1, SMALL_LEN) && s1[0] == 0x11)
		what = "original";
	else if (!memcmp(s1, d1, SMALL_LEN) && s1[0] == 0x33)
		what = "rewritten";
	printf("{\"mode\": \"reop\", \"completed\": %d, \"errors\": %d, \"executed\": \"%s\"}\n",
	       done, errors, what);
	return 0;
}

static int mode_remerr(struct ctx *c)
{
	char *src = c->buf, *dst = c->buf + BIG_LEN, st[64];
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = MB, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_mr *half;
	size_t landed = 0;
	int errors, done;

	memset(src, 0x44, MB);
	half = ibv_reg_mr(c->pd, dst, MB / 2, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	if (!half)
		die("ibv_reg_mr");
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = half->rkey;
	if (ibv_post_send(c->qa, &wr, &bad))
		die("ibv_post_send");
	post_write(c->qa, c->mr, src, dst + MB, SMALL_LEN, 2);
	done = collect(c, 60000, 2, &errors, st, sizeof(st));
	while (landed < MB / 2 && dst[landed] == 0x44)
		landed++;
	printf("{\"mode\": \"remerr\", \"completed\": %d, \"errors\": %d, ",
	       done, errors);
	printf("\"status\": \"%s\", \"landed\": %zu}\n", st, landed);
	return 0;
}

static int mode_flood(struct ctx *c, int n, long seconds)
{
	struct rxe_queue_buf *q;
	struct rxe_send_wqe *w;
	unsigned int prod;
	int errors, done, i;
	char st[64];

	if (n < 1 || n > SQ_DEPTH - 2)
		die("flood count");
	/* the WQE as librxe wrote it, before the kernel saw it */
	swallow = 1;
	post_write(c->qa, c->mr, c->buf, c->buf + MB, MB, MARKER);
	swallow = 0;
	q = find_sq(MARKER);
	prod = q->producer_index;
	w = slot(q, prod - 1);
	for (i = 0; i < n; i++) {
		memcpy(slot(q, prod + i), w, 1u << q->log2_elem_size);
		slot(q, prod + i)->wr.wr_id = i + 2;
	}
	__sync_synchronize();
	q->producer_index = (prod + n) & q->index_mask;
	ring_doorbell();
	done = collect(c, seconds * 1000, n + 1, &errors, st, sizeof(st));
	printf("{\"mode\": \"flood\", \"written\": %d, ", n + 1);
	printf("\"completed\": %d, \"errors\": %d, \"status\": \"%s\"}\n",
	       done, errors, st);
	return 0;
}

static int mode_garbage(struct ctx *c)
{
	struct rxe_queue_buf *q;
	int errors, done;
	char st[64];

	post_write(c->qa, c->mr, c->buf, c->buf + MB, SMALL_LEN, MARKER);
	collect(c, 5000, 1, &errors, st, sizeof(st));
	q = find_sq(MARKER);
	/* librxe itself cannot post past this any more */
	q->producer_index = 0xdeadbeef;
	__sync_synchronize();
	ring_doorbell();
	done = collect(c, 2000, SQ_DEPTH, &errors, st, sizeof(st));
	printf("{\"mode\": \"garbage\", \"completed\": %d, \"errors\": %d, \"status\": \"%s\"}\n",
	       done, errors, st);
	return 0;
}

static int mode_opcode(struct ctx *c, unsigned int op)
{
	struct rxe_queue_buf *q;
	struct rxe_send_wqe *w;
	int errors, done;
	char st[64];

	swallow = 1;
	post_write(c->qa, c->mr, c->buf, c->buf + MB, SMALL_LEN, MARKER);
	swallow = 0;
	q = find_sq(MARKER);
	w = slot(q, q->producer_index - 1);
	w->wr.opcode = op;
	w->wr.wr.mw.addr = 0xdead000000000000ull;
	__sync_synchronize();
	ring_doorbell();
	done = collect(c, 2000, 1, &errors, st, sizeof(st));
	printf("{\"mode\": \"opcode\", \"opcode\": %u, ", op);
	printf("\"completed\": %d, \"errors\": %d, \"status\": \"%s\"}\n",
	       done, errors, st);
	return 0;
}

static int mode_fork(struct ctx *c, int n, const char *cgroup)
{
	int errors, done, status, i, err = 0;
	char path[512], pid[32], st[64];
	pid_t child;
	FILE *f;

	if (n < 1 || n > SQ_DEPTH - 2)
		die("fork count");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
		snprintf(pid, sizeof(pid), "%d", getpid());
		f = fopen(path, "w");
		if (!f || fputs(pid, f) < 0 || fclose(f))
			die(path);
		/* the WQEs land in the shared ring whatever the doorbell does */
		for (i = 0; i < n; i++)
			err = try_write(c->qa, c->mr, c->buf, c->buf + MB, MB, i + 1) ?: err;
		_exit(err == EACCES ? 0 : err ? 1 : 3);
	}
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	post_write(c->qa, c->mr, c->buf, c->buf + MB, MB, n + 1);
	done = collect(c, 60000, n + 1, &errors, st, sizeof(st));
	printf("{\"mode\": \"fork\", \"child_doorbell\": \"%s\", ",
	       !WIFEXITED(status) ? "crashed" :
	       WEXITSTATUS(status) == 0 ? "refused" :
	       WEXITSTATUS(status) == 3 ? "rang" : "failed");
	printf("\"written\": %d, \"completed\": %d, \"errors\": %d}\n",
	       n + 1, done, errors);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c;

	if (argc < 4)
		goto usage;
	setup(&c, argv[1], atoi(argv[2]), BIG_LEN + 8 * SMALL_LEN + BIG_LEN);
	if (!strcmp(argv[3], "rewrite") && argc == 4)
		return mode_rewrite(&c);
	if (!strcmp(argv[3], "reop") && argc == 4)
		return mode_reop(&c);
	if (!strcmp(argv[3], "remerr") && argc == 4)
		return mode_remerr(&c);
	if (!strcmp(argv[3], "flood") && argc == 6)
		return mode_flood(&c, atoi(argv[4]), atol(argv[5]));
	if (!strcmp(argv[3], "garbage") && argc == 4)
		return mode_garbage(&c);
	if (!strcmp(argv[3], "opcode") && argc == 5)
		return mode_opcode(&c, strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[3], "fork") && argc == 6)
		return mode_fork(&c, atoi(argv[4]), argv[5]);
usage:
	fprintf(stderr, "usage: %s DEV GID_INDEX rewrite | reop | remerr | %s\n",
		argv[0], "flood N S | garbage | opcode OP | fork N CG");
	return 2;
}
