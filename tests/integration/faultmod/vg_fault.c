// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_fault: a test-only module that makes the guest kernel misbehave on
 * purpose, so the integration test bed can prove that it notices:
 *
 *   insmod vg_fault.ko action=warn   WARN, then refuse to load
 *   insmod vg_fault.ko action=oops   NULL dereference in insmod's context
 *
 * Never load it outside the test bed.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char *action = "";
module_param(action, charp, 0444);
MODULE_PARM_DESC(action, "warn or oops");

/* Process context (insmod). */
static int __init vg_fault_init(void)
{
	int *null_ptr = NULL;

	if (!strcmp(action, "warn")) {
		WARN(1, "vg_fault: injected warning\n");
		return -EAGAIN;
	}
	if (!strcmp(action, "oops")) {
		pr_emerg("vg_fault: injecting a NULL dereference\n");
		/* Keep the compiler from proving the access undefined. */
		OPTIMIZER_HIDE_VAR(null_ptr);
		return *null_ptr;
	}
	return -EINVAL;
}
module_init(vg_fault_init);

MODULE_DESCRIPTION("verbsgate test bed: kernel fault injection");
MODULE_LICENSE("GPL");
