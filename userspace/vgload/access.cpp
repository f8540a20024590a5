// SPDX-License-Identifier: GPL-2.0-only
#include "access.h"

#include <algorithm>

namespace vgload {

AccessPattern::AccessPattern(Access a, uint32_t mrs, uint64_t mr_size,
			     uint64_t size, uint64_t seed, uint32_t start)
	: access_(a), mrs_(std::max<uint32_t>(mrs, 1)),
	  slots_(std::max<uint64_t>(size ? mr_size / size : 1, 1)), size_(size),
	  state_(seed * 0x9e3779b97f4a7c15ull | 1), counter_(start)
{
}

uint64_t AccessPattern::rnd()
{
	// xorshift64*: cheap, good enough to scatter accesses over MRs.
	state_ ^= state_ >> 12;
	state_ ^= state_ << 25;
	state_ ^= state_ >> 27;
	return state_ * 0x2545f4914f6cdd1dull;
}

void AccessPattern::next(uint32_t &mr, uint64_t &offset)
{
	uint64_t slot;

	if (access_ == Access::Sequential) {
		// Walk across MRs first, then to the next slot in each.
		mr = uint32_t(counter_ % mrs_);
		slot = (counter_ / mrs_) % slots_;
		counter_++;
	} else {
		uint64_t r = rnd();

		mr = uint32_t((r >> 32) % mrs_);
		slot = (r & 0xffffffffu) % slots_;
	}
	offset = slot * size_;
}

}  // namespace vgload
