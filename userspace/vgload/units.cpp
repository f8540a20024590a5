// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "error.h"

namespace vgload {

static UsageError bad(const char *what, const std::string &s,
		      const char *expect)
{
	return UsageError(std::string("invalid ") + what + " '" + s +
			  "': expected " + expect);
}

static std::string lower(std::string s)
{
	for (auto &c : s)
		c = char(std::tolower(static_cast<unsigned char>(c)));
	return s;
}

// Splits "12.5ms" into number "12.5" and suffix "ms".
static void split_suffix(const std::string &s, std::string &num,
			 std::string &suf)
{
	size_t i = 0;

	while (i < s.size() &&
	       (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
		i++;
	num = s.substr(0, i);
	suf = lower(s.substr(i));
}

static uint64_t parse_u64(const std::string &num, bool &ok)
{
	ok = false;
	if (num.empty() || num.find('.') != std::string::npos)
		return 0;
	errno = 0;
	char *end = nullptr;
	unsigned long long v = std::strtoull(num.c_str(), &end, 10);

	if (errno || *end)
		return 0;
	ok = true;
	return v;
}

static uint64_t scaled(uint64_t v, uint64_t mult, bool &ok)
{
	if (mult && v > std::numeric_limits<uint64_t>::max() / mult) {
		ok = false;
		return 0;
	}
	return v * mult;
}

uint64_t parse_size(const std::string &s, const char *what)
{
	std::string num, suf;
	bool ok;

	split_suffix(s, num, suf);
	uint64_t v = parse_u64(num, ok);
	uint64_t mult = 0;

	if (suf.empty() || suf == "b")
		mult = 1;
	else if (suf == "k" || suf == "kb" || suf == "kib")
		mult = 1ull << 10;
	else if (suf == "m" || suf == "mb" || suf == "mib")
		mult = 1ull << 20;
	else if (suf == "g" || suf == "gb" || suf == "gib")
		mult = 1ull << 30;
	if (ok && mult)
		v = scaled(v, mult, ok);
	if (!ok || !mult)
		throw bad(what, s, "a size in bytes such as 4096, 64K, 1M");
	return v;
}

uint64_t parse_count(const std::string &s, const char *what)
{
	std::string num, suf;
	bool ok;

	split_suffix(s, num, suf);
	uint64_t v = parse_u64(num, ok);
	uint64_t mult = 0;

	if (suf.empty())
		mult = 1;
	else if (suf == "k")
		mult = 1000;
	else if (suf == "m")
		mult = 1000000;
	else if (suf == "g")
		mult = 1000000000;
	if (ok && mult)
		v = scaled(v, mult, ok);
	if (!ok || !mult)
		throw bad(what, s, "a count such as 100, 10k, 2M");
	return v;
}

double parse_seconds(const std::string &s, const char *what)
{
	std::string num, suf;

	split_suffix(s, num, suf);
	double scale = 0;

	if (suf.empty() || suf == "s")
		scale = 1;
	else if (suf == "ms")
		scale = 1e-3;
	else if (suf == "us")
		scale = 1e-6;
	char *end = nullptr;
	errno = 0;
	double v = num.empty() ? NAN : std::strtod(num.c_str(), &end);

	if (!scale || errno || !end || *end || !std::isfinite(v) || v < 0)
		throw bad(what, s, "a duration such as 5, 2.5s, 500ms");
	return v * scale;
}

long long parse_int(const std::string &s, const char *what, long long lo,
		    long long hi)
{
	char *end = nullptr;

	errno = 0;
	long long v = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);

	if (s.empty() || errno || *end || v < lo || v > hi)
		throw UsageError(std::string("invalid ") + what + " '" + s +
				 "': expected an integer in [" +
				 std::to_string(lo) + ", " +
				 std::to_string(hi) + "]");
	return v;
}

std::string format_size(uint64_t b)
{
	static const char *const suf[] = { "", "K", "M", "G" };
	int i = 0;

	while (i < 3 && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		i++;
	}
	return std::to_string(b) + suf[i];
}

}  // namespace vgload
