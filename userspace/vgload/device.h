// SPDX-License-Identifier: GPL-2.0-only
// Device, port and GID selection, and the device limits a run must respect.
#pragma once

#include <string>

#include "report.h"
#include "verbs.h"

namespace vgload {

struct Device {
	ContextPtr ctx;
	std::string name;
	int port = 1;
	int gid_index = 0;
	ibv_gid gid{};
	std::string gid_type;
	ibv_device_attr attr{};
	ibv_port_attr port_attr{};

	DeviceRecord record() const;
	int active_mtu_bytes() const;
};

// Opens `name` (or the first device whose port is ACTIVE), checks the port
// and picks the GID: `gid_index` if >= 0, else the RoCE v2 IPv4-mapped GID
// (on rxe: the veth's IPv4 address), else index 0 on InfiniBand.
Device open_device(const std::string &name, int port, int gid_index);

}  // namespace vgload
