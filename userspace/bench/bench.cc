// SPDX-License-Identifier: GPL-2.0-only
//
// Benchmarks of the policy core, built natively (make bench). Each
// iteration is one unit of work: one WR through the scheduler, one chunk
// out of the splitter, one sample into the window, one chunk through the
// pacer. Results and the machine are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "vg_core.hpp"

namespace {

constexpr u64 kChunkCost = 5120 + 200;  // a 5 KiB chunk plus per-op cost

// Chunk costs seen by the scheduler: half 5 KiB chunks, half small WRs.
std::vector<u64> MakeCosts() {
  std::vector<u64> c(4096);
  vg_prng r;
  vg_prng_seed(&r, 1);
  for (auto &x : c)
    x = vg_prng_range(&r, 0, 1) ? kChunkCost : 200 + vg_prng_range(&r, 16, 256);
  return c;
}

struct SchedFixture {
  SchedFixture(u32 tenants, u32 qps, bool active = true) {
    cfg.max_tenants = tenants;
    cfg.max_qps = qps;
    mem.resize(vg_sched_mem_size(&cfg) / 8 + 1);
    if (vg_sched_init(&s, &cfg, mem.data(), mem.size() * 8))
      abort();
    vg_prng r;
    vg_prng_seed(&r, 2);
    for (u32 t = 0; t < tenants; t++) {
      vg_tenant_cfg tc{};
      tc.weight = vg_prng_range(&r, 1, 100);
      u32 id;
      if (vg_sched_tenant_add(&s, &tc, &id))
        abort();
    }
    for (u32 q = 0; q < qps; q++) {
      u32 id;
      if (vg_sched_qp_add(&s, q % tenants, vg_prng_range(&r, 1, 4), &id) ||
          (active && vg_sched_activate(&s, id, 0)))
        abort();
    }
  }
  vg_sched_cfg cfg{};
  vg_sched s{};
  std::vector<u64> mem;
};

// One WR per iteration with every QP keeping a backlog: the enqueue finds
// the QP active (O(1)), the dequeue picks and charges it.
void BM_SchedWrBacklogged(benchmark::State &st) {
  SchedFixture f(st.range(0), st.range(1));
  auto costs = MakeCosts();
  u32 i = 0, qp;
  u64 next;
  for (auto _ : st) {
    vg_sched_activate(&f.s, i & (f.cfg.max_qps - 1), 0);  // enqueue a WR
    vg_sched_pick(&f.s, 0, &qp, &next);
    vg_sched_charge(&f.s, qp, costs[i++ & 4095], 0, true);
    benchmark::DoNotOptimize(qp);
  }
  st.SetItemsProcessed(st.iterations());
}

// Worst case: every WR empties its QP and the next WR reactivates it, so
// each iteration removes a QP from and reinserts it into both levels.
void BM_SchedWrChurn(benchmark::State &st) {
  SchedFixture f(st.range(0), st.range(1));
  auto costs = MakeCosts();
  u32 i = 0, qp;
  u64 next;
  for (auto _ : st) {
    vg_sched_pick(&f.s, 0, &qp, &next);
    vg_sched_charge(&f.s, qp, costs[i++ & 4095], 0, false);
    vg_sched_activate(&f.s, qp, 0);
    benchmark::DoNotOptimize(qp);
  }
  st.SetItemsProcessed(st.iterations());
}

// The post path of a device with nothing backlogged: every WR is sent at
// once, each by another idle QP, through vg_sched_send_idle() (range(2)
// = 1) or through the activate, pick and charge it stands for (0).
void BM_SchedWrIdle(benchmark::State &st) {
  SchedFixture f(st.range(0), st.range(1), false);
  const bool one_call = st.range(2);
  auto costs = MakeCosts();
  u32 i = 0, qp;
  u64 next;
  for (auto _ : st) {
    u32 q = (i * 40503u) & (f.cfg.max_qps - 1);
    u64 cost = costs[i++ & 4095];
    if (one_call) {
      vg_sched_send_idle(&f.s, q, cost, 0);
    } else {
      vg_sched_activate(&f.s, q, 0);
      vg_sched_pick(&f.s, 0, &qp, &next);
      vg_sched_charge(&f.s, qp, cost, 0, false);
    }
    benchmark::DoNotOptimize(q);
  }
  st.SetItemsProcessed(st.iterations());
}

// One chunk per iteration out of 1 MiB WRITEs cut into 5 KiB chunks,
// over range(0) SGEs.
void BM_SplitChunk(benchmark::State &st) {
  const u32 nsge = st.range(0);
  std::vector<vg_sge> sg(nsge);
  for (u32 i = 0; i < nsge; i++)
    sg[i] = vg_sge{0x10000000ull * (i + 1), (1u << 20) / nsge, i};
  vg_wr wr{};
  wr.opcode = VG_OP_WRITE_IMM;
  wr.sg_list = sg.data();
  wr.num_sge = nsge;
  wr.remote_addr = 0x7f0000000000ull;
  wr.flags = VG_WR_SIGNALED;
  vg_split sp;
  vg_chunk c;
  vg_sge out[VG_MAX_SGE];
  vg_split_init(&sp, &wr, 5120);
  for (auto _ : st) {
    if (!vg_split_next(&sp, &c, out)) {
      vg_split_init(&sp, &wr, 5120);
      vg_split_next(&sp, &c, out);
    }
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(out[0]);
  }
  st.SetItemsProcessed(st.iterations());
}

std::vector<u64> MakeLatencies() {
  std::vector<u64> v(1 << 16);
  vg_prng r;
  vg_prng_seed(&r, 3);
  for (auto &x : v)  // 15-40 us body, 1% tail to 300 ms
    x = vg_prng_range(&r, 0, 99) ? vg_prng_range(&r, 15000, 40000)
                                 : vg_prng_range(&r, 40000, 300000000);
  return v;
}

void BM_WindowInsert(benchmark::State &st) {
  std::vector<u64> mem(vg_window_size(VG_WIN_DEFAULT_CAP) / 8 + 1);
  auto *w = reinterpret_cast<vg_window *>(mem.data());
  vg_window_init(w, VG_WIN_DEFAULT_CAP);
  auto lat = MakeLatencies();
  u32 i = 0;
  for (auto _ : st) {
    vg_window_insert(w, lat[i++ & 0xffff]);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations());
}

// p50, p99 and p99.9 of a full 10000-sample window in one pass.
void BM_WindowQuantiles(benchmark::State &st) {
  std::vector<u64> mem(vg_window_size(VG_WIN_DEFAULT_CAP) / 8 + 1);
  auto *w = reinterpret_cast<vg_window *>(mem.data());
  vg_window_init(w, VG_WIN_DEFAULT_CAP);
  auto lat = MakeLatencies();
  for (u32 i = 0; i < 3 * VG_WIN_DEFAULT_CAP; i++)
    vg_window_insert(w, lat[i & 0xffff]);
  const u32 q[] = {500000, 990000, 999000};
  u64 out[3];
  for (auto _ : st) {
    vg_window_quantiles(w, q, out, 3);
    benchmark::DoNotOptimize(out);
  }
}

// The device pacer's work per chunk: next departure, then charge.
void BM_PacerChunk(benchmark::State &st) {
  vg_pacer_cfg cfg{};
  cfg.byte_rate = 12500000000ull;
  cfg.op_rate = 30000000;
  cfg.burst_bytes = 65536;
  cfg.burst_ops = 64;
  vg_pacer p;
  vg_pacer_init(&p, &cfg, 0);
  vg_cost_model m;
  vg_cost_model_default(&m);
  u64 now = 0;
  for (auto _ : st) {
    vg_token t;
    vg_cost(&m, VG_OP_WRITE, 5120, 1024, &t);
    u64 d = vg_pacer_next(&p);
    now = d > now ? d : now;
    vg_pacer_charge(&p, now, &t);
    benchmark::DoNotOptimize(now);
  }
  st.SetItemsProcessed(st.iterations());
}

void BM_CtrlUpdate(benchmark::State &st) {
  vg_ctrl_cfg cfg;
  vg_ctrl_default_cfg(&cfg, 12500000000ull, 30000000, 1u << 30);
  cfg.target_p99_ns = 8000;
  vg_ctrl c;
  vg_ctrl_init(&c, &cfg, 0);
  vg_class_weights cw{};
  cw.sum[VG_CLASS_BANDWIDTH] = 3;
  cw.count[VG_CLASS_BANDWIDTH] = 3;
  cw.sum[VG_CLASS_LATENCY] = 1;
  cw.count[VG_CLASS_LATENCY] = 1;
  cw.max_latency = 1;
  vg_ctrl_set_weights(&c, &cw);
  u64 now = 0;
  u32 i = 0;
  for (auto _ : st) {
    now += cfg.period_ns;
    benchmark::DoNotOptimize(vg_ctrl_update(&c, now, i++ % 3 ? 5000 : 9000));
  }
}

}  // namespace

