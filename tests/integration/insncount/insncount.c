// SPDX-License-Identifier: GPL-2.0-only
/*
 * insncount: a QEMU TCG plugin that counts the guest kernel instructions
 * executed, by the address of the translation block that ran them, for
 * `make bench-usq` (tests/integration/harness/insnprof.py).
 *
 * Throughput in the emulated test bed spreads by several percent from
 * run to run; the instructions the guest kernel executes per operation
 * do not, so a change of a few percent in what a path costs can be
 * resolved in one short run. Counts are exact with one vCPU (the inline
 * add the plugin asks TCG for is not atomic).
 *
 * Usage: qemu-system-x86_64 -plugin insncount.so,dir=DIR ...
 * Each time DIR/req appears, the plugin removes it and writes what has
 * been counted since boot to DIR/snap.N (N = 0, 1, ...), one line per
 * block: its address (hex), its instructions, its executions. The file
 * appears under its name once complete. A `rep` string instruction counts
 * once per iteration, as TCG executes it.
 *
 * Debian's QEMU ships no plugin header: qemu_plugin_v1.h declares the
 * entry points used here.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_plugin_v1.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* x86-64: the kernel's half of the address space. */
#define KERNEL_START 0xffff800000000000ull

/* One translation of a block; a block translated again gets another. */
struct block {
	unsigned long long vaddr;
	unsigned long long insns;
	unsigned long long runs;	/* added to by TCG-generated code */
};

static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block **blocks;	/* never freed: TCG code points into them */
static size_t nblocks, blocks_cap;
static char dir[4096];

static void on_translate(unsigned long long id, struct qemu_plugin_tb *tb)
{
	unsigned long long vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	if (vaddr < KERNEL_START)
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		return;
	b->vaddr = vaddr;
	b->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&blocks_lock);
	if (nblocks == blocks_cap) {
		size_t cap = blocks_cap ? 2 * blocks_cap : 65536;
		struct block **grown = realloc(blocks, cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&blocks_lock);
			free(b);
			return;
		}
		blocks = grown;
		blocks_cap = cap;
	}
	blocks[nblocks++] = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
}

static int write_snapshot(int seq)
{
	char path[4200], tmp[4210];
	size_t i, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/snap.%d", dir, seq);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	pthread_mutex_lock(&blocks_lock);
	n = nblocks;
	pthread_mutex_unlock(&blocks_lock);
	/* blocks[] only grows, and entries below n stay where they are */
	for (i = 0; i < n; i++) {
		const struct block *b;

		pthread_mutex_lock(&blocks_lock);
		b = blocks[i];
		pthread_mutex_unlock(&blocks_lock);
		if (b->runs)
			fprintf(f, "%llx %llu %llu\n",
				b->vaddr,
				b->insns,
				b->runs);
	}
	if (fclose(f))
		return -errno;
	return rename(tmp, path) ? -errno : 0;
}

static void *snapshot_thread(void *arg)
{
	char req[4200];
	int seq = 0;

	(void)arg;
	snprintf(req, sizeof(req), "%s/req", dir);
	for (;;) {
		if (unlink(req) == 0) {
			int err = write_snapshot(seq++);

			if (err)
				fprintf(stderr, "insncount: snapshot: %s\n",
					strerror(-err));
		}
		usleep(20000);
	}
	return NULL;
}

EXPORT int qemu_plugin_install(unsigned long long id, const void *info,
			       int argc, char **argv)
{
	pthread_t thread;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
	if (!dir[0]) {
		fprintf(stderr, "insncount: needs dir=DIR\n");
		return -1;
	}
	if (pthread_create(&thread, NULL, snapshot_thread, NULL))
		return -1;
	pthread_detach(thread);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
