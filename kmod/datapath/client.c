// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: attach to every RDMA device through an ib_client.
 *
 * ib_core calls the client's add/remove/rename callbacks in process
 * context, for devices present when the client registers and for devices
 * that come and go later (driver probe, `rdma link add/delete`). Each
 * attached device gets a struct vg_device, kept in the registry
 * (device.c), and a directory under /sys/kernel/verbsgate/devices/.
 *
 * Locking: ib_core holds its own device locks (devices_rwsem,
 * client_data_rwsem) while calling our callbacks, so nothing may call back
 * into ib_core device management while holding vg_devices_lock; the lock
 * order is ib_core's locks, then vg_devices_lock.
 *
 * Device removal is bounded. ib_core calls the clients' remove callbacks
 * in the reverse order of their registration (disable_device()), and
 * rdma_cm, ib_uverbs and ULPs registered before verbsgate: when ours
 * runs, their QPs still live, and they destroy them only after it
 * returns (rdma_cm's DEVICE_REMOVAL event, a ULP's own remove). Before
 * the wrappers may go, every chunk the shaper posted must have completed
 * and been polled, and an owner that polls its CQ directly may not poll
 * until its own teardown: waiting for it here would wait forever. So
 * removal waits VG_REMOVE_BOUND for the shaper to drain; past it, the
 * device's wrappers stay installed and its state lives on, out of the
 * registry, on the list of orphans where the wrappers find it, holding a
 * reference to the module and one to the ib_device. The callback
 * returns, the owners tear down (their polls translated, their destroys
 * followed), and a work item detaches the device once nothing of it is
 * left, then lets the ib_device go: ib_core's removal waits for that
 * reference after the clients' callbacks. Unload is not bounded here:
 * while an owner that polls directly has something in the shaper, it
 * pins the module (sendq.c), so `rmmod` fails before it gets here, and
 * ib_core polls every other CQ itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/xarray.h>

#include "device.h"
#include "usq_rxe.h"

/*
 * How long device removal waits for the shaper to drain before it leaves
 * the device's wrappers in place. Unpaced, the shaper's WRs reach the
 * driver at once and the CQs ib_core polls drain in milliseconds; only
 * an owner that polls by itself waits longer, and for that no wait is
 * long enough.
 */
#define VG_REMOVE_BOUND	(5 * HZ)

/* Module exit or failed init: device removal waits as long as it takes. */
static bool vg_devices_exiting;
/* Background work on attached devices (control's port query). */
struct workqueue_struct *vg_wq;
/* Set once at module init, before the ib_client registers. */
const struct vg_device_ops *vg_device_ops;

/*
 * ib_client add callback. Process context; ib_core may hold devices_rwsem
 * for writing (ib_register_client()), so nothing here may take the RTNL:
 * the port is queried later, from a work item (control/devcfg.c). Takes
 * vg_devices_lock.
 */
static int vg_device_add(struct ib_device *ibdev)
{
	struct vg_device *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;

	dev->ibdev = ibdev;
	dev->index = ibdev->index;
	dev->ports = ibdev->phys_port_cnt;
	dev->node_guid = be64_to_cpu(ibdev->node_guid);
	strscpy(dev->driver,
		ibdev->ops.owner ? module_name(ibdev->ops.owner) : "unknown",
		sizeof(dev->driver));

	mutex_lock(&vg_devices_lock);
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	/* From here on the control plane owns dev, even on failure. */
	ret = vg_device_ops->add(dev);
	if (ret)
		goto out_unlock;

	ret = xa_insert(&vg_devices, dev->index, dev, GFP_KERNEL);
	if (ret) {
		vg_device_ops->remove(dev);
		goto out_unlock;
	}
	/* Before the wrappers: every QP they create is offered (usq_rxe.c). */
	vg_rxe_attach(dev);
	/* The wrappers find dev through the client data: set it first. */
	ib_set_client_data(ibdev, &vg_ib_client, dev);
	vg_interpose_attach(dev);
	vg_device_ops->attached(dev);
	pr_debug("attached to %s (index %u, driver %s)\n",
		 dev->name, dev->index, dev->driver);
out_unlock:
	mutex_unlock(&vg_devices_lock);
	return ret;
}

/*
 * vg_wq: an orphan's owners are tearing down. Waits until nothing of
 * them is left in the shaper, then detaches the device and lets the
 * ib_device, the module and @dev go. Process context; sleeps.
 */
static void vg_device_orphan_work(struct work_struct *work)
{
	struct vg_device *dev = container_of(work, struct vg_device,
					     remove_work);
	struct ib_device *ibdev = dev->ibdev;

	vg_interpose_detach(dev, true, 0);
	xa_erase(&vg_orphans, dev->index);
	pr_info("%s: detached after its owners' teardown\n", dev->name);
	kobject_put(&dev->kobj);
	ib_device_put(ibdev);
	module_put(THIS_MODULE);
}

