/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Native (userspace) stand-ins for the few freestanding kernel helpers the
 * verbsgate policy core (kmod/core/) uses. kmod/core/vg_compat.h includes
 * this file when __KERNEL__ is not defined. Valid C11 and C++17.
 */
#ifndef VG_SHIM_H
#define VG_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as in the kernel: %llu prints it */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))

#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define __must_check	__attribute__((__warn_unused_result__))

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define swap(a, b) \
	do { __typeof__(a) vg_tmp_ = (a); (a) = (b); (b) = vg_tmp_; } while (0)
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(n))

#define prefetch(x)	__builtin_prefetch(x)
#define prefetchw(x)	__builtin_prefetch(x, 1)

#define WARN_ON_ONCE(cond)	(!!(cond))
#define WARN_ON(cond)		(!!(cond))
#ifdef __cplusplus
#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)
#else
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#endif

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned long __ffs64(u64 x)
{
	return (unsigned long)__builtin_ctzll(x);
}

static inline int ilog2_u64(u64 x)
{
	return fls64(x) - 1;
}

#define ilog2(n)	ilog2_u64((u64)(n))

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

/* lib/sort.c's sort() with the default swap (swap_func must be NULL). */
#define sort(base, num, size, cmp, swap) qsort(base, num, size, cmp)

#endif /* VG_SHIM_H */
