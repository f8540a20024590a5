// SPDX-License-Identifier: GPL-2.0-only
//
// Native tests of the policy core under ASan and UBSan: every kind of bad
// input is rejected with its specific error, and the main paths run clean.
// The exhaustive property tests are the KUnit suites (tests/kunit/), which
// also run natively as vg_core_kunit_native.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "vg_core.hpp"

namespace {

// Caller-provided memory, as the kernel glue's kvzalloc() would give.
struct Sched {
  explicit Sched(u32 tenants, u32 qps, u64 capacity = 0) {
    cfg.max_tenants = tenants;
    cfg.max_qps = qps;
    cfg.capacity = capacity;
    mem.resize(vg_sched_mem_size(&cfg) / 8 + 1);
    EXPECT_EQ(vg_sched_init(&s, &cfg, mem.data(), mem.size() * 8), 0);
  }
  u32 tenant(u32 weight, u32 tclass = VG_CLASS_BANDWIDTH) {
    vg_tenant_cfg tc{};
    tc.weight = weight;
    tc.tclass = tclass;
    u32 id = VG_SCHED_NONE;
    EXPECT_EQ(vg_sched_tenant_add(&s, &tc, &id), 0);
    return id;
  }
  u32 qp(u32 tenant, u32 weight = 1) {
    u32 id = VG_SCHED_NONE;
    EXPECT_EQ(vg_sched_qp_add(&s, tenant, weight, &id), 0);
    return id;
  }
  vg_sched_cfg cfg{};
  vg_sched s{};
  std::vector<u64> mem;
};

TEST(Window, BadInput) {
  EXPECT_EQ(vg_window_size(0), 0u);
  EXPECT_EQ(vg_window_size(VG_WIN_MAX_CAP + 1), 0u);
  std::vector<u64> mem(vg_window_size(10) / 8 + 1);
  auto *w = reinterpret_cast<vg_window *>(mem.data());
  EXPECT_EQ(vg_window_init(w, 0), -EINVAL);
  EXPECT_EQ(vg_window_init(w, UINT32_MAX), -EINVAL);
  ASSERT_EQ(vg_window_init(w, 10), 0);
  u64 v = 0;
  EXPECT_EQ(vg_window_quantile(w, 500000, &v), -ENODATA);
  vg_window_insert(w, 1);
  EXPECT_EQ(vg_window_quantile(w, VG_PPM + 1, &v), -EINVAL);
  const u32 unsorted[] = {999000, 990000};
  u64 out[2];
  EXPECT_EQ(vg_window_quantiles(w, unsorted, out, 2), -EINVAL);
}

TEST(Window, ExtremesAndPercentiles) {
  std::vector<u64> mem(vg_window_size(VG_WIN_DEFAULT_CAP) / 8 + 1);
  auto *w = reinterpret_cast<vg_window *>(mem.data());
  ASSERT_EQ(vg_window_init(w, VG_WIN_DEFAULT_CAP), 0);
  vg_window_insert(w, 0);
  vg_window_insert(w, UINT64_MAX);
  u64 v = 0;
  ASSERT_EQ(vg_window_quantile(w, VG_PPM, &v), 0);
  EXPECT_GE(v, UINT64_MAX - (UINT64_MAX >> (VG_WIN_SUB_BITS + 1)));
  ASSERT_EQ(vg_window_quantile(w, 0, &v), 0);
  EXPECT_EQ(v, 0u);

  // 30000 samples 1..30000 us: the window keeps the last 10000.
  for (u64 i = 1; i <= 30000; i++)
    vg_window_insert(w, i * 1000);
  const u32 q[] = {500000, 990000, 999000};
  u64 out[3];
  ASSERT_EQ(vg_window_quantiles(w, q, out, 3), 0);
  const u64 want[] = {25000000, 29900000, 29990000};
  for (int i = 0; i < 3; i++) {
    EXPECT_LE(out[i], want[i] + (want[i] >> 8));
    EXPECT_GE(out[i], want[i] - (want[i] >> 8));
  }
}

TEST(Split, BadInput) {
  std::vector<vg_sge> sg(VG_MAX_SGE + 1, vg_sge{0x1000, 4096, 1});
  vg_wr wr{};
  wr.opcode = VG_OP_WRITE;
  wr.sg_list = sg.data();
  wr.num_sge = 1;
  vg_split sp;
  EXPECT_EQ(vg_split_init(&sp, &wr, 0), -EINVAL);
  EXPECT_EQ(vg_split_init(&sp, &wr, UINT32_MAX), -ERANGE);
  wr.num_sge = VG_MAX_SGE + 1;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -E2BIG);
  for (auto &s : sg)
    s.length = UINT32_MAX;
  wr.num_sge = VG_MAX_SGE;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EMSGSIZE);
  sg[0] = vg_sge{UINT64_MAX - 10, 100, 1};
  wr.num_sge = 1;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EOVERFLOW);
  sg[0] = vg_sge{0, 100, 1};
  wr.remote_addr = UINT64_MAX - 10;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EOVERFLOW);
  wr.remote_addr = 0;
  wr.opcode = VG_OP_NR;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EINVAL);
  wr.opcode = VG_OP_WRITE;
  wr.flags = 1u << 31;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EINVAL);
  wr.flags = 0;
  wr.sg_list = nullptr;
  EXPECT_EQ(vg_split_init(&sp, &wr, 4096), -EINVAL);
}

