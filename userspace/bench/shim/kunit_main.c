// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runner for the native KUnit stand-in (shim/kunit/test.h): runs every
 * registered suite, prints KTAP-like results, exits non-zero on failure.
 * An optional argument selects suites whose name contains it.
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include <kunit/test.h>

#define VG_KUNIT_MAX_SUITES 64

static struct kunit_suite *vg_suites[VG_KUNIT_MAX_SUITES];
static size_t vg_nsuites;

void vg_kunit_register(struct kunit_suite **suites, size_t n)
{
	size_t i;

	for (i = 0; i < n && vg_nsuites < VG_KUNIT_MAX_SUITES; i++)
		vg_suites[vg_nsuites++] = suites[i];
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, int gfp)
{
	struct kunit_res *r = calloc(1, sizeof(*r));
	void *p = calloc(n ? n : 1, size ? size : 1);

	(void)gfp;
	if (!r || !p) {
		free(r);
		free(p);
		return NULL;
	}
	r->ptr = p;
	r->next = test->res;
	test->res = r;
	return p;
}

void vg_kunit_fail(struct kunit *test, const char *file, int line,
		   const char *fmt, ...)
{
	va_list ap;

	test->failed = 1;
	fprintf(stderr, "    # %s: FAIL at %s:%d: ", test->name, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void vg_kunit_free(struct kunit *test)
{
	while (test->res) {
		struct kunit_res *r = test->res;

		test->res = r->next;
		free(r->ptr);
		free(r);
	}
}

/* Runs one case with parameter @param; returns 1 if it failed. */
static int vg_kunit_run_one(struct kunit_suite *suite, struct kunit_case *c,
			    const void *param, const char *desc)
{
	/* static: its contents stay defined across longjmp() */
	static struct kunit test;

	memset(&test, 0, sizeof(test));
	test.name = c->name;
	test.param_value = param;
	if (!setjmp(test.abort)) {
		if (!suite->init || !suite->init(&test))
			c->run_case(&test);
	}
	if (suite->exit)
		suite->exit(&test);
	vg_kunit_free(&test);
	if (c->generate_params)
		printf("        %s %s\n", test.failed ? "not ok" : "ok", desc);
	return test.failed;
}

/* Runs a case, once per parameter if it has any; returns 1 if one failed. */
static int vg_kunit_run_case(struct kunit_suite *suite, struct kunit_case *c)
{
	char desc[KUNIT_PARAM_DESC_SIZE];
	const void *param = NULL;
	int failed = 0;

	if (!c->generate_params)
		return vg_kunit_run_one(suite, c, NULL, "");
	for (;;) {
		desc[0] = 0;
		param = c->generate_params(param, desc);
		if (!param)
			break;
		failed |= vg_kunit_run_one(suite, c, param, desc);
	}
	return failed;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int failed_total = 0;
	size_t s;

	for (s = 0; s < vg_nsuites; s++) {
		struct kunit_suite *suite = vg_suites[s];
		struct kunit_case *c;
		int n = 0, failed = 0;

		if (filter && !strstr(suite->name, filter))
			continue;
		printf("# Subtest: %s\n", suite->name);
		for (c = suite->test_cases; c->run_case; c++) {
			struct timespec t0, t1;
			int f;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			f = vg_kunit_run_case(suite, c);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			n++;
			printf("    %s %d %s # %.3f s\n", f ? "not ok" : "ok", n,
			       c->name, (double)(t1.tv_sec - t0.tv_sec) +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9);
			failed += f;
		}
		printf("%s %zu %s (%d/%d passed)\n", failed ? "not ok" : "ok",
		       s + 1, suite->name, n - failed, n);
		fflush(stdout);
		failed_total += failed;
	}
	return failed_total ? 1 : 0;
}
