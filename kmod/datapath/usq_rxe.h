/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: registration as the send queue policy of a patched rdma_rxe
 * (usq_rxe.c).
 */
#ifndef _VG_USQ_RXE_H
#define _VG_USQ_RXE_H

struct ib_device;
struct vg_device;

bool vg_rxe_device(const struct ib_device *ibdev);
void vg_rxe_attach(struct vg_device *dev);
void vg_rxe_detach(struct vg_device *dev);
bool vg_rxe_governs(const struct ib_device *ibdev);
const char *vg_rxe_policy_state(void);

#endif /* _VG_USQ_RXE_H */
