// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_usqcheck: RDMA operations of random sizes whose every byte and every
 * completion is checked, for user send queues that a send queue policy
 * holds, releases in parts or paces.
 *
 * Two QPs of one device, A and B, connected to each other (RC, or UC
 * with --qp-type uc). A posts batches of operations, each of a random
 * kind and of a random size from 1 byte to --max-size (log-uniform), its
 * local buffer split over up to --sge SGEs: RDMA WRITE, WRITE with
 * immediate, SEND, SEND with immediate and (RC) RDMA READ. With --mix,
 * also 8-byte atomics (RC: compare-and-swap, fetch-and-add), inline
 * WRITEs and SENDs where they fit, unsignaled WRs (never the last of a
 * batch) and, unless --no-fence, fenced WRs. Some batches are posted as
 * one chain, others WR by WR. The random choices come from --seed.
 *
 * For every batch it checks:
 *  - A's send CQ: one completion per signaled WR, in posting order, each
 *    with its wr_id, status success, opcode and byte count; nothing for
 *    the unsignaled ones, nothing more;
 *  - B's receive CQ: one completion per SEND and WRITE with immediate,
 *    in order, with its wr_id, opcode, byte count and immediate data;
 *  - every destination equals its source (a READ's destination is A's,
 *    its source B's), and the guard bytes around each destination are
 *    intact; an atomic returned the old value and left the new one.
 *
 * With --reset N, both QPs are reset and connected again after every N
 * batches, so that the next batch runs on reused queues. --sq-size
 * sizes A's send queue (max_send_wr) apart from --depth, the most WRs a
 * batch has outstanding. --timeout sets the RC transport timer (4.096 us
 * * 2^N, default 14): a short one makes the requester retry while
 * responses are on their way.
 *
 * --trace writes each WR as it is posted and each send completion as it
 * is polled to stderr, to tell where a run that hung stopped.
 *
 * It runs --ops operations, or batches until --duration seconds have
 * passed, and prints one JSON object:
 *
 *   {"ok": true, "ops": N, "wrs_signaled": N, "recvs": N, "bytes": N,
 *    "batches": N, "mismatches": 0, "first_error": ""}
 *
 * exiting 0 when everything matched, 1 at the first mismatch (after
 * printing it), 2 when a verb failed.
 *
 *   vg_usqcheck DEV GID_INDEX [--seed N] [--ops N | --duration SEC]
 *	[--max-size BYTES] [--sge N] [--depth N] [--qp-type rc|uc] [--mix]
 *	[--no-fence] [--reset N] [--sq-size N] [--timeout N] [--trace]
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vg_rc.h"

/* Guard bytes on each side of a destination, and their value. */
#define GUARD		64
#define GUARD_BYTE	0xa5
/* What a destination holds before the operation writes it. */
#define FILL_BYTE	0x5a
/* The longest wait for one completion. */
#define WAIT_MS		60000

enum op {
	OP_WRITE, OP_WRITE_IMM, OP_SEND, OP_SEND_IMM, OP_READ,
	OP_CAS, OP_FAA, OP_NR
};

static const char *const op_names[OP_NR] = {
	"write", "write_imm", "send", "send_imm", "read", "cas", "faa",
};

struct opspec {
	enum op op;
	unsigned int len;
	unsigned long long id;
	int signaled, inlined, fenced, nsge;
	char *src, *dst;	/* dst has GUARD bytes on each side */
	unsigned long long old, arg, swap;	/* atomics: the slot's value, operands */
	unsigned int imm;
};

struct cfg {
	const char *dev;
	int gid_index, sge, depth, mix, fence, uc, reset, sq_size, trace;
	int timeout;	/* RC transport timer: 4.096 us * 2^timeout */
	unsigned long seed;
	unsigned long long ops;
	long duration_ms;
	unsigned int max_size;
};

static unsigned long long rng_state;

static unsigned long long rnd(void)
{
	/* xorshift64*: reproducible from --seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd_below(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/* A size from 1 to @max, log-uniform. */
static unsigned int rnd_size(unsigned int max)
{
	int bits = 0;
	unsigned int lo, hi;

	while (bits < 31 && (1u << (bits + 1)) <= max)
		bits++;
	lo = 1u << rnd_below(bits + 1);
	hi = lo * 2 - 1 < max ? lo * 2 - 1 : max;
	return lo + rnd_below(hi - lo + 1);
}

static char first_error[256];
static unsigned long long mismatches;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!mismatches)
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
	va_end(ap);
	mismatches++;
}

