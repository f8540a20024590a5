// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "access.h"

using namespace vgload;

TEST(Access, SequentialWalksMrsThenSlots)
{
	AccessPattern a(Access::Sequential, 3, 4096, 1024, 1, 0);
	std::vector<std::pair<uint32_t, uint64_t>> seen;

	for (int i = 0; i < 13; i++) {
		uint32_t mr;
		uint64_t off;

		a.next(mr, off);
		seen.push_back({ mr, off });
	}
	EXPECT_EQ(seen[0], std::make_pair(0u, uint64_t(0)));
	EXPECT_EQ(seen[1], std::make_pair(1u, uint64_t(0)));
	EXPECT_EQ(seen[2], std::make_pair(2u, uint64_t(0)));
	EXPECT_EQ(seen[3], std::make_pair(0u, uint64_t(1024)));
	EXPECT_EQ(seen[11], std::make_pair(2u, uint64_t(3072)));
	EXPECT_EQ(seen[12], std::make_pair(0u, uint64_t(0)));  // wraps
}

TEST(Access, RandomStaysInBoundsAndSpreads)
{
	const uint32_t mrs = 64;
	const uint64_t mr_size = 4096, size = 256;
	AccessPattern a(Access::Random, mrs, mr_size, size, 12345, 0);
	std::set<uint32_t> used;

	for (int i = 0; i < 10000; i++) {
		uint32_t mr;
		uint64_t off;

		a.next(mr, off);
		ASSERT_LT(mr, mrs);
		ASSERT_LE(off + size, mr_size);
		ASSERT_EQ(off % size, 0u);
		used.insert(mr);
	}
	EXPECT_EQ(used.size(), mrs);
}

TEST(Access, AtomicOffsetsAreAligned)
{
	AccessPattern a(Access::Random, 4, 4096, 8, 9, 0);

	for (int i = 0; i < 1000; i++) {
		uint32_t mr;
		uint64_t off;

		a.next(mr, off);
		ASSERT_EQ(off % 8, 0u);
	}
}

TEST(Access, MessageAsLargeAsMr)
{
	AccessPattern a(Access::Sequential, 2, 1 << 20, 1 << 20, 1, 1);
	uint32_t mr;
	uint64_t off;

	a.next(mr, off);
	EXPECT_EQ(mr, 1u);  // start offset
	EXPECT_EQ(off, 0u);
	a.next(mr, off);
	EXPECT_EQ(mr, 0u);
	EXPECT_EQ(off, 0u);
}
