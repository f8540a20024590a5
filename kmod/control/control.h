/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the control plane's hooks into the layers below it.
 *
 * The tenant registry (tenant/) and the device registry (datapath/) call
 * upward only through these tables, which main.c hands them at init: the
 * folders then depend on each other in one direction only, core <- tenant
 * <- datapath <- control.
 */
#ifndef _VG_CONTROL_H
#define _VG_CONTROL_H

#include "datapath/device.h"
#include "tenant/tenant.h"

extern const struct vg_tenant_ops vg_control_tenant_ops;
extern const struct vg_device_ops vg_control_device_ops;

#endif /* _VG_CONTROL_H */
