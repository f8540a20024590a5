/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A native stand-in for the subset of <kunit/test.h> that verbsgate's
 * KUnit suites (tests/kunit/) use, so the same suites also run natively under
 * ASan/UBSan (target vg_core_kunit_native). Not a KUnit reimplementation:
 * only what those files need. C only.
 */
#ifndef VG_SHIM_KUNIT_TEST_H
#define VG_SHIM_KUNIT_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "vg_shim.h"

#define GFP_KERNEL	0

struct kunit_res {
	struct kunit_res *next;
	void *ptr;
};

#define KUNIT_PARAM_DESC_SIZE	128

struct kunit {
	const char *name;
	int failed;
	jmp_buf abort;
	struct kunit_res *res;
	const void *param_value;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char name[256];
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn)	{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_PARAM(fn, gen) \
	{ .run_case = fn, .name = #fn, .generate_params = gen }

/* As in KUnit: one run of the case per element of @array. */
#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		__typeof__((array)[0]) *next_ = prev ?			\
			((__typeof__(next_))prev) + 1 : (array);	\
		void (*get_desc_)(__typeof__(next_), char *) = get_desc; \
									\
		if (next_ - (array) >= (long)ARRAY_SIZE(array))	\
			return NULL;					\
		if (get_desc_)						\
			get_desc_(next_, desc);				\
		return next_;						\
	}

void vg_kunit_register(struct kunit_suite **suites, size_t n);
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, int gfp);
void vg_kunit_fail(struct kunit *test, const char *file, int line,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static inline void *kunit_kzalloc(struct kunit *test, size_t size, int gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  int gfp)
{
	return kunit_kmalloc_array(test, n, size, gfp);
}

#define kunit_test_suites(...)						\
	static struct kunit_suite *vg_kunit_suites_[] = { __VA_ARGS__ }; \
	__attribute__((constructor)) static void vg_kunit_reg_(void)	\
	{								\
		vg_kunit_register(vg_kunit_suites_,			\
				  ARRAY_SIZE(vg_kunit_suites_));	\
	}

#define kunit_info(test, fmt, ...) \
	printf("    # %s: " fmt, (test)->name, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...) \
	fprintf(stderr, "    # %s: " fmt, (test)->name, ##__VA_ARGS__)

#define VG_KUNIT_BIN(test, fatal, a, op, b, fmt, ...)			\
	do {								\
		__typeof__(a) vg_a_ = (a);				\
		__typeof__(b) vg_b_ = (b);				\
		if (!(vg_a_ op vg_b_)) {				\
			vg_kunit_fail(test, __FILE__, __LINE__,		\
				"%s %s %s (%lld vs %lld) " fmt, #a, #op, \
				#b, (long long)vg_a_, (long long)vg_b_,	\
				##__VA_ARGS__);				\
			if (fatal)					\
				longjmp((test)->abort, 1);		\
		}							\
	} while (0)

#define KUNIT_EXPECT_EQ_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, ==, b, __VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, !=, b, __VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, <, b, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, <=, b, __VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, >, b, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 0, a, >=, b, __VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, ==, b, __VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, !=, b, __VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, <=, b, __VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, >=, b, __VA_ARGS__)
#define KUNIT_EXPECT_TRUE_MSG(t, c, ...)   VG_KUNIT_BIN(t, 0, !!(c), ==, 1, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, ...)  VG_KUNIT_BIN(t, 0, !!(c), ==, 0, __VA_ARGS__)
#define KUNIT_ASSERT_TRUE_MSG(t, c, ...)   VG_KUNIT_BIN(t, 1, !!(c), ==, 1, __VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(t, c, ...)  VG_KUNIT_BIN(t, 1, !!(c), ==, 0, __VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, <, b, __VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(t, a, b, ...)  VG_KUNIT_BIN(t, 1, a, >, b, __VA_ARGS__)

#define KUNIT_FAIL(t, fmt, ...)						\
	vg_kunit_fail(t, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_EQ(t, a, b)	KUNIT_EXPECT_EQ_MSG(t, a, b, "")
#define KUNIT_EXPECT_NE(t, a, b)	KUNIT_EXPECT_NE_MSG(t, a, b, "")
#define KUNIT_EXPECT_LT(t, a, b)	KUNIT_EXPECT_LT_MSG(t, a, b, "")
#define KUNIT_EXPECT_LE(t, a, b)	KUNIT_EXPECT_LE_MSG(t, a, b, "")
#define KUNIT_EXPECT_GT(t, a, b)	KUNIT_EXPECT_GT_MSG(t, a, b, "")
#define KUNIT_EXPECT_GE(t, a, b)	KUNIT_EXPECT_GE_MSG(t, a, b, "")
#define KUNIT_EXPECT_TRUE(t, c)		KUNIT_EXPECT_TRUE_MSG(t, c, "")
#define KUNIT_EXPECT_FALSE(t, c)	KUNIT_EXPECT_FALSE_MSG(t, c, "")
#define KUNIT_ASSERT_EQ(t, a, b)	KUNIT_ASSERT_EQ_MSG(t, a, b, "")
#define KUNIT_ASSERT_NE(t, a, b)	KUNIT_ASSERT_NE_MSG(t, a, b, "")
#define KUNIT_ASSERT_LE(t, a, b)	KUNIT_ASSERT_LE_MSG(t, a, b, "")
#define KUNIT_ASSERT_GE(t, a, b)	KUNIT_ASSERT_GE_MSG(t, a, b, "")
#define KUNIT_ASSERT_TRUE(t, c)		KUNIT_ASSERT_TRUE_MSG(t, c, "")
#define KUNIT_ASSERT_FALSE(t, c)	KUNIT_ASSERT_FALSE_MSG(t, c, "")
#define KUNIT_ASSERT_LT(t, a, b)	KUNIT_ASSERT_LT_MSG(t, a, b, "")
#define KUNIT_ASSERT_GT(t, a, b)	KUNIT_ASSERT_GT_MSG(t, a, b, "")
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p) \
	KUNIT_ASSERT_TRUE_MSG(t, (p) != NULL, "")
#define KUNIT_EXPECT_PTR_EQ(t, a, b) \
	KUNIT_EXPECT_TRUE_MSG(t, (const void *)(a) == (const void *)(b), "")

#endif /* VG_SHIM_KUNIT_TEST_H */