TEST(Split, LargestMessageAcrossSges) {
  // 2^31 bytes over 32 SGEs, the last one ending at the top of memory.
  const u32 n = 32;
  std::vector<vg_sge> sg(n);
  for (u32 i = 0; i < n; i++)
    sg[i] = vg_sge{0x100000000ull * (i + 1), 1u << 26, i};
  sg.back().addr = UINT64_MAX - (1u << 26) + 1;
  vg_wr wr{};
  wr.opcode = VG_OP_READ;
  wr.sg_list = sg.data();
  wr.num_sge = n;
  wr.remote_addr = UINT64_MAX - VG_MAX_MSG + 1;
  wr.wr_id = 42;
  wr.flags = VG_WR_SIGNALED;
  vg_split sp;
  ASSERT_EQ(vg_split_init(&sp, &wr, 3000000), 0);
  vg_chunk c;
  vg_sge out[n];
  u64 bytes = 0, chunks = 0, remote = wr.remote_addr;
  while (vg_split_next(&sp, &c, out)) {
    EXPECT_EQ(c.remote_addr, remote);
    remote += c.length;
    bytes += c.length;
    chunks++;
    EXPECT_EQ(c.wr_id, c.last ? 42u : 0u);
  }
  EXPECT_EQ(bytes, VG_MAX_MSG);
  EXPECT_EQ(chunks, vg_split_count(&sp));
  EXPECT_EQ(remote, 0u);  // wrapped exactly to 2^64
}

TEST(Pacer, BadInputAndMainPath) {
  vg_pacer_cfg cfg{};
  vg_pacer p;
  cfg.byte_rate = VG_RATE_MAX + 1;
  EXPECT_EQ(vg_pacer_init(&p, &cfg, 0), -ERANGE);
  cfg.byte_rate = 1000000000;
  cfg.op_rate = 1000000;
  cfg.burst_bytes = VG_COST_MAX + 1;
  EXPECT_EQ(vg_pacer_init(&p, &cfg, 0), -ERANGE);
  cfg.burst_bytes = 65536;
  ASSERT_EQ(vg_pacer_init(&p, &cfg, 0), 0);
  EXPECT_EQ(vg_pacer_set_rates(&p, 1, VG_RATE_MAX + 1), -ERANGE);

  vg_cost_model m;
  vg_cost_model_default(&m);
  EXPECT_EQ(vg_cost_model_set(&m, VG_OPC_NR, 0, 1), -EINVAL);
  EXPECT_EQ(vg_cost_model_set(&m, VG_OPC_DATA, 0, 0), -EINVAL);
  EXPECT_EQ(vg_cost_model_set(&m, VG_OPC_DATA, VG_OP_BYTES_MAX + 1, 1),
            -ERANGE);
  u64 now = 0, sent = 0;
  while (now < 10000000) {  // 10 ms
    vg_token t;
    vg_cost(&m, VG_OP_WRITE, 5120, 1024, &t);
    now = std::max(now, vg_pacer_next(&p));
    vg_pacer_charge(&p, now, &t);
    sent += t.bytes;
  }
  EXPECT_NEAR(static_cast<double>(sent), 1e7, 65536 + 2 * 5320);
  // Extremes: the largest cost at the lowest rate, then the highest rate.
  ASSERT_EQ(vg_pacer_set_rates(&p, 1, 1), 0);
  vg_token big{VG_COST_MAX, UINT32_MAX};
  vg_pacer_charge(&p, now, &big);
  EXPECT_GT(vg_pacer_next(&p), now);
  ASSERT_EQ(vg_pacer_set_rates(&p, VG_RATE_MAX, VG_RATE_MAX), 0);
  vg_pacer_charge(&p, UINT64_MAX >> 2, &big);
}

