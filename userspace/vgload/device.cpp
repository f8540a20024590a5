// SPDX-License-Identifier: GPL-2.0-only
#include "device.h"

#include <cstring>
#include <vector>

#include "gid.h"

namespace vgload {

static const char *gid_type_name(unsigned t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	}
	return "?";
}

DeviceRecord Device::record() const
{
	DeviceRecord r;

	r.name = name;
	r.port = port;
	r.gid_index = gid_index;
	r.gid = gid_to_string(gid.raw);
	r.gid_type = gid_type;
	r.port_state = port_state_name(port_attr.state);
	r.active_mtu = active_mtu_bytes();
	r.max_msg_sz = port_attr.max_msg_sz;
	r.max_mr_size = attr.max_mr_size;
	r.max_qp = attr.max_qp;
	r.max_qp_wr = attr.max_qp_wr;
	r.max_cq = attr.max_cq;
	r.max_cqe = attr.max_cqe;
	r.max_mr = attr.max_mr;
	r.max_pd = attr.max_pd;
	r.max_sge = attr.max_sge;
	r.max_qp_rd_atom = attr.max_qp_rd_atom;
	r.max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
	r.atomic_cap = atomic_cap_name(attr.atomic_cap);
	r.fw_ver = attr.fw_ver;
	return r;
}

int Device::active_mtu_bytes() const
{
	return mtu_bytes(port_attr.active_mtu);
}

static bool port_active(ibv_context *ctx, int port)
{
	ibv_port_attr pa;

	return ibv_query_port(ctx, uint8_t(port), &pa) == 0 &&
	       pa.state == IBV_PORT_ACTIVE;
}

static int pick_gid(Device &d, std::string &type)
{
	std::string seen;
	int fallback = -1;

	for (int i = 0; i < d.port_attr.gid_tbl_len; i++) {
		ibv_gid_entry e;

		// Empty slots return ENODATA/EINVAL: skip them.
		if (ibv_query_gid_ex(d.ctx.get(), uint32_t(d.port), uint32_t(i),
				     &e, 0))
			continue;
		if (gid_is_zero(e.gid.raw))
			continue;
		seen += "\n  " + std::to_string(i) + ": " +
			gid_to_string(e.gid.raw) + " (" +
			gid_type_name(e.gid_type) + ")";
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    gid_is_ipv4_mapped(e.gid.raw)) {
			type = gid_type_name(e.gid_type);
			return i;
		}
		if (e.gid_type == IBV_GID_TYPE_IB && fallback < 0) {
			fallback = i;
			type = gid_type_name(e.gid_type);
		}
	}
	if (fallback >= 0)
		return fallback;
	throw RunError("no RoCE v2 IPv4-mapped GID on " + d.name + " port " +
		       std::to_string(d.port) +
		       " (does its netdev have an IPv4 address?); GID table:" +
		       (seen.empty() ? std::string(" empty") : seen) +
		       "\nchoose one with --gid-index");
}

Device open_device(const std::string &name, int port, int gid_index)
{
	int n = 0;
	DeviceListPtr list(ibv_get_device_list(&n));

	if (!list)
		throw_verb("ibv_get_device_list", errno,
			   "is the RDMA stack (ib_uverbs) loaded?");
	if (n == 0)
		throw RunError("no RDMA devices found (for Soft-RoCE: modprobe rdma_rxe; "
			       "rdma link add rxe0 type rxe netdev <if>)");

	Device d;
	std::string names;

	for (int i = 0; i < n && !d.ctx; i++) {
		const char *dn = ibv_get_device_name(list.get()[i]);

		names += std::string(names.empty() ? "" : ", ") + dn;
		if (!name.empty() && name != dn)
			continue;
		ContextPtr ctx(ibv_open_device(list.get()[i]));

		if (!ctx) {
			if (!name.empty())
				throw_verb(std::string("ibv_open_device(") + dn + ")",
					   errno);
			continue;
		}
		if (name.empty() && !port_active(ctx.get(), port))
			continue;
		d.ctx = std::move(ctx);
		d.name = dn;
	}
	if (!d.ctx)
		throw RunError(name.empty() ?
				       "no RDMA device has port " + std::to_string(port) +
					       " ACTIVE (devices: " + names + ")" :
				       "RDMA device '" + name + "' not found (devices: " +
					       names + ")");
	d.port = port;

	int rc = ibv_query_device(d.ctx.get(), &d.attr);

	if (rc)
		throw_verb("ibv_query_device", verbs_errno(rc));
	rc = ibv_query_port(d.ctx.get(), uint8_t(port), &d.port_attr);
	if (rc)
		throw_verb("ibv_query_port(" + std::to_string(port) + ")",
			   verbs_errno(rc),
			   d.name + " has " + std::to_string(d.attr.phys_port_cnt) +
				   " port(s)");
	if (d.port_attr.state != IBV_PORT_ACTIVE)
		throw RunError(d.name + " port " + std::to_string(port) + " is " +
			       port_state_name(d.port_attr.state) +
			       ", not ACTIVE (is its netdev up?)");

	if (gid_index >= 0) {
		ibv_gid_entry e;

		rc = ibv_query_gid_ex(d.ctx.get(), uint32_t(port),
				      uint32_t(gid_index), &e, 0);
		if (rc)
			throw_verb("ibv_query_gid_ex(index " +
					   std::to_string(gid_index) + ")",
				   verbs_errno(rc),
				   "the GID table has " +
					   std::to_string(d.port_attr.gid_tbl_len) +
					   " entries; omit --gid-index to auto-select");
		d.gid_index = gid_index;
		d.gid_type = gid_type_name(e.gid_type);
	} else {
		d.gid_index = pick_gid(d, d.gid_type);
	}
	rc = ibv_query_gid(d.ctx.get(), uint8_t(port), d.gid_index, &d.gid);
	if (rc)
		throw_verb("ibv_query_gid", verbs_errno(rc));
	return d;
}

}  // namespace vgload
