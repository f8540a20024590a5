// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <cerrno>

#include "verbs.h"

using namespace vgload;

// A verb that succeeded is no error, whatever an earlier failure left in
// errno (a deregistration after a refused registration was counted as
// failing with the registration's EDQUOT).
TEST(VerbsErrno, SuccessIsZeroWhateverErrnoHolds)
{
	errno = EDQUOT;
	EXPECT_EQ(verbs_errno(0), 0);
	EXPECT_EQ(verbs_errno(EBUSY), EBUSY);
	errno = ENOMEM;
	EXPECT_EQ(verbs_errno(-1), ENOMEM);
}