TEST(Sched, BadInput) {
  vg_sched_cfg cfg{};
  vg_sched s;
  char mem[16];
  EXPECT_EQ(vg_sched_mem_size(&cfg), 0u);
  EXPECT_EQ(vg_sched_init(&s, &cfg, mem, sizeof(mem)), -EINVAL);
  cfg.max_tenants = VG_MAX_TENANTS + 1;
  cfg.max_qps = 1;
  EXPECT_EQ(vg_sched_init(&s, &cfg, mem, sizeof(mem)), -ERANGE);
  cfg.max_tenants = 1;
  EXPECT_EQ(vg_sched_init(&s, &cfg, mem, sizeof(mem)), -EINVAL);

  Sched t(2, 1, 100);
  vg_tenant_cfg tc{};
  u32 id;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -EINVAL);  // weight 0
  tc.weight = VG_WEIGHT_MAX + 1;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -ERANGE);  // overflow
  tc.weight = UINT32_MAX;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -ERANGE);
  tc.weight = 1;
  tc.tclass = 7;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -EINVAL);
  tc.tclass = VG_CLASS_THROUGHPUT;
  tc.min_rate = 101;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -EDQUOT);
  tc.min_rate = 2;
  tc.max_rate = 1;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -EINVAL);
  tc.min_rate = 0;
  tc.max_rate = UINT64_MAX;
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -ERANGE);
  tc.max_rate = 0;
  u32 a = t.tenant(1), b = t.tenant(VG_WEIGHT_MAX);
  EXPECT_EQ(vg_sched_tenant_add(&t.s, &tc, &id), -ENOSPC);  // too many
  u32 q = t.qp(a);
  EXPECT_EQ(vg_sched_qp_add(&t.s, b, 1, &id), -ENOSPC);
  EXPECT_EQ(vg_sched_qp_add(&t.s, 5, 1, &id), -ENOENT);
  EXPECT_EQ(vg_sched_tenant_del(&t.s, a), -EBUSY);
  EXPECT_EQ(vg_sched_charge(&t.s, q, 1, 0, true), -EINVAL);
  EXPECT_EQ(vg_sched_activate(&t.s, UINT32_MAX, 0), -ENOENT);
  u32 pick;
  u64 next;
  EXPECT_EQ(vg_sched_pick(&t.s, 0, &pick, &next), -ENODATA);
}

// Main path: weighted shares, churn, deletion of active QPs.
TEST(Sched, MainPath) {
  Sched t(64, 1024);
  std::vector<u32> tenants, qps;
  for (u32 i = 0; i < 64; i++) {
    tenants.push_back(t.tenant(1 + i % 4));
    for (u32 j = 0; j < 16; j++) {
      qps.push_back(t.qp(tenants.back(), 1 + j % 3));
      ASSERT_EQ(vg_sched_activate(&t.s, qps.back(), 0), 0);
    }
  }
  u64 total = 0;
  for (int i = 0; i < 200000; i++) {
    u32 qp;
    u64 next;
    ASSERT_EQ(vg_sched_pick(&t.s, 0, &qp, &next), 0);
    bool more = i % 5 != 0;
    ASSERT_EQ(vg_sched_charge(&t.s, qp, 5320, 0, more), 0);
    if (!more) {
      ASSERT_EQ(vg_sched_activate(&t.s, qp, 0), 0);
    }
    total += 5320;
  }
  for (u32 i = 0; i < 64; i++) {
    double share = static_cast<double>(t.s.tenants[tenants[i]].served) /
                   static_cast<double>(total);
    EXPECT_NEAR(share, (1 + i % 4) / 160.0, 0.02 * (1 + i % 4) / 160.0);
  }
  for (u32 q : qps) {
    ASSERT_EQ(vg_sched_qp_del(&t.s, q), 0);
  }
  for (u32 id : tenants) {
    ASSERT_EQ(vg_sched_tenant_del(&t.s, id), 0);
  }
  u32 qp;
  u64 next;
  EXPECT_EQ(vg_sched_pick(&t.s, 0, &qp, &next), -ENODATA);
}

