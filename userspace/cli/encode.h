// SPDX-License-Identifier: GPL-2.0-only
// Requests into netlink attributes (uapi/linux/verbsgate.h).
#pragma once

#include "requests.h"

struct nl_msg;

namespace vg {

// Each throws NetlinkError(EMSGSIZE) if the message has no room.
void put_tenant_name(nl_msg *m, const std::string &name);
void put_tenant_add(nl_msg *m, const TenantAdd &t);
void put_tenant_set(nl_msg *m, const TenantSet &t);
void put_dev_name(nl_msg *m, const std::string &dev);
void put_dev_set(nl_msg *m, const DevSet &d);
void put_qp_show(nl_msg *m, const QpShow &q);

}  // namespace vg