// Every benchmark also reports the minimum over repetitions: on a shared
// machine the minimum is the least disturbed run.
double MinOf(const std::vector<double> &v) {
  return *std::min_element(v.begin(), v.end());
}

#define VG_BENCH(fn) BENCHMARK(fn)->ComputeStatistics("min", MinOf)

VG_BENCH(BM_SchedWrBacklogged)
    ->ArgNames({"tenants", "qps"})
    ->Args({1, 65536})
    ->Args({64, 65536})
    ->Args({4096, 65536});
VG_BENCH(BM_SchedWrChurn)
    ->ArgNames({"tenants", "qps"})
    ->Args({1, 65536})
    ->Args({64, 65536})
    ->Args({4096, 65536});
VG_BENCH(BM_SchedWrIdle)
    ->ArgNames({"tenants", "qps", "one_call"})
    ->Args({64, 65536, 0})
    ->Args({64, 65536, 1});
VG_BENCH(BM_SplitChunk)->ArgName("sges")->Arg(1)->Arg(8);
VG_BENCH(BM_WindowInsert);
VG_BENCH(BM_WindowQuantiles);
VG_BENCH(BM_PacerChunk);
VG_BENCH(BM_CtrlUpdate);

// `make bench` runs this without arguments: default to 5 repetitions and
// print only their median and minimum. Any argument turns the defaults off.
int main(int argc, char **argv) {
  std::vector<char *> args(argv, argv + argc);
  char reps[] = "--benchmark_repetitions=5";
  char aggr[] = "--benchmark_report_aggregates_only=true";
  if (argc == 1) {
    args.push_back(reps);
    args.push_back(aggr);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data()))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
