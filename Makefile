# SPDX-License-Identifier: GPL-2.0-only
#
# verbsgate top-level build.
#
#   make            module (kmod/verbsgate.ko) and userspace (build/userspace)
#   make deps       install the Debian packages everything needs
#   make demo       the main job: boot the test-bed guest and show verbsgate
#   make check      every test: checkpatch, KUnit (UML), GoogleTest, pytest
#   make bench      native benchmarks of the policy core, then bench-post
#   make bench-post posting on two CPUs without and with verbsgate, in the
#                   emulated test bed (rxe in QEMU TCG): a Markdown table
#   make bench-usq  a governed user QP's cost: stock rdma_rxe against the
#                   patched one without and with verbsgate, in the
#                   emulated test bed
#   make wire-sweep a latency tenant next to a paced stream on the wire,
#                   per pacing setting, with and without the port queue
#   make wire-nvme  NVMe-oF tenants on the wire: shares and the latency
#                   tenant's frontier, with and without verbsgate
#   make husky      Husky's adversarial matrix on the wire: what verbsgate
#                   stops, attack by attack (build/husky.md)
#   make husky-report  docs/husky.md from the matrix's runs in docs/husky/
#   make testbed-modes  a latency tenant next to a stream, on loopback and
#                   on the wire, with and without verbsgate
#   make rxe        rdma_rxe.ko with driver-patches/rdma_rxe applied
#   make rxe-conformance  rdma-core's test suite on stock and patched rxe
#   make soak       100 reloads under verified NVMe I/O (CI runs 5)
#   make install    install the module for the running kernel and the tools
#
# VG_DEBUG=y builds the module with its invariant checks (check, soak).
# KVER selects the kernel to build against (default: the running kernel if
# its headers are installed, else the test bed's guest kernel).

KVER ?= $(shell scripts/kernel-version.sh)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
JOBS ?= $(shell nproc)
# Debian's interpreter, which has python3-pytest.
PYTHON ?= /usr/bin/python3
# The scripts behind make targets import the tests' library,
# tests/integration/harness.
TARGET_PY = PYTHONPATH=$(CURDIR)/tests/integration $(PYTHON)

