/* SPDX-License-Identifier: GPL-2.0-only */
/* Native stand-in for <linux/vmalloc.h>, for tests/kunit/ built natively. */
#ifndef VG_SHIM_LINUX_VMALLOC_H
#define VG_SHIM_LINUX_VMALLOC_H
#include "vg_shim.h"

static inline void *vzalloc(unsigned long size)
{
	return calloc(1, size);
}

static inline void vfree(const void *p)
{
	free((void *)p);
}
#endif
