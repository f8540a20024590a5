// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using namespace vg;

TEST(ParseRate, BitUnitsAreBitsPerSecond)
{
	EXPECT_EQ(parse_rate("400mbit"), 50000000u);
	EXPECT_EQ(parse_rate("25gbit"), 3125000000u);
	EXPECT_EQ(parse_rate("2.5gbit"), 312500000u);
	EXPECT_EQ(parse_rate("1tbit"), 125000000000u);
	EXPECT_EQ(parse_rate("8kbit"), 1000u);
	EXPECT_EQ(parse_rate("8bit"), 1u);
	EXPECT_EQ(parse_rate("8"), 1u);  // a bare number is bit/s, as in tc
	EXPECT_EQ(parse_rate("1kibit"), 128u);
	EXPECT_EQ(parse_rate("1gibit"), 134217728u);
	EXPECT_EQ(parse_rate("0"), 0u);
}

TEST(ParseRate, ByteUnitsAndCase)
{
	EXPECT_EQ(parse_rate("1gbps"), 1000000000u);
	EXPECT_EQ(parse_rate("3bps"), 3u);
	EXPECT_EQ(parse_rate("1kibps"), 1024u);
	EXPECT_EQ(parse_rate("400Mbit"), 50000000u);
	EXPECT_EQ(parse_rate("1GBPS"), 1000000000u);
}

TEST(ParseRate, RejectsFractionsOfBytesAndBadSyntax)
{
	EXPECT_THROW(parse_rate("100"), UnitError);	// 12.5 bytes/s
	EXPECT_THROW(parse_rate("1.5bps"), UnitError);
	EXPECT_THROW(parse_rate("mbit"), UnitError);
	EXPECT_THROW(parse_rate(""), UnitError);
	EXPECT_THROW(parse_rate("-5mbit"), UnitError);
	EXPECT_THROW(parse_rate("+5mbit"), UnitError);
	EXPECT_THROW(parse_rate("5 mbit"), UnitError);
	EXPECT_THROW(parse_rate("5xbit"), UnitError);
	EXPECT_THROW(parse_rate("1.5.2mbit"), UnitError);
	EXPECT_THROW(parse_rate("5.mbit"), UnitError);
	EXPECT_THROW(parse_rate("5mbitx"), UnitError);
}

TEST(ParseRate, Overflow)
{
	// 2^64 - 1 bytes/s is the largest; one more overflows.
	EXPECT_EQ(parse_rate("18446744073709551615bps"),
		  std::numeric_limits<uint64_t>::max());
	EXPECT_THROW(parse_rate("18446744073709551616bps"), UnitError);
	EXPECT_THROW(parse_rate("99999999999tbit"), UnitError);
	EXPECT_THROW(parse_rate("99999999999999999999999999tbit"), UnitError);
	EXPECT_THROW(parse_rate(std::string(200, '9') + "bit"), UnitError);
}

TEST(ParseTime, Units)
{
	EXPECT_EQ(parse_time("8us"), 8000u);
	EXPECT_EQ(parse_time("8"), 8000u);  // a bare number is us, as in tc
	EXPECT_EQ(parse_time("1.5ms"), 1500000u);
	EXPECT_EQ(parse_time("2s"), 2000000000u);
	EXPECT_EQ(parse_time("2sec"), 2000000000u);
	EXPECT_EQ(parse_time("1ns"), 1u);
	EXPECT_EQ(parse_time("100usec"), 100000u);
	EXPECT_EQ(parse_time("0.001ms"), 1000u);
}

TEST(ParseTime, Errors)
{
	EXPECT_THROW(parse_time("0.5ns"), UnitError);
	EXPECT_THROW(parse_time("1h"), UnitError);
	EXPECT_THROW(parse_time("us"), UnitError);
	EXPECT_THROW(parse_time("99999999999999999999s"), UnitError);
	EXPECT_THROW(parse_time("-1us"), UnitError);
}

TEST(ParseSize, Units)
{
	EXPECT_EQ(parse_size("5k"), 5120u);
	EXPECT_EQ(parse_size("5kb"), 5120u);
	EXPECT_EQ(parse_size("5KiB"), 5120u);
	EXPECT_EQ(parse_size("1.5k"), 1536u);
	EXPECT_EQ(parse_size("1m"), 1048576u);
	EXPECT_EQ(parse_size("16g"), 17179869184u);
	EXPECT_EQ(parse_size("4096"), 4096u);
	EXPECT_EQ(parse_size("7b"), 7u);
}

TEST(ParseSize, Errors)
{
	EXPECT_THROW(parse_size("1.3k"), UnitError);	// 1331.2 bytes
	EXPECT_THROW(parse_size("5kbit"), UnitError);
	EXPECT_THROW(parse_size("99999999999g"), UnitError);
	EXPECT_THROW(parse_size("k"), UnitError);
}

TEST(ParsePercent, PartsPerMillion)
{
	EXPECT_EQ(parse_percent_ppm("40%"), 400000u);
	EXPECT_EQ(parse_percent_ppm("99.5%"), 995000u);
	EXPECT_EQ(parse_percent_ppm("100"), 1000000u);
	EXPECT_EQ(parse_percent_ppm("0.0001%"), 1u);
	EXPECT_THROW(parse_percent_ppm("100.1%"), UnitError);
	EXPECT_THROW(parse_percent_ppm("0.00001%"), UnitError);
	EXPECT_THROW(parse_percent_ppm("50%%"), UnitError);
}

TEST(ParseUint, RangeAndOverflow)
{
	EXPECT_EQ(parse_uint("10000", 10000), 10000u);
	EXPECT_EQ(parse_uint("18446744073709551615", UINT64_MAX), UINT64_MAX);
	EXPECT_THROW(parse_uint("18446744073709551616", UINT64_MAX),
		     UnitError);
	EXPECT_THROW(parse_uint("10001", 10000), UnitError);
	EXPECT_THROW(parse_uint("4294967296", UINT32_MAX), UnitError);
	EXPECT_THROW(parse_uint("", 10), UnitError);
	EXPECT_THROW(parse_uint("1x", 10), UnitError);
	EXPECT_THROW(parse_uint("-1", 10), UnitError);
}

TEST(Format, PicksTheLargestUnit)
{
	EXPECT_EQ(format_rate(50000000), "400Mbit");
	EXPECT_EQ(format_rate(312500000), "2.5Gbit");
	EXPECT_EQ(format_rate(1), "8bit");
	EXPECT_EQ(format_rate(0), "0bit");
	EXPECT_EQ(format_time(8000), "8us");
	EXPECT_EQ(format_time(1500000), "1.5ms");
	EXPECT_EQ(format_time(0), "0ns");
	EXPECT_EQ(format_size(5120), "5KiB");
	EXPECT_EQ(format_size(1048576), "1MiB");
	EXPECT_EQ(format_size(100), "100B");
	EXPECT_EQ(format_ppm(995000), "99.5%");
	EXPECT_EQ(format_ppm(1000000), "100%");
}

TEST(Format, RoundTripsWhatItPrintsExactly)
{
	for (uint64_t v : {50000000ull, 312500000ull, 125ull, 1250000000ull,
			   1000000000000ull})
		EXPECT_EQ(parse_rate(format_rate(v)), v) << v;
	for (uint64_t v : {1ull, 999ull, 8000ull, 1500000ull, 2000000000ull})
		EXPECT_EQ(parse_time(format_time(v)), v) << v;
	for (uint64_t v : {1ull, 4096ull, 5120ull, 1048576ull})
		EXPECT_EQ(parse_size(format_size(v)), v) << v;
}
