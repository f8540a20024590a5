/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the "verbsgate" generic netlink family.
 */
#ifndef _VG_NETLINK_H
#define _VG_NETLINK_H

int vg_netlink_init(void);
void vg_netlink_exit(void);

#endif /* _VG_NETLINK_H */
