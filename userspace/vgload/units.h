// SPDX-License-Identifier: GPL-2.0-only
// Parsing and printing of the quantities the command line takes.
#pragma once

#include <cstdint>
#include <string>

namespace vgload {

// "4096", "4K", "4KiB", "1M", "2g" -> bytes (binary multiples).
// Throws UsageError naming `what` on bad input or overflow.
uint64_t parse_size(const std::string &s, const char *what);

// "100", "10k", "2M" -> count (decimal multiples: 10k = 10000).
uint64_t parse_count(const std::string &s, const char *what);

// "5", "2.5", "2.5s", "500ms", "250us" -> seconds.
double parse_seconds(const std::string &s, const char *what);

// Plain decimal integer within [lo, hi].
long long parse_int(const std::string &s, const char *what, long long lo,
		    long long hi);

// 1048576 -> "1M", 129 -> "129" (exact binary multiples only).
std::string format_size(uint64_t bytes);

}  // namespace vgload