static void print_usage(const char *argv0)
{
	fprintf(stderr, "usage: %s DEV GID_INDEX [--seed N] %s %s %s\n", argv0,
		"[--ops N | --duration SEC] [--max-size BYTES] [--sge N]",
		"[--depth N] [--qp-type rc|uc] [--mix] [--no-fence] [--reset N]",
		"[--sq-size N] [--timeout N] [--trace]");
	exit(2);
}

static void parse(int argc, char **argv, struct cfg *c)
{
	int i;

	if (argc < 3)
		print_usage(argv[0]);
	*c = (struct cfg){ .dev = argv[1], .gid_index = atoi(argv[2]),
			   .sge = 4, .depth = 32, .fence = 1, .seed = 1, .timeout = 14,
			   .ops = 2000, .max_size = 1u << 20 };
	for (i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--mix")) {
			c->mix = 1;
			continue;
		}
		if (!strcmp(a, "--no-fence")) {
			c->fence = 0;
			continue;
		}
		if (!strcmp(a, "--trace")) {
			c->trace = 1;
			continue;
		}
		if (!v)
			print_usage(argv[0]);
		i++;
		if (!strcmp(a, "--seed"))
			c->seed = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--ops"))
			c->ops = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--duration"))
			c->duration_ms = (long)(atof(v) * 1000);
		else if (!strcmp(a, "--max-size"))
			c->max_size = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--sge"))
			c->sge = atoi(v);
		else if (!strcmp(a, "--depth"))
			c->depth = atoi(v);
		else if (!strcmp(a, "--reset"))
			c->reset = atoi(v);
		else if (!strcmp(a, "--sq-size"))
			c->sq_size = atoi(v);
		else if (!strcmp(a, "--timeout"))
			c->timeout = atoi(v);
		else if (!strcmp(a, "--qp-type") && !strcmp(v, "uc"))
			c->uc = 1;
		else if (strcmp(a, "--qp-type") || strcmp(v, "rc"))
			print_usage(argv[0]);
	}
	if (c->max_size < 1 || c->max_size > (1u << 30) || c->sge < 1 ||
	    c->depth < 1 || c->depth > 4096 || c->reset < 0 ||
	    c->timeout < 1 || c->timeout > 31 ||
	    (c->sq_size && c->sq_size < c->depth))
		print_usage(argv[0]);
	if (c->duration_ms)
		c->ops = UINT64_MAX;
}

/* Resources of the run. */
struct run {
	struct cfg c;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq, *bcq;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	union ibv_gid gid;
	char *src, *dst;
	size_t region;
	unsigned int max_inline;
	struct opspec *ops;
};

/* A and B to RTS, each the other's peer, with the --timeout timer. */
static void connect_pair(struct run *r)
{
	connect_qp(r->qa, r->qb->qp_num, &r->gid, r->c.gid_index, r->c.timeout, 7);
	connect_qp(r->qb, r->qa->qp_num, &r->gid, r->c.gid_index, r->c.timeout, 7);
}

static void setup(struct run *r)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	enum ibv_qp_type type = r->c.uc ? IBV_QPT_UC : IBV_QPT_RC;
	int d = r->c.depth;

	r->ctx = open_dev(r->c.dev, r->c.gid_index, &r->gid);
	r->pd = ibv_alloc_pd(r->ctx);
	r->scq = ibv_create_cq(r->ctx, d + 1, NULL, NULL, 0);
	r->rcq = ibv_create_cq(r->ctx, d + 1, NULL, NULL, 0);
	r->bcq = ibv_create_cq(r->ctx, d + 1, NULL, NULL, 0);
	/* a batch never takes more than twice the largest operation */
	r->region = 2 * (size_t)r->c.max_size +
		    (size_t)d * (2 * GUARD + 16) + 4096;
	r->src = aligned_alloc(4096, (2 * r->region + 4095) & ~4095ul);
	r->ops = calloc(d, sizeof(*r->ops));
	if (!r->pd || !r->scq || !r->rcq || !r->bcq || !r->src || !r->ops)
		die("alloc");
	r->dst = r->src + r->region;
	r->mr = ibv_reg_mr(r->pd, r->src, 2 * r->region,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!r->mr)
		die("ibv_reg_mr");
	r->qa = make_qp(r->pd, r->scq, r->bcq, type,
			r->c.sq_size ? r->c.sq_size : d, 1, r->c.sge,
			r->c.mix ? 64 : 0);
	r->qb = make_qp(r->pd, r->bcq, r->rcq, type, 1, d, 1, 0);
	if (ibv_query_qp(r->qa, &qattr, IBV_QP_CAP, &init))
		die("ibv_query_qp");
	r->max_inline = init.cap.max_inline_data;
	connect_pair(r);
}