# ccache (a Debian package, installed by `make deps`) keeps compiled
# objects in the project's cache, next to the kernel tree and the guest's
# initramfs, so that a new clone of sources already built compiles in
# seconds (the userspace, the modules and rdma_rxe took four minutes of
# `make check`). The userspace's objects are shared by clones at any path
# (userspace/CMakeLists.txt maps the clone's path away); kbuild's, which
# it compiles with absolute paths, by clones at the same path.
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
export CCACHE_DIR ?= $(or $(VERBSGATE_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/verbsgate)/ccache
export CCACHE_BASEDIR := $(CURDIR)
KBUILD_CC := CC="ccache gcc"
CMAKE_CCACHE := -DCMAKE_C_COMPILER_LAUNCHER=ccache \
	-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
endif

.PHONY: all module userspace test-modules deps demo check kunit unit \
	integration checkpatch bench bench-post bench-usq soak install clean \
	rxe rxe-conformance usq-full bench-nvme fuzz insncount wire-sweep \
	wire-nvme testbed-modes husky husky-report

all: module userspace

# The test bed's guest loads modules over 9p, and DWARF is 13 of
# verbsgate.ko's 13.4 MB: each built module keeps its debug info in
# NAME.ko.debug, which gdb and addr2line find through the module's
# .gnu_debuglink, and carries only its code and symbols. A module that
# kbuild did not relink is split already.
split_debug = for ko in $(1); do \
	if readelf -S $$ko | grep -q '\.debug_info'; then \
		objcopy --only-keep-debug $$ko $$ko.debug && \
		objcopy --strip-debug --add-gnu-debuglink=$$ko.debug $$ko; \
	fi || exit 1; done

module:
	$(MAKE) -j$(JOBS) -C $(KDIR) M=$(CURDIR) VG_DEBUG=$(VG_DEBUG) \
		$(KBUILD_CC) modules
	$(call split_debug,kmod/verbsgate.ko)

# Test-only modules, one per folder of tests/integration with a Kbuild:
# fault injection for the test bed's own tests, a driver-owned drain_sq,
# a post_send that refuses chains, send queue slots freed on poll, a ULP
# that destroys QPs undrained, one that posts from two CPUs at once. Each
# folder's Kbuild says what it is.
# tests/integration/Kbuild builds them all in one pass of kbuild.
TEST_MODULES := $(CURDIR)/tests/integration

test-modules: rxe
	$(MAKE) -j$(JOBS) -C $(KDIR) M=$(TEST_MODULES) \
		VG_RXE_BUILD=$(BUILD)/rdma_rxe $(KBUILD_CC) modules
	$(call split_debug,$(TEST_MODULES)/*/*.ko)

# rdma_rxe.ko with the driver patch series, in $(BUILD)/rdma_rxe (test
# modules that implement a send queue policy link against it).
rxe:
	BUILD=$(BUILD) KVER=$(KVER) KDIR=$(KDIR) $(KBUILD_CC) scripts/build-rxe.sh
	$(call split_debug,$(BUILD)/rdma_rxe/drivers/infiniband/sw/rxe/rdma_rxe.ko)

# rdma-core's whole test suite on stock rxe, on patched rxe with no
# policy, with a pass-through test policy, releasing in parts and under
# verbsgate, in one guest: the results must be identical (make check
# runs three of the five, with the suite's modules that have tests
# running on rxe; ~3 min).
rxe-conformance: deps rxe test-modules
	VG_USQ_FULL=1 $(PYTHON) -m pytest -v -rP \
		tests/integration/test_rxe_patched.py -k conformance

# The user send queue tests in their long form (more operations, 20
# reloads, all five conformance runs); figures to $(BUILD)/usq.md.
usq-full: deps
	$(MAKE) all test-modules VG_DEBUG=y
	mkdir -p $(BUILD)
	rm -f $(BUILD)/usq.md
	VG_USQ_FULL=1 VERBSGATE_REPORT=$(BUILD)/usq.md $(PYTHON) -m pytest \
		-v -rP tests/integration/test_rxe_patched.py \
		tests/integration/test_usq_register.py \
		tests/integration/test_usq_shaping.py \
		tests/integration/test_usqcheck.py

userspace:
	cmake -S userspace -B $(BUILD)/userspace -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		$(CMAKE_CCACHE)
	cmake --build $(BUILD)/userspace -j$(JOBS)

deps:
	scripts/install-deps.sh

demo: deps
	$(MAKE) all rxe
	$(TARGET_PY) tests/integration/targets/demo.py

check: deps
	$(MAKE) all test-modules VG_DEBUG=y
	scripts/check.sh

checkpatch:
	scripts/checkpatch.sh

# The endurance run behind docs/soak.md; its table goes to $(BUILD)/soak.md.
soak: deps
	$(MAKE) all test-modules VG_DEBUG=y
	mkdir -p $(BUILD)
	rm -f $(BUILD)/soak.md
	VG_RELOADS=100 VERBSGATE_REPORT=$(BUILD)/soak.md $(PYTHON) -m pytest \
		tests/integration/test_enforce_nvme.py -v -rP \
		-k test_reload_under_verified_io

kunit:
	tests/kunit/run.sh

unit: userspace
	ctest --test-dir $(BUILD)/userspace --output-on-failure

integration: all test-modules
	$(PYTHON) -m pytest tests/integration -v

bench: userspace
	$(BUILD)/userspace/bench/vg_bench
	$(MAKE) bench-post
	$(MAKE) bench-usq

# One kernel poster against two on two CPUs and QPs, without and with
# verbsgate, in one guest (tests/integration/harness/postscale.py): only the
# module, the CLI and the test ULP tests/integration/kpost are needed.
bench-post: deps
	$(MAKE) all
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/kpost modules
	$(TARGET_PY) tests/integration/targets/bench_post.py

# One unthrottled user tenant's message rate and bandwidth on the stock
# rdma_rxe (also loaded elsewhere, the control) and on the patched one
# without and with verbsgate, alternating
# (tests/integration/targets/bench_usq.py),
# 8 rounds (VG_BENCH_ROUNDS); Markdown tables of throughput and median
# operation time, then the guest kernel's instructions per 64 B WRITE
# counted by QEMU; about 15 minutes.
bench-usq: deps
	$(MAKE) all rxe test-modules insncount
	$(TARGET_PY) tests/integration/targets/bench_usq.py

# The QEMU plugin that counts guest kernel instructions (bench-usq).
insncount: $(BUILD)/insncount.so

$(BUILD)/insncount.so: tests/integration/insncount/insncount.c \
		tests/integration/insncount/qemu_plugin_v1.h
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o $@ $< -pthread

# NVMe over RDMA's 4k random read IOPS without and with verbsgate, three
# rounds of 10 s runs (CI runs one of 5 s runs): the overhead figure of
# docs/performance.md. The benchmarks boot the guest without SLUB
# debugging, which the tests keep on.
bench-nvme: deps
	$(MAKE) all test-modules
	VG_SLUB_DEBUG=0 VG_OVERHEAD_ROUNDS=3 VG_OVERHEAD_SECONDS=10 \
		$(PYTHON) -m pytest -v -rP \
		tests/integration/test_enforce_nvme.py -k overhead

# The victim's p99 next to a stream paced by verbsgate on the wire, per
# VG_WIRE_SETTINGS (maxrate/chunk/burst), medians of VG_WIRE_ROUNDS (3);
# Markdown to stdout and $(BUILD)/wire.md; about 10 minutes.
wire-sweep: deps
	$(MAKE) all rxe
	$(TARGET_PY) tests/integration/targets/wire_sweep.py

# NVMe-oF tenants on the wire, with and without verbsgate: weighted
# shares and the latency tenant's frontier (caps x chunk sizes), medians
# of VG_WIRE_ROUNDS (3); Markdown to stdout and $(BUILD)/wire-nvme.md;
# about 30 minutes.
wire-nvme: deps
	$(MAKE) all
	$(TARGET_PY) tests/integration/targets/wire_nvme.py

# Husky's attacks, each victim against each attacker on the wire, alone,
# attacked and attacked under verbsgate (tests/integration/harness/
# husky.py); VG_HUSKY_CELLS=reduced|all|VICTIM/ATTACKER;... (ATTACKER *:
# the victim's row), VG_HUSKY_RUNS (3). Markdown to stdout and
# $(BUILD)/husky.md, figures to husky.json, a heatmap to husky.png; about
# a minute per cell and run, a victim's row (VICTIM/*) about 25 minutes,
# the whole matrix about three hours.
husky: deps
	scripts/install-deps.sh python3-matplotlib
	$(MAKE) all rxe
	$(TARGET_PY) tests/integration/targets/husky.py

# docs/husky.md and docs/husky.png from the runs of `make husky` kept in
# docs/husky/ (each a husky.json, named after its victim) and the notes
# there that explain the verdicts (docs/husky/*.md).
husky-report:
	scripts/install-deps.sh python3-matplotlib
	$(TARGET_PY) tests/integration/targets/husky.py --assemble \
		docs/husky.md docs/husky/*.json docs/husky/*.md

# A latency tenant next to a stream on loopback and on the wire, with and
# without verbsgate: what each mode emulates; medians of VG_MODES_ROUNDS
# (3); Markdown to stdout and $(BUILD)/testbed-modes.md; about 5 minutes.
testbed-modes: deps
	$(MAKE) all rxe
	$(TARGET_PY) tests/integration/targets/testbed_modes.py

# The netlink fuzzer with 100 000 messages (CI sends 30 000).
fuzz: deps
	$(MAKE) all test-modules VG_DEBUG=y
	VG_FUZZ_MESSAGES=100000 $(PYTHON) -m pytest -v -rP \
		tests/integration/test_netlink_fuzz.py

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)
	cmake --install $(BUILD)/userspace

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C $(KDIR) M=$(TEST_MODULES) clean
	rm -f kmod/*.ko.debug $(TEST_MODULES)/*/*.ko.debug
	rm -rf $(BUILD)
