# SPDX-License-Identifier: GPL-2.0-only
#
# verbsgate top-level build.
#
#   make            module (kmod/verbsgate.ko) and userspace (build/userspace)
#   make deps       install the Debian packages everything needs
#   make demo       the main job: boot the test-bed guest and show verbsgate
#   make check      every test: checkpatch, KUnit (UML), GoogleTest, pytest
#   make bench      native benchmarks of the policy core
#   make install    install the module for the running kernel and the tools
#
# KVER selects the kernel to build against (default: the running kernel if
# its headers are installed, else the test bed's guest kernel).

KVER ?= $(shell scripts/kernel-version.sh)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
JOBS ?= $(shell nproc)
# Debian's interpreter, which has python3-pytest.
PYTHON ?= /usr/bin/python3

.PHONY: all module userspace test-modules deps demo check kunit unit \
	integration checkpatch bench install clean

all: module userspace

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Test-only modules (fault injection for the test bed's own tests, a
# driver-owned drain_sq, a post_send that refuses chains, send queue
# slots freed on poll, a kernel RC QP pair and a create_qp that refuses
# large send queues for the enforcement tests).
test-modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/faultmod modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/drainmod modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/postfault modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/sqslots modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/rcpair modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/sqcap modules

userspace:
	cmake -S userspace -B $(BUILD)/userspace -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD)/userspace -j$(JOBS)

deps:
	scripts/install-deps.sh

demo: deps
	$(MAKE) all
	$(PYTHON) tests/integration/demo.py

check: deps
	$(MAKE) all test-modules
	scripts/check.sh

checkpatch:
	scripts/checkpatch.sh

kunit:
	tests/kunit/run.sh

unit: userspace
	ctest --test-dir $(BUILD)/userspace --output-on-failure

integration: all test-modules
	$(PYTHON) -m pytest tests/integration -v

bench: userspace
	$(BUILD)/userspace/bench/vg_bench

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)
	cmake --install $(BUILD)/userspace

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/faultmod clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/drainmod clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/postfault clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/sqslots clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/rcpair clean
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/integration/sqcap clean
	rm -rf $(BUILD)
