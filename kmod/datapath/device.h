/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the RDMA devices verbsgate is attached to.
 *
 * The registry and its ib_client belong to the data path, which
 * interposes on each device; what the control plane keeps per device
 * (settings, sysfs directory, events) it hooks in through struct
 * vg_device_ops, so no file here includes control/.
 */
#ifndef _VG_DEVICE_H
#define _VG_DEVICE_H

#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "core/ctrl.h"
#include "core/token.h"

#include "interpose.h"

struct vg_qp;

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
 * @link_rate: each port's link rate in bytes/s, index 0 the first port,
 *	0 if unknown or not queried yet (the ports' pacers run at the same
 *	fraction of theirs, devcfg.c): @link_rate_set if set, else
 *	@port_rate
 * @port_rate: each port's rate as the device reports it, 0 if unknown
 * @link_rate_set: the ports' link rate as the operator set it, 0: none
 * @pkt_set: the operator set @cost's per-packet bytes (the link layer's
 *	default no longer applies)
 * @pkt_default: the link layer's per-packet bytes, 0 until the port is
 *	queried
 * @burst: depth of each port pacer's byte bucket, token bytes
 * @enforce: verbsgate paces and splits this device's QPs
 * @user_qps: enum verbsgate_user_qps: whether a process may create a QP
 *	that verbsgate cannot enforce (written under @ctrl_lock, read with
 *	READ_ONCE() by the create QP wrapper)
 * @ref_p99_ns: latest p99 of the reference flow, 0 before the first sample
 * @port_work: reads the port's rate and largest message after attaching
 * @remove_work: detaches a device whose removal left its wrappers in
 *	place (client.c)
 * @paced_ports_kobj: its paced_ports/ directory, NULL if the device is
 *	not shaped (control/sysfs.c)
 * @port_kobj: the directories in @paced_ports_kobj, one per port paced
 *	apart
 *
 * Everything but @name, @kobj, the settings and the port directories
 * (made once attached, removed before detaching) is fixed while the
 * device is attached.
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
	u64 link_rate[VG_SHAPER_MAX_PORTS];
	u64 port_rate[VG_SHAPER_MAX_PORTS];
	u64 link_rate_set;
	bool pkt_set;
	u32 pkt_default;
	u32 burst;
	bool enforce;
	u32 user_qps;
	u64 ref_p99_ns;
	struct work_struct port_work;
	struct work_struct remove_work;
	struct kobject *paced_ports_kobj;
	struct kobject *port_kobj[VG_SHAPER_MAX_PORTS];
};

/**
 * struct vg_device_ops - what the control plane does as devices come and go
 * @add: a device is being attached, before its operations are interposed:
 *	set up its settings and its sysfs directory, which takes ownership
 *	of @dev (on error @dev is freed and the device is not attached).
 *	Process context, under vg_devices_lock.
 * @attached: the wrappers are installed: publish the settings to the
 *	shaper, start the controller and show the ports' pacers. Process,
 *	under vg_devices_lock.
 * @detach: the device is out of the registry; its wrappers and shaper
 *	are still there: stop the controller, remove what reads the
 *	shaper. Process context, no lock.
 * @remove: the wrappers are gone: remove the directory, whose release
 *	frees @dev. Process context, no lock.
 * @rename: @dev->name changed. Process context, under vg_devices_lock.
 * @qp_classified: announce @q's classification (QP_CLASSIFIED event).
 *	Atomic: under vg_devices_lock and rcu_read_lock().
 * @events_wanted: whether anyone listens for @qp_classified, so the
 *	data path can skip the lookup. Any context.
 */
struct vg_device_ops {
	int (*add)(struct vg_device *dev);
	void (*attached)(struct vg_device *dev);
	void (*detach)(struct vg_device *dev);
	void (*remove)(struct vg_device *dev);
	int (*rename)(struct vg_device *dev);
	void (*qp_classified)(struct vg_device *dev, const struct vg_qp *q);
	bool (*events_wanted)(void);
};

/*
 * The registry's lock (kmod/lock_order.h). Visible for
 * lockdep_assert_held() in the callbacks that run under it; others take
 * it through vg_device_with(), vg_device_for_each() or vg_device_lock().
 */
extern struct mutex vg_devices_lock;
extern struct workqueue_struct *vg_wq;
extern const struct vg_device_ops *vg_device_ops;

/* Between the registry (device.c) and the ib_client (client.c) only. */
extern struct xarray vg_devices;
extern struct xarray vg_orphans;
extern struct ib_client vg_ib_client;

typedef int (*vg_device_fn)(struct vg_device *dev, void *arg);

/* client.c */
int vg_devices_init(const struct vg_device_ops *ops);
void vg_devices_exit(void);

/* device.c */
struct vg_device *vg_device_of(struct ib_device *ibdev);
u32 vg_device_count(void);
int vg_device_with(u32 index, const char *name, vg_device_fn fn, void *arg);
int vg_device_for_each(unsigned long *pos, vg_device_fn fn, void *arg);
void vg_device_lock(void);
void vg_device_unlock(void);

#endif /* _VG_DEVICE_H */
