// SPDX-License-Identifier: GPL-2.0-only
// What spans the objects' tables: the policy replies are checked against,
// and the CLI's names of the attributes in a request.
#pragma once

#include "field.h"

#include <cstdint>
#include <string>
#include <vector>

struct nlmsghdr;

namespace vg {

// The top-level attributes of every table, each once.
const std::vector<AttrInfo> &top_attrs();

// Types of the reply attributes, indexed by type up to VERBSGATE_ATTR_MAX;
// libnl checks each against it. Types newer than the uapi header are
// skipped (replies may grow).
nla_policy *reply_policy();

// Where in a request an attribute sits: the CLI keyword of the attribute
// at byte offset `offset` of the message `nlh` (as the kernel's extended
// ack reports it), or "" if none is there.
std::string attr_name_at(const nlmsghdr *nlh, uint32_t offset);

}  // namespace vg