/* Between batches: both QPs to RESET and connected again. */
static void reset_qps(struct run *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(r->qa, &a, IBV_QP_STATE) ||
	    ibv_modify_qp(r->qb, &a, IBV_QP_STATE))
		die("RESET");
	connect_pair(r);
}

static enum op pick_op(const struct run *r)
{
	int n = r->c.uc ? OP_READ : r->c.mix ? OP_NR : OP_CAS;

	return (enum op)rnd_below(n);
}

static int consumes_recv(enum op op)
{
	return op == OP_WRITE_IMM || op == OP_SEND || op == OP_SEND_IMM;
}

/*
 * Plan a batch: operations, sizes and buffers, and prepare the
 * destinations. Return: how many operations.
 */
static int plan(struct run *r, unsigned long long *next_id, unsigned long long left)
{
	size_t soff = 0, doff = 0;
	int n = 0;

	while (n < r->c.depth && (unsigned long long)n < left) {
		struct opspec *o = &r->ops[n];
		unsigned int len;

		memset(o, 0, sizeof(*o));
		o->op = pick_op(r);
		len = o->op >= OP_CAS ? 8 : rnd_size(r->c.max_size);
		/* 8-aligned slices: atomics need it, the rest does not mind */
		if (soff + len > r->region - 8 ||
		    doff + len + 2 * GUARD > r->region - 8)
			break;
		o->len = len;
		o->id = (*next_id)++;
		o->src = r->src + soff;
		o->dst = r->dst + doff + GUARD;
		soff = (soff + len + 7) & ~7ul;
		doff = (doff + len + 2 * GUARD + 7) & ~7ul;
		o->nsge = 1 + rnd_below((unsigned int)r->c.sge < len ?
					(unsigned int)r->c.sge : len);
		o->signaled = !r->c.mix || rnd_below(3);
		o->inlined = r->c.mix && len <= r->max_inline &&
			     o->op <= OP_SEND_IMM && rnd_below(2);
		if (o->inlined || o->op >= OP_CAS)
			o->nsge = 1;
		o->fenced = r->c.mix && r->c.fence && !rnd_below(4);
		o->imm = (unsigned int)rnd();
		n++;
	}
	if (n)
		r->ops[n - 1].signaled = 1;
	return n;
}

static void fill(struct opspec *o)
{
	unsigned int i;

	/* the source: A's for what A sends, B's for what A reads */
	for (i = 0; i < o->len; i++)
		o->src[i] = (char)rnd();
	memset(o->dst - GUARD, GUARD_BYTE, GUARD);
	memset(o->dst, FILL_BYTE, o->len);
	memset(o->dst + o->len, GUARD_BYTE, GUARD);
	if (o->op >= OP_CAS) {
		/* the remote slot (dst) and the result (src) */
		o->old = rnd();
		o->arg = rnd();
		o->swap = rnd();
		memcpy(o->dst, &o->old, 8);
		memset(o->src, 0, 8);
	}
}

static void post_recvs(struct run *r, int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < n; i++) {
		struct opspec *o = &r->ops[i];

		if (!consumes_recv(o->op))
			continue;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = o->id;
		if (o->op != OP_WRITE_IMM) {
			sge = (struct ibv_sge){ .addr = (uintptr_t)o->dst,
						.length = o->len,
						.lkey = r->mr->lkey };
			wr.sg_list = &sge;
			wr.num_sge = 1;
		}
		if (ibv_post_recv(r->qb, &wr, &bad))
			die("ibv_post_recv");
	}
}

