/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: debugfs view of the tracked QPs.
 */
#ifndef _VG_DEBUGFS_H
#define _VG_DEBUGFS_H

void vg_debugfs_init(void);
void vg_debugfs_exit(void);

#endif /* _VG_DEBUGFS_H */
