// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the registry of the RDMA devices verbsgate is attached to,
 * keyed by the ib_device index; client.c attaches and detaches them.
 *
 * Locking: vg_devices_lock (a mutex) serializes the registry: membership
 * and vg_device::name; it nests inside ib_core's device locks (client.c).
 */
#include <linux/mutex.h>
#include <linux/xarray.h>

#include "device.h"

DEFINE_MUTEX(vg_devices_lock);	/* the registry; kmod/lock_order.h */
DEFINE_XARRAY(vg_devices);
/*
 * Removed devices whose wrappers stay, by index: the wrappers read it
 * under RCU; its xa_lock is a leaf, taken in process context.
 */
DEFINE_XARRAY(vg_orphans);

/**
 * vg_device_of() - verbsgate's state for a device it is attached to
 * @ibdev: the device
 *
 * Context: any; for the interposed operations, which run only between
 * vg_interpose_attach() and vg_interpose_detach() of the device, and
 * find a removed device whose wrappers stay on the orphans' list.
 */
struct vg_device *vg_device_of(struct ib_device *ibdev)
{
	struct vg_device *dev = ib_get_client_data(ibdev, &vg_ib_client);

	/* A removed device whose wrappers stay (vg_device_orphan()). */
	if (unlikely(!dev))
		dev = xa_load(&vg_orphans, ibdev->index);
	return dev;
}

/**
 * vg_device_count() - number of attached devices
 *
 * Context: process context; takes vg_devices_lock.
 */
u32 vg_device_count(void)
{
	struct vg_device *dev;
	unsigned long index;
	u32 n = 0;

	mutex_lock(&vg_devices_lock);
	xa_for_each(&vg_devices, index, dev)
		n++;
	mutex_unlock(&vg_devices_lock);
	return n;
}

/**
 * vg_device_with() - call @fn on one attached device
 * @index: device index, or U32_MAX to select by @name only
 * @name: device name, or NULL to select by @index only
 * @fn: callback; runs with vg_devices_lock held and must not sleep long
 * @arg: passed to @fn
 *
 * When both @index and @name are given they must name the same device.
 *
 * Context: process context; takes vg_devices_lock.
 * Return: what @fn returned, or -ENODEV if no device matches.
 */
int vg_device_with(u32 index, const char *name, vg_device_fn fn, void *arg)
{
	struct vg_device *dev = NULL, *it;
	unsigned long i;
	int ret = -ENODEV;

	mutex_lock(&vg_devices_lock);
	if (index != U32_MAX) {
		dev = xa_load(&vg_devices, index);
		if (dev && name && strcmp(dev->name, name))
			dev = NULL;
	} else if (name) {
		xa_for_each(&vg_devices, i, it) {
			if (!strcmp(it->name, name)) {
				dev = it;
				break;
			}
		}
	}
	if (dev)
		ret = fn(dev, arg);
	mutex_unlock(&vg_devices_lock);
	return ret;
}

/**
 * vg_device_for_each() - call @fn on attached devices in index order
 * @pos: in: first index to visit; out: index of the device @fn stopped at,
 *	 or one past the last index visited
 * @fn: callback; a non-zero return stops the walk and is returned
 * @arg: passed to @fn
 *
 * Resumable: netlink dumps keep @pos between calls.
 *
 * Context: process context; takes vg_devices_lock.
 */
int vg_device_for_each(unsigned long *pos, vg_device_fn fn, void *arg)
{
	struct vg_device *dev;
	unsigned long index;
	int ret = 0;

	mutex_lock(&vg_devices_lock);
	xa_for_each_start(&vg_devices, index, dev, *pos) {
		ret = fn(dev, arg);
		if (ret) {
			*pos = index;
			goto out;
		}
		*pos = index + 1;
	}
out:
	mutex_unlock(&vg_devices_lock);
	return ret;
}

/**
 * vg_device_lock() - take vg_devices_lock, to change a device's settings
 *	outside a registry walk (control/devcfg.c's port work)
 *
 * Context: process context; the caller holds no ib_core lock.
 */
void vg_device_lock(void)
{
	mutex_lock(&vg_devices_lock);
}

/* Process context. Releases vg_devices_lock. */
void vg_device_unlock(void)
{
	mutex_unlock(&vg_devices_lock);
}
