// SPDX-License-Identifier: GPL-2.0-only
// Which MR and offset each operation touches (--access, --mrs, --mr-size).
// Wide random access over many MRs is what exhausts NIC translation caches
// (Husky §3.2); sequential access is the friendly baseline.
#pragma once

#include <cstdint>

#include "options.h"

namespace vgload {

class AccessPattern {
public:
	// `start` offsets the sequential walk so threads don't move in step.
	AccessPattern(Access a, uint32_t mrs, uint64_t mr_size, uint64_t size,
		      uint64_t seed, uint32_t start);

	// MR index in [0, mrs) and a message-aligned offset with
	// offset + size <= mr_size.
	void next(uint32_t &mr, uint64_t &offset);

private:
	uint64_t rnd();

	Access access_;
	uint32_t mrs_;
	uint64_t slots_;   // message-sized slots per MR
	uint64_t size_;
	uint64_t state_;
	uint64_t counter_;
};

}  // namespace vgload
