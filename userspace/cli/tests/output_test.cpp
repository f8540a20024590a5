// SPDX-License-Identifier: GPL-2.0-only
// What the CLI prints for replies as the kernel sends them, byte for byte
// as tests/golden/output.tsv recorded it before the field tables (one line
// a case: its name, a tab, the output as a JSON string).
#include "device.h"
#include "json.h"
#include "qp.h"
#include "replies.h"
#include "tenant.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

using namespace vg;
using namespace vg::test;

namespace {

std::map<std::string, std::string> golden()
{
	std::ifstream in(VG_CLI_TEST_DIR "/golden/output.tsv");
	std::map<std::string, std::string> out;
	std::string line;

	while (std::getline(in, line)) {
		size_t tab = line.find('\t');
		out[line.substr(0, tab)] = line.substr(tab + 1);
	}
	return out;
}

template <typename Fn>
std::string json_of(Fn fn)
{
	JsonWriter w;

	fn(w);
	return w.str();
}

// Every case of the golden file, as the CLI prints it now.
std::map<std::string, std::string> now()
{
	std::map<std::string, std::string> out;
	auto put = [&](const std::string &k, const std::string &v) {
		out[k] = JsonWriter::escape(v);	// quoted
	};

	for (uint32_t sel = 0; sel <= 4; sel++)
	for (int cfg = 0; cfg < 2; cfg++)
	for (int st = 0; st < 2; st++)
	for (uint64_t min : {0ull, 50000000ull}) {
		Msg msg;
		put_tenant(msg.m.get(), sel, cfg, st, min);
		Tenant t = decode(tenant_table(), attrs_of(msg).data());
		std::string k = "tenant/" + std::to_string(sel) + "/" +
				std::to_string(cfg) + "/" + std::to_string(st) +
				"/" + std::to_string(min);
		put(k + "/text", tenant_text(t));
		put(k + "/json", json_of([&](JsonWriter &w) { tenant_json(w, t); }));
		if (st)	// as `stats` prints a tenant
			put(k + "/stats", "tenant " + t.name + ":" +
				text(tenant_table(), t, kTenantQps | kTenantStats));
	}
	{	// every QP bound set
		Msg msg;
		put_tenant(msg.m.get(), VERBSGATE_SEL_CGROUP, true, true,
			   50000000, true);
		Tenant t = decode(tenant_table(), attrs_of(msg).data());
		put("tenant/bounds/text", tenant_text(t));
		put("tenant/bounds/json",
		    json_of([&](JsonWriter &w) { tenant_json(w, t); }));
	}
	{	// and a control verb pace
		Msg msg;
		put_tenant(msg.m.get(), VERBSGATE_SEL_CGROUP, true, true,
			   50000000, true, true);
		Tenant t = decode(tenant_table(), attrs_of(msg).data());
		put("tenant/paced/text", tenant_text(t));
		put("tenant/paced/json",
		    json_of([&](JsonWriter &w) { tenant_json(w, t); }));
	}
	for (uint64_t p99 : {0ull, 8000ull}) {
		Msg msg;
		put_device(msg.m.get(), p99);
		Device d = decode(device_table(), attrs_of(msg).data());
		std::string k = "dev/" + std::to_string(p99);
		put(k + "/text0", dev_text(d, false));
		put(k + "/text1", dev_text(d, true));
		put(k + "/json0", json_of([&](JsonWriter &w) { dev_json(w, d, false); }));
		put(k + "/json1", json_of([&](JsonWriter &w) { dev_json(w, d, true); }));
		// as `stats -s` prints a device
		put(k + "/statsjson", json_of([&](JsonWriter &w) {
			json(w, device_table(), d, kDevKey | kDevState);
		}));
		put(k + "/stats", "dev " + d.name + ":" +
				  text(device_table(), d, kDevState));
	}
	for (uint32_t e = 0; e <= 3; e++)
	for (uint32_t r : {0u, 1u, 8u, 9u})
	for (int tenant = 0; tenant < 2; tenant++) {
		Msg msg;
		put_qp(msg.m.get(), e, r, tenant);
		Qp q = decode(qp_table(), attrs_of(msg).data());
		std::string k = "qp/" + std::to_string(e) + "/" +
				std::to_string(r) + "/" + std::to_string(tenant);
		put(k + "/text0", qp_text(q, false));
		put(k + "/text1", qp_text(q, true));
		put(k + "/json", json_of([&](JsonWriter &w) { qp_json(w, q); }));
	}
	return out;
}

}  // namespace

TEST(Output, SameBytesAsBeforeTheTables)
{
	auto want = golden();
	auto got = now();

	ASSERT_EQ(want.size(), 212u);
	for (const auto &[k, v] : want)
		EXPECT_EQ(got[k], v) << k;
	EXPECT_EQ(got.size(), want.size());
}
