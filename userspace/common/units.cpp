// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <cctype>
#include <limits>
#include <utility>
#include <vector>

namespace vg {

namespace {

using u128 = unsigned __int128;

// value = num / den of the base unit.
struct Unit {
	const char *name;
	u128 num;
	u128 den;
};

constexpr u128 K = 1000, Ki = 1024;

// A decimal number split into digits and fraction length: "2.50" is
// mantissa 250, scale 2.
struct Decimal {
	u128 mantissa = 0;
	unsigned scale = 0;
};

// Splits "2.5gbit" into a decimal and a lowercase unit; throws for a
// malformed number. 25 digits (< 2^84) times a unit (<= 2^40) stay below
// 2^128.
std::pair<Decimal, std::string> split(const std::string &s, const char *what)
{
	Decimal d;
	size_t i = 0;
	unsigned digits = 0;
	bool point = false;

	for (; i < s.size(); i++) {
		char c = s[i];

		if (c == '.' && !point) {
			point = true;
			continue;
		}
		if (!isdigit(static_cast<unsigned char>(c)))
			break;
		if (++digits > 25)
			throw UnitError(std::string(what) + " \"" + s +
					"\" is out of range");
		d.mantissa = d.mantissa * 10 + unsigned(c - '0');
		if (point)
			d.scale++;
	}
	if (!digits || (point && !d.scale))
		throw UnitError(std::string("invalid ") + what + " \"" + s +
				"\"");
	std::string unit;
	for (; i < s.size(); i++)
		unit += char(tolower(static_cast<unsigned char>(s[i])));
	return {d, unit};
}

u128 pow10(unsigned n)
{
	u128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

uint64_t convert(const std::string &s, const char *what,
		 const std::vector<Unit> &units, const char *whole)
{
	auto [d, unit] = split(s, what);

	for (const auto &u : units) {
		if (unit != u.name)
			continue;
		// mantissa < 10^25 < 2^84, num <= 2^40: no overflow.
		u128 n = d.mantissa * u.num;
		u128 q = pow10(d.scale) * u.den;
		if (n % q)
			throw UnitError(std::string(what) + " \"" + s +
					"\" is not a whole number of " + whole);
		u128 v = n / q;
		if (v > std::numeric_limits<uint64_t>::max())
			throw UnitError(std::string(what) + " \"" + s +
					"\" is out of range");
		return uint64_t(v);
	}
	throw UnitError(std::string("unknown unit \"") + unit + "\" in " +
			what + " \"" + s + "\"");
}

// value / div with up to three decimals, trailing zeros dropped.
std::string decimal(u128 value, u128 div)
{
	u128 milli = (value * 1000 + div / 2) / div;
	std::string out = std::to_string(uint64_t(milli / 1000));
	unsigned frac = unsigned(milli % 1000);

	if (frac) {
		std::string f = std::to_string(frac + 1000).substr(1);
		while (f.back() == '0')
			f.pop_back();
		out += "." + f;
	}
	return out;
}

std::string scaled(u128 value, const std::vector<std::pair<u128, const char *>> &units)
{
	for (const auto &[div, name] : units)
		if (value >= div)
			return decimal(value, div) + name;
	return std::to_string(uint64_t(value)) + units.back().second;
}

}  // namespace

uint64_t parse_rate(const std::string &s)
{
	static const std::vector<Unit> units = {
		{"", 1, 8}, {"bit", 1, 8},
		{"kbit", K, 8}, {"mbit", K * K, 8}, {"gbit", K * K * K, 8},
		{"tbit", K * K * K * K, 8},
		{"kibit", Ki, 8}, {"mibit", Ki * Ki, 8},
		{"gibit", Ki * Ki * Ki, 8}, {"tibit", Ki * Ki * Ki * Ki, 8},
		{"bps", 1, 1}, {"kbps", K, 1}, {"mbps", K * K, 1},
		{"gbps", K * K * K, 1}, {"tbps", K * K * K * K, 1},
		{"kibps", Ki, 1}, {"mibps", Ki * Ki, 1},
		{"gibps", Ki * Ki * Ki, 1}, {"tibps", Ki * Ki * Ki * Ki, 1},
	};
	return convert(s, "rate", units, "bytes per second");
}

uint64_t parse_time(const std::string &s)
{
	static const std::vector<Unit> units = {
		{"ns", 1, 1}, {"nsec", 1, 1},
		{"", K, 1}, {"us", K, 1}, {"usec", K, 1},
		{"ms", K * K, 1}, {"msec", K * K, 1},
		{"s", K * K * K, 1}, {"sec", K * K * K, 1},
		{"secs", K * K * K, 1},
	};
	return convert(s, "time", units, "nanoseconds");
}

uint64_t parse_size(const std::string &s)
{
	static const std::vector<Unit> units = {
		{"", 1, 1}, {"b", 1, 1},
		{"k", Ki, 1}, {"kb", Ki, 1}, {"kib", Ki, 1},
		{"m", Ki * Ki, 1}, {"mb", Ki * Ki, 1}, {"mib", Ki * Ki, 1},
		{"g", Ki * Ki * Ki, 1}, {"gb", Ki * Ki * Ki, 1},
		{"gib", Ki * Ki * Ki, 1},
	};
	return convert(s, "size", units, "bytes");
}

uint32_t parse_percent_ppm(const std::string &s)
{
	static const std::vector<Unit> units = {{"", 10000, 1},
						{"%", 10000, 1}};
	uint64_t ppm = convert(s, "percentage", units, "parts per million");

	if (ppm > 1000000)
		throw UnitError("percentage \"" + s + "\" is above 100%");
	return uint32_t(ppm);
}

uint64_t parse_uint(const std::string &s, uint64_t max)
{
	uint64_t v = 0;

	if (s.empty())
		throw UnitError("missing number");
	for (char c : s) {
		if (!isdigit(static_cast<unsigned char>(c)))
			throw UnitError("invalid number \"" + s + "\"");
		unsigned d = unsigned(c - '0');
		if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
			throw UnitError("number \"" + s + "\" is out of range");
		v = v * 10 + d;
	}
	if (v > max)
		throw UnitError("number \"" + s + "\" is above " +
				std::to_string(max));
	return v;
}

std::string format_rate(uint64_t bytes_per_sec)
{
	u128 bits = u128(bytes_per_sec) * 8;

	return scaled(bits, {{K * K * K * K, "Tbit"}, {K * K * K, "Gbit"},
			     {K * K, "Mbit"}, {K, "Kbit"}, {1, "bit"}});
}

std::string format_time(uint64_t ns)
{
	return scaled(ns, {{K * K * K, "s"}, {K * K, "ms"}, {K, "us"},
			   {1, "ns"}});
}

std::string format_size(uint64_t bytes)
{
	return scaled(bytes, {{Ki * Ki * Ki, "GiB"}, {Ki * Ki, "MiB"},
			      {Ki, "KiB"}, {1, "B"}});
}

std::string format_ppm(uint32_t ppm)
{
	return decimal(ppm, 10000) + "%";
}

}  // namespace vg