static void build(struct run *r, struct opspec *o, struct ibv_send_wr *wr,
		  struct ibv_sge *sge)
{
	static const enum ibv_wr_opcode opcodes[OP_NR] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	/* a READ scatters into A's destination from B's source */
	char *local = o->op == OP_READ ? o->dst : o->src;
	char *remote = o->op == OP_READ ? o->src : o->dst;
	unsigned int off = 0, part;
	int i;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = o->id;
	wr->opcode = opcodes[o->op];
	wr->sg_list = sge;
	wr->num_sge = o->nsge;
	wr->send_flags = (o->signaled ? IBV_SEND_SIGNALED : 0) |
			 (o->inlined ? IBV_SEND_INLINE : 0) |
			 (o->fenced ? IBV_SEND_FENCE : 0);
	for (i = 0; i < o->nsge; i++) {
		part = i == o->nsge - 1 ? o->len - off :
			1 + rnd_below(o->len - off - (o->nsge - 1 - i));
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)local + off,
					   .length = part,
					   .lkey = r->mr->lkey };
		off += part;
	}
	if (o->op == OP_WRITE_IMM || o->op == OP_SEND_IMM)
		wr->imm_data = htonl(o->imm);
	if (o->op >= OP_CAS) {
		wr->wr.atomic.remote_addr = (uintptr_t)o->dst;
		wr->wr.atomic.rkey = r->mr->rkey;
		wr->wr.atomic.compare_add = o->op == OP_CAS ? o->old : o->arg;
		wr->wr.atomic.swap = o->swap;
	} else {
		wr->wr.rdma.remote_addr = (uintptr_t)remote;
		wr->wr.rdma.rkey = r->mr->rkey;
	}
}

/* Post the batch: as one chain, or WR by WR. */
static void post(struct run *r, int n)
{
	struct ibv_send_wr *wrs = calloc(n, sizeof(*wrs)), *bad;
	struct ibv_sge *sges = calloc((size_t)n * r->c.sge, sizeof(*sges));
	int chain = rnd_below(2), i;

	if (!wrs || !sges)
		die("calloc");
	for (i = 0; i < n; i++) {
		build(r, &r->ops[i], &wrs[i], &sges[(size_t)i * r->c.sge]);
		if (chain && i + 1 < n)
			wrs[i].next = &wrs[i + 1];
		if (r->c.trace)
			fprintf(stderr, "posted (%s) wr %llu %s %u sge %d%s%s%s\n",
				chain ? "chain" : "single", r->ops[i].id,
				op_names[r->ops[i].op], r->ops[i].len,
				r->ops[i].nsge,
				r->ops[i].signaled ? " signaled" : "",
				r->ops[i].inlined ? " inline" : "",
				r->ops[i].fenced ? " fence" : "");
	}
	for (i = 0; i < n; i++) {
		if (ibv_post_send(r->qa, &wrs[i], &bad))
			die("ibv_post_send");
		if (chain)
			break;
	}
	free(wrs);
	free(sges);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, long wait_ms)
{
	long t0 = now_ms();
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && now_ms() - t0 < wait_ms)
		usleep(50);
	if (n < 0)
		die("ibv_poll_cq");
	return n;
}

static void check_send_cqes(struct run *r, int n)
{
	static const enum ibv_wc_opcode wc_op[OP_NR] = {
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_SEND, IBV_WC_SEND,
		IBV_WC_RDMA_READ, IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD,
	};
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		struct opspec *o = &r->ops[i];

		if (!o->signaled)
			continue;
		if (!poll_one(r->scq, &wc, WAIT_MS)) {
			fail("no send completion for wr %llu (%s %u)",
			     o->id, op_names[o->op], o->len);
			return;
		}
		if (r->c.trace)
			fprintf(stderr, "completion wr %llu %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
		if (wc.wr_id != o->id || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != wc_op[o->op] || wc.byte_len != o->len) {
			fail("send completion wr %llu %s opcode %d len %u, %s %llu (%s %u)",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status), wc.opcode,
			     wc.byte_len, "expected", o->id, op_names[o->op],
			     o->len);
			return;
		}
	}
}