/*
 * Device removal, past VG_REMOVE_BOUND: keep @dev, its wrappers and the
 * module until @dev's owners have torn down. Return: false if that
 * cannot be (unload, or the device already unreferenced): the caller
 * then waits as long as it takes.
 */
static bool vg_device_orphan(struct vg_device *dev)
{
	if (READ_ONCE(vg_devices_exiting) || !try_module_get(THIS_MODULE))
		return false;
	if (!ib_device_try_get(dev->ibdev))
		goto put_module;
	/* The wrappers find @dev here once ib_core forgets the client data. */
	if (xa_insert(&vg_orphans, dev->index, dev, GFP_KERNEL))
		goto put_device;
	pr_info("%s: shaped QPs still hold completions; leaving its wrappers until their owners tear down\n",
		dev->name);
	/* The directory goes now, so the name can be reused; @dev stays. */
	kobject_get(&dev->kobj);
	vg_device_ops->remove(dev);
	INIT_WORK(&dev->remove_work, vg_device_orphan_work);
	queue_work(vg_wq, &dev->remove_work);
	return true;

put_device:
	ib_device_put(dev->ibdev);
put_module:
	module_put(THIS_MODULE);
	return false;
}

/*
 * ib_client remove callback: on device unregistration and on
 * ib_unregister_client(). Process context; sleeps for grace periods; takes
 * vg_devices_lock. When it returns, no verbsgate code uses @ibdev any
 * more: the driver's operations are back and no wrapper runs
 * (vg_interpose_detach()), the registry no longer holds it, and the
 * control plane's remove() drained running sysfs readers. Except past
 * VG_REMOVE_BOUND: then the wrappers stay until the device's owners
 * have torn down (see the top of this file).
 */
static void vg_device_remove(struct ib_device *ibdev, void *client_data)
{
	struct vg_device *dev = client_data;

	/*
	 * Out of the registry first: walks under vg_devices_lock (dumps, the
	 * tenant notifier's pass over QP tables) no longer find the device
	 * once its tables are torn down.
	 */
	mutex_lock(&vg_devices_lock);
	xa_erase(&vg_devices, dev->index);
	/* While rdma_rxe cannot be gone yet (usq_rxe.c). */
	vg_rxe_detach(dev);
	mutex_unlock(&vg_devices_lock);
	vg_device_ops->detach(dev);
	if (READ_ONCE(vg_devices_exiting) ||
	    !vg_interpose_detach(dev, true, VG_REMOVE_BOUND)) {
		if (vg_device_orphan(dev))
			return;
		/*
		 * Unload, where nothing left waits for an owner (sendq.c),
		 * or no memory to keep the device: as long as it takes.
		 */
		vg_interpose_detach(dev, false, 0);
	}

	pr_debug("detached from %s\n", dev->name);
	vg_device_ops->remove(dev);
}

/*
 * ib_client rename callback (`rdma dev set OLD name NEW`). Process context;
 * ib_core holds devices_rwsem for read. Takes vg_devices_lock.
 */
static void vg_device_rename(struct ib_device *ibdev, void *client_data)
{
	struct vg_device *dev = client_data;
	int ret;

	mutex_lock(&vg_devices_lock);
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	ret = vg_device_ops->rename(dev);
	mutex_unlock(&vg_devices_lock);
	if (ret)
		pr_warn("%s: sysfs directory keeps its old name: %d\n",
			dev->name, ret);
}

struct ib_client vg_ib_client = {
	.name = "verbsgate",
	.add = vg_device_add,
	.remove = vg_device_remove,
	.rename = vg_device_rename,
};

/*
 * Process context (module init). Calls vg_device_add() for every device,
 * then waits for their port queries, so that the settings of the devices
 * present at load time are final when the module is ready. @ops stays
 * in use until vg_devices_exit() returns.
 */
int vg_devices_init(const struct vg_device_ops *ops)
{
	int ret;

	vg_device_ops = ops;
	vg_wq = alloc_workqueue("verbsgate", 0, 0);
	if (!vg_wq)
		return -ENOMEM;
	ret = ib_register_client(&vg_ib_client);
	if (ret) {
		destroy_workqueue(vg_wq);
		return ret;
	}
	flush_workqueue(vg_wq);
	return 0;
}

/*
 * Process context (module exit). ib_unregister_client() calls
 * vg_device_remove() for every attached device and waits for callbacks in
 * flight, so no ib_core callback runs module code after it returns.
 */
void vg_devices_exit(void)
{
	WRITE_ONCE(vg_devices_exiting, true);
	ib_unregister_client(&vg_ib_client);
	WARN_ON(!xa_empty(&vg_devices));
	destroy_workqueue(vg_wq);
}
