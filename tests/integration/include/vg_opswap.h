/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vg_opswap.h: put a function of a test-only module in one op of an RDMA
 * device, and take it out again, for the test bed's driver stand-ins
 * (tests/integration/postfault, sqcap, drainmod). The op is named by its
 * member of struct ib_device_ops, so the compiler checks the function's
 * type against it. Never use outside the test bed.
 *
 * Neither waits for callers of the op: the module does, in the way its
 * op needs (one that sleeps in the driver needs synchronize_rcu_tasks()).
 */
#ifndef _VG_OPSWAP_H
#define _VG_OPSWAP_H

#include <rdma/ib_verbs.h>

/*
 * vg_opswap_set() - process context: in the RDMA device named @name, the
 * op @op becomes @fn; what it was goes to *@orig.
 * Return: 0, or -ENODEV if there is no such device.
 */
#define vg_opswap_set(name, op, fn, orig)				\
({									\
	struct ib_device *__ibdev =					\
		ib_device_get_by_name((name), RDMA_DRIVER_UNKNOWN);	\
									\
	if (__ibdev) {							\
		__auto_type __slot = &__ibdev->ops.op;			\
									\
		*(orig) = *__slot;					\
		WRITE_ONCE(*__slot, (fn));				\
		ib_device_put(__ibdev);					\
	}								\
	__ibdev ? 0 : -ENODEV;						\
})

/*
 * vg_opswap_restore() - process context: in the RDMA device named @name,
 * the op @op becomes @orig again if it is still @fn. Nothing if there
 * is no such device (any more).
 */
#define vg_opswap_restore(name, op, fn, orig)				\
do {									\
	struct ib_device *__ibdev =					\
		ib_device_get_by_name((name), RDMA_DRIVER_UNKNOWN);	\
									\
	if (__ibdev) {							\
		__auto_type __slot = &__ibdev->ops.op;			\
									\
		if (*__slot == (fn))					\
			WRITE_ONCE(*__slot, (orig));			\
		ib_device_put(__ibdev);					\
	}								\
} while (0)

#endif /* _VG_OPSWAP_H */
