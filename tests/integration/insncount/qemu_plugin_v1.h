/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The entry points of QEMU's TCG plugin API, version 1 (QEMU 4.2 to 7.2),
 * that insncount.c uses, declared by their documented signatures because
 * Debian's QEMU ships no plugin header. A plugin identifier is a 64-bit
 * value; a plugin exports qemu_plugin_version and qemu_plugin_install().
 */
#ifndef QEMU_PLUGIN_V1_H
#define QEMU_PLUGIN_V1_H

#include <stddef.h>

struct qemu_plugin_tb;

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

void qemu_plugin_register_vcpu_tb_trans_cb(unsigned long long id,
					   void (*cb)(unsigned long long id,
						      struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, unsigned long long imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
unsigned long long qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#endif /* QEMU_PLUGIN_V1_H */