static void check_recv_cqes(struct run *r, int n, unsigned long long *recvs)
{
	struct ibv_wc wc;
	int i, imm;

	for (i = 0; i < n; i++) {
		struct opspec *o = &r->ops[i];

		if (!consumes_recv(o->op))
			continue;
		if (!poll_one(r->rcq, &wc, WAIT_MS)) {
			fail("no receive completion for wr %llu", o->id);
			return;
		}
		imm = o->op != OP_SEND;
		if (wc.wr_id != o->id || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != (o->op == OP_WRITE_IMM ?
				  IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV) ||
		    wc.byte_len != o->len ||
		    !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm ||
		    (imm && ntohl(wc.imm_data) != o->imm)) {
			fail("recv wr %llu %s op %d len %u imm %d:%08x, want %llu (%s %u %08x)",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status), wc.opcode,
			     wc.byte_len, !!(wc.wc_flags & IBV_WC_WITH_IMM),
			     ntohl(wc.imm_data), o->id,
			     op_names[o->op], o->len, o->imm);
			return;
		}
		(*recvs)++;
	}
}

static void check_data(struct run *r, int n)
{
	char guard[GUARD];
	unsigned long long now, ret;
	int i;

	memset(guard, GUARD_BYTE, GUARD);
	for (i = 0; i < n; i++) {
		struct opspec *o = &r->ops[i];

		if (memcmp(o->dst - GUARD, guard, GUARD) ||
		    memcmp(o->dst + o->len, guard, GUARD)) {
			fail("wr %llu (%s %u): guard bytes overwritten",
			     o->id, op_names[o->op], o->len);
			return;
		}
		if (o->op < OP_CAS) {
			if (memcmp(o->src, o->dst, o->len)) {
				fail("wr %llu (%s %u, %d SGEs): data differ",
				     o->id, op_names[o->op], o->len,
				     o->nsge);
				return;
			}
			continue;
		}
		memcpy(&now, o->dst, 8);
		memcpy(&ret, o->src, 8);
		if (ret != o->old ||
		    now != (o->op == OP_CAS ? o->swap : o->old + o->arg)) {
			fail("wr %llu (%s): returned %llx left %llx",
			     o->id, op_names[o->op], ret, now);
			return;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long long id = 1, done = 0, signaled = 0, recvs = 0, bytes = 0;
	unsigned long long batches = 0;
	struct run r = { 0 };
	struct ibv_wc wc;
	long t0;
	int n, i;

	parse(argc, argv, &r.c);
	rng_state = r.c.seed * 0x9e3779b97f4a7c15ULL + 1;
	setup(&r);
	t0 = now_ms();
	while (!mismatches && done < r.c.ops &&
	       (!r.c.duration_ms || now_ms() - t0 < r.c.duration_ms)) {
		n = plan(&r, &id, r.c.ops - done);
		if (!n)
			break;
		for (i = 0; i < n; i++)
			fill(&r.ops[i]);
		post_recvs(&r, n);
		post(&r, n);
		check_send_cqes(&r, n);
		if (!mismatches)
			check_recv_cqes(&r, n, &recvs);
		if (!mismatches && (poll_one(r.scq, &wc, 0) ||
				    poll_one(r.rcq, &wc, 0) ||
				    poll_one(r.bcq, &wc, 0)))
			fail("an extra completion: wr %llu %s",
			     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
		if (!mismatches)
			check_data(&r, n);
		for (i = 0; i < n; i++) {
			signaled += r.ops[i].signaled;
			bytes += r.ops[i].len;
		}
		done += n;
		batches++;
		if (r.c.reset && !(batches % r.c.reset))
			reset_qps(&r);
	}
	printf("{\"ok\": %s, \"ops\": %llu, \"wrs_signaled\": %llu, ",
	       mismatches ? "false" : "true", done, signaled);
	printf("\"recvs\": %llu, \"bytes\": %llu, \"batches\": %llu, ",
	       recvs, bytes, batches);
	printf("\"mismatches\": %llu, \"first_error\": \"%s\"}\n",
	       mismatches, first_error);
	return mismatches ? 1 : 0;
}
