// SPDX-License-Identifier: GPL-2.0-only
// Rates, times and sizes with units, as iproute2's tc(8) writes them, parsed
// exactly (decimal fractions in integer arithmetic, no floating point) and
// checked for overflow; and formatted back for humans.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vg {

class UnitError : public std::invalid_argument {
public:
	using std::invalid_argument::invalid_argument;
};

// A rate in bytes per second. Units (case-insensitive): bit (also a bare
// number), kbit, mbit, gbit, tbit (powers of 1000), kibit, mibit, gibit,
// tibit (powers of 1024); bps (bytes/s), kbps, mbps, gbps, tbps, kibps,
// mibps, gibps, tibps. "400mbit", "2.5gbit", "1gbps". The result must be a
// whole number of bytes per second.
uint64_t parse_rate(const std::string &s);

// A time in nanoseconds. Units: ns, us (also a bare number), ms, s (and
// nsec, usec, msec, sec, secs). "8us", "1.5ms". Whole nanoseconds only.
uint64_t parse_time(const std::string &s);

// A size in bytes. Units: b (also a bare number), k/kb/kib, m/mb/mib,
// g/gb/gib (powers of 1024). "5k", "1mib", "1.5k". Whole bytes only.
uint64_t parse_size(const std::string &s);

// A share in parts per million: "40%", "99.5%" or a bare percentage;
// at most 100%, at most 4 decimals.
uint32_t parse_percent_ppm(const std::string &s);

// A plain decimal integer, 0..max.
uint64_t parse_uint(const std::string &s, uint64_t max);

// Inverses for output: the largest unit that keeps at most three decimals
// ("400Mbit", "2.5Gbit", "8us", "1.5ms", "5KiB", "1MiB", "40%").
std::string format_rate(uint64_t bytes_per_sec);
std::string format_time(uint64_t ns);
std::string format_size(uint64_t bytes);
std::string format_ppm(uint32_t ppm);

}  // namespace vg
