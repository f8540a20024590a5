// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_fault: a test-only module that makes the guest kernel misbehave on
 * purpose, so the integration test bed can prove that it notices:
 *
 *   insmod vg_fault.ko action=warn   WARN, then refuse to load
 *   insmod vg_fault.ko action=oops   NULL dereference in insmod's context
 *   insmod vg_fault.ko action=lockup every CPU spins with interrupts off,
 *                                    forever (only an NMI gets through)
 *   insmod vg_fault.ko action=uaf    write to a freed object, then
 *                                    allocate from its cache again (SLUB
 *                                    debugging reports it)
 *
 * Never load it outside the test bed.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

static char *action = "";
module_param(action, charp, 0444);
MODULE_PARM_DESC(action, "warn, oops, lockup or uaf");

/* Interrupts off (IPI handler, or on_each_cpu()'s local call). */
static void vg_fault_spin(void *unused)
{
	for (;;)
		cpu_relax();
}

/*
 * Process context. With SLUB's poisoning on, the next allocation or the
 * validation of the freed object reports "Poison overwritten".
 */
static int vg_fault_use_after_free(void)
{
	u8 *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	pr_emerg("vg_fault: writing to a freed object\n");
	/* Keep the compiler from seeing the access after the free. */
	OPTIMIZER_HIDE_VAR(p);
	WRITE_ONCE(p[8], 0x42);
	/* Allocate from the cache until the poisoned object is checked. */
	kfree(kmalloc(64, GFP_KERNEL));
	return -EFAULT;
}

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
	if (!strcmp(action, "lockup")) {
		pr_emerg("vg_fault: every CPU spins with interrupts off\n");
		on_each_cpu(vg_fault_spin, NULL, 0);
		return -EIO;	/* not reached */
	}
	if (!strcmp(action, "uaf"))
		return vg_fault_use_after_free();
	return -EINVAL;
}
module_init(vg_fault_init);

MODULE_DESCRIPTION("verbsgate test bed: kernel fault injection");
MODULE_LICENSE("GPL");
