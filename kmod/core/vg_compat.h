/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate policy core: the one place that switches includes.
 *
 * kmod/core/ is pure logic. It is compiled three ways: into verbsgate.ko,
 * into KUnit suites under UML (both with __KERNEL__), and natively for
 * benchmarks and sanitizer tests, where userspace/bench/shim/vg_shim.h
 * provides the same freestanding helpers. Core files include only this
 * header and other core headers.
 */
#ifndef _VG_CORE_COMPAT_H
#define _VG_CORE_COMPAT_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/prefetch.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/types.h>
#else
#include "vg_shim.h"
#endif

#endif /* _VG_CORE_COMPAT_H */
