// SPDX-License-Identifier: GPL-2.0-only
#include "status.h"

namespace vg {

// The text (`verbsgate X loaded, N devices`) is cmd_status's own.
const Table<Status> &status_table()
{
	static const Table<Status> t = {
		row(VERBSGATE_ATTR_VERSION, &Status::version).key("version"),
		row(VERBSGATE_ATTR_DEV_COUNT, &Status::devices).key("devices"),
	};
	return t;
}

}  // namespace vg
