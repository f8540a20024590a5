/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the RDMA devices verbsgate is attached to.
 */
#ifndef _VG_DEVICE_H
#define _VG_DEVICE_H

#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "ctrl.h"
#include "token.h"

#include "interpose.h"

/**
 * struct vg_device - verbsgate's state for one RDMA device
 * @kobj: /sys/kernel/verbsgate/devices/<name>/; its release frees the struct
 * @ibdev: the device; valid until vg_device_remove() for it has returned
 * @index: @ibdev->index, the key of the device registry
 * @ports: number of physical ports
 * @node_guid: node GUID in host byte order
 * @name: current device name; changes on rename, under vg_devices_lock
 * @driver: name of the module that registered @ibdev
 * @ipose: the interposed device operations and the QPs they track
 * @ctrl_lock: protects the fields below; a spinlock taken with
 *	spin_lock_bh(), because the controller will update them from a timer
 * @ctrl: settings (@ctrl.cfg: MaxRate, target, chunk table, ...) and the
 *	controller's state (Rmin, SafeUtil, chunk size); see devcfg.c
 * @cost: per-operation token cost
 * @step_auto: the AIMD step follows MaxRate (MaxRate / 256)
 * @max_rate_set: the operator set MaxRate (the port's rate no longer
 *	applies)
 * @enforce: verbsgate paces and splits this device's QPs
 * @ref_p99_ns: latest p99 of the reference flow, 0 before the first sample
 * @port_work: reads the port's rate and largest message after attaching
 *
 * Everything but @name, @kobj and the settings is fixed while the device
 * is attached.
 */
struct vg_device {
	struct kobject kobj;
	struct ib_device *ibdev;
	u32 index;
	u32 ports;
	u64 node_guid;
	char name[IB_DEVICE_NAME_MAX];
	char driver[MODULE_NAME_LEN];
	struct vg_interpose ipose;

	spinlock_t ctrl_lock;	/* the settings below */
	struct vg_ctrl ctrl;
	struct vg_cost_model cost;
	bool step_auto;
	bool max_rate_set;
	bool enforce;
	u64 ref_p99_ns;
	struct work_struct port_work;
};

extern struct workqueue_struct *vg_wq;

typedef int (*vg_device_fn)(struct vg_device *dev, void *arg);

int vg_devices_init(void);
void vg_devices_exit(void);

struct vg_device *vg_device_of(struct ib_device *ibdev);
u32 vg_device_count(void);
int vg_device_with(u32 index, const char *name, vg_device_fn fn, void *arg);
int vg_device_for_each(unsigned long *pos, vg_device_fn fn, void *arg);
void vg_device_lock(void);
void vg_device_unlock(void);

#endif /* _VG_DEVICE_H */