// QPs move between tenants in the pattern that made the former segment
// pool compact under the caller's lock: the pool fills across tenants, the
// middle QPs go, another tenant takes their slots (two directory levels).
// No call writes more than one QP heap entry per level or takes or returns
// more than three blocks, no add below max_qps fails, and the shares still
// follow the weights.
TEST(Sched, QpsMoveBetweenTenants) {
  // 1 + 4 + ... + 4^5 < 4096 <= 1 + ... + 4^6: a heap of 7 levels.
  constexpr u32 kTenants = 8, kQps = 4096, kLevels = 7;
  Sched t(kTenants, kQps);
  for (u32 i = 0; i < kTenants; i++) t.tenant(1 + i % 4);
  u64 moved = t.s.qmoved, blocks = t.s.qblocks;
  auto bounded = [&] {
    EXPECT_LE(t.s.qmoved - moved, kLevels);
    EXPECT_LE(t.s.qblocks - blocks, 3u);
    moved = t.s.qmoved;
    blocks = t.s.qblocks;
  };
  for (u32 i = 0; i < kQps; i++) {
    t.qp(i % (kTenants - 1));
    bounded();
  }
  for (u32 q = kQps / 4; q < kQps / 4 * 3; q++) {
    ASSERT_EQ(vg_sched_qp_del(&t.s, q), 0);
    bounded();
  }
  while (t.s.nqps < kQps) {
    t.qp(kTenants - 1);
    bounded();
  }
  EXPECT_EQ(t.s.tenants[kTenants - 1].qdepth, 2u);
  for (u32 q = 0; q < kQps; q++) {
    ASSERT_EQ(vg_sched_activate(&t.s, q, 0), 0);
    bounded();
  }
  u64 total = 0;
  for (int i = 0; i < 100000; i++) {
    u32 qp;
    u64 next;
    ASSERT_EQ(vg_sched_pick(&t.s, 0, &qp, &next), 0);
    ASSERT_EQ(vg_sched_charge(&t.s, qp, 5320, 0, true), 0);
    bounded();
    total += 5320;
  }
  for (u32 i = 0; i < kTenants; i++) {
    double share = static_cast<double>(t.s.tenants[i].served) /
                   static_cast<double>(total);
    double want = (1 + i % 4) / 20.0;
    EXPECT_NEAR(share, want, 0.02 * want) << "tenant " << i;
  }
  for (u32 q = 0; q < kQps; q++) {
    ASSERT_EQ(vg_sched_qp_del(&t.s, q), 0);
    bounded();
  }
  EXPECT_EQ(t.s.nqblk_free, t.s.qpool_cap);
}

TEST(Ctrl, BadInputAndMainPath) {
  vg_ctrl_cfg cfg;
  vg_ctrl c;
  vg_ctrl_default_cfg(&cfg, 12500000000ull, 30000000, 1u << 30);
  cfg.chunk_nolat = 0;
  EXPECT_EQ(vg_ctrl_init(&c, &cfg, 0), -EINVAL);  // chunk size 0
  cfg.chunk_nolat = (1u << 30) + 1;
  EXPECT_EQ(vg_ctrl_init(&c, &cfg, 0), -ERANGE);  // above device maximum
  cfg.chunk_nolat = 1u << 20;
  cfg.table[0].chunk = 0;
  EXPECT_EQ(vg_ctrl_init(&c, &cfg, 0), -EINVAL);
  cfg.table[0].chunk = UINT32_MAX;
  EXPECT_EQ(vg_ctrl_init(&c, &cfg, 0), -ERANGE);
  cfg.table[0].chunk = 5120;
  cfg.ntable = VG_CTRL_MAX_TABLE + 1;
  EXPECT_EQ(vg_ctrl_init(&c, &cfg, 0), -E2BIG);
  cfg.ntable = 1;
  cfg.target_p99_ns = 8000;
  ASSERT_EQ(vg_ctrl_init(&c, &cfg, 0), 0);
  EXPECT_EQ(c.chunk, 1u << 20);

  Sched t(8, 8);
  t.tenant(1, VG_CLASS_BANDWIDTH);
  t.tenant(1, VG_CLASS_THROUGHPUT);
  t.tenant(1, VG_CLASS_LATENCY);
  t.tenant(1, VG_CLASS_LATENCY);
  vg_class_weights cw;
  vg_sched_class_weights(&t.s, &cw);
  vg_ctrl_set_weights(&c, &cw);
  EXPECT_EQ(c.rmin, 12500000000ull * 2 / 3);
  EXPECT_EQ(c.chunk, 5120u);
  u64 now = 0;
  for (int i = 0; i < 1000; i++) {
    now += cfg.period_ns;
    vg_ctrl_update(&c, now, i % 3 ? 20000 : 1000);
    ASSERT_GE(c.safe, c.rmin);
    ASSERT_LE(c.safe, cfg.max_rate);
  }
  EXPECT_GT(c.decreases, 0u);
  EXPECT_GT(c.increases, 0u);
  EXPECT_GE(vg_ctrl_op_rate(&c), 1u);
}

}  // namespace
