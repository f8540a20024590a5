/* SPDX-License-Identifier: GPL-2.0-only */
/* Native stand-in for <linux/sort.h>, for tests/kunit/ built natively. */
#ifndef VG_SHIM_LINUX_SORT_H
#define VG_SHIM_LINUX_SORT_H
#include "vg_shim.h"
#endif
