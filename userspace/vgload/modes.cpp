// SPDX-License-Identifier: GPL-2.0-only
#include "modes.h"


namespace vgload {

// Sizes are scaled to what rxe under QEMU TCG sustains; Husky's hardware
// settings are noted for comparison.
const std::vector<ModeInfo> &all_modes()
{
	static const std::vector<ModeInfo> modes = {
		{ Mode::Traffic, "traffic",
		  "workload exactly as configured (victims)", {} },
		{ Mode::Bw, "bw",
		  "1 MB WRITE stream, bandwidth hog (Husky BW attack)",
		  { { "op", "write" }, { "size", "1M" }, { "depth", "8" } } },
		{ Mode::SmallFlood, "small-flood",
		  "129 B WRITE flood just above a boundary; try --size 257 (Husky PCIe attack)",
		  { { "op", "write" }, { "size", "129" }, { "qps", "2" },
		    { "depth", "32" }, { "post-list", "8" } } },
		{ Mode::AtomicFlood, "atomic-flood",
		  "fetch-and-add flood; --op cas for compare-and-swap (Husky key finding #2)",
		  { { "op", "faa" }, { "qps", "2" }, { "depth", "16" } } },
		{ Mode::Rnr, "rnr",
		  "RC SENDs into QPs with no receives, rnr_retry=7, min_rnr_timer=1 (Husky key finding #3)",
		  { { "op", "send" }, { "qp-type", "rc" }, { "size", "4K" },
		    { "depth", "1" }, { "no-recv", "" }, { "rnr-retry", "7" },
		    { "min-rnr-timer", "1" } } },
		{ Mode::NoRecv, "no-recv",
		  "UC (or --qp-type ud) SENDs into QPs with no receives (Husky PU attack)",
		  { { "op", "send" }, { "qp-type", "uc" }, { "size", "512" },
		    { "depth", "64" }, { "no-recv", "" } } },
		{ Mode::Wide, "wide",
		  "many QPs x many MRs, one outstanding each, random MR (Husky cache attack)",
		  { { "op", "write" }, { "size", "256" }, { "qps", "128" },
		    { "mrs", "2048" }, { "mr-size", "4K" }, { "depth", "1" },
		    { "access", "random" } } },
		{ Mode::MrStorm, "mr-storm",
		  "register then deregister --mrs MRs of --mr-size in a loop (Husky key finding #1); local, no server",
		  { { "mrs", "64" }, { "mr-size", "64K" } } },
		{ Mode::QpStorm, "qp-storm",
		  "create then destroy --qps QPs of --qp-type in a loop; local, no server",
		  { { "qps", "64" } } },
		{ Mode::CqStorm, "cq-storm",
		  "create then destroy --cqs CQs of --cq-size CQEs in a loop; local, no server",
		  { { "cqs", "64" }, { "cq-size", "256" } } },
		{ Mode::BlockRead, "block-read",
		  "O_DIRECT reads of --size from --file, --depth outstanding: an NVMe-over-RDMA "
		  "namespace's reader, to measure its target's kernel tenant; local, no server",
		  { { "size", "4K" }, { "access", "random" } } },
	};
	return modes;
}

const ModeInfo &mode_info(Mode m)
{
	for (const auto &mi : all_modes())
		if (mi.mode == m)
			return mi;
	return all_modes().front();
}

bool mode_from_name(const std::string &name, Mode &out)
{
	for (const auto &mi : all_modes()) {
		if (name == mi.name) {
			out = mi.mode;
			return true;
		}
	}
	return false;
}

void apply_mode_preset(Options &o)
{
	for (const auto &kv : mode_info(o.mode).preset) {
		if (o.was_given(kv.first))
			continue;
		// Not recorded in o.given: validation may still adjust a
		// preset value (e.g. size for atomics) without complaining.
		set_option(o, kv.first, kv.second);
	}
}

}  // namespace vgload
