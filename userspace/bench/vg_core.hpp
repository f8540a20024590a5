// SPDX-License-Identifier: GPL-2.0-only
//
// The policy core's C headers for C++ code (benchmarks and GoogleTest).
// Include this after every C++ and library header: the kernel-style
// min/max/swap macros of the shim are removed again at the end.
#ifndef VG_BENCH_CORE_HPP
#define VG_BENCH_CORE_HPP

// System headers the shim uses, included outside extern "C".
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "ctrl.h"
#include "heap.h"
#include "pacer.h"
#include "rate.h"
#include "sched.h"
#include "split.h"
#include "token.h"
#include "vg_prng.h"
#include "window.h"
#include "wr.h"
}

#undef min
#undef max
#undef swap
#undef clamp
#undef sort

#endif  // VG_BENCH_CORE_HPP
