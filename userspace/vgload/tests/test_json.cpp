// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <cmath>

#include "json.h"
#include "json_check.h"

using vg::JsonWriter;

TEST(Json, Nesting)
{
	JsonWriter w;

	w.begin_object();
	w.kv("a", 1);
	w.key("b").begin_array().value(1.5).value("x").null().value(true).end_array();
	w.key("c").begin_object().end_object();
	w.key("d").begin_array().end_array();
	w.kv("e", uint64_t(18446744073709551615ull));
	w.kv("f", int64_t(-3));
	w.end_object();
	EXPECT_EQ(w.str(), "{\"a\":1,\"b\":[1.5,\"x\",null,true],\"c\":{},\"d\":[],"
			   "\"e\":18446744073709551615,\"f\":-3}");
	EXPECT_NO_THROW(jc::parse(w.str()));
}

TEST(Json, Escaping)
{
	EXPECT_EQ(JsonWriter::escape("a\"b\\c\nd\te\x01"),
		  "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
	JsonWriter w;

	w.begin_object().kv("msg", "ibv_post_send failed: \"x\"\n").end_object();
	jc::Value v = jc::parse(w.str());

	EXPECT_EQ(v.at("msg").str, "ibv_post_send failed: \"x\"\n");
}

TEST(Json, NonFiniteNumbersBecomeNull)
{
	JsonWriter w;

	w.begin_array().value(NAN).value(INFINITY).value(0.0).end_array();
	EXPECT_EQ(w.str(), "[null,null,0]");
}

TEST(Json, NumbersRoundTrip)
{
	JsonWriter w;

	w.begin_array().value(0.000123456).value(123456.0).value(1e12).end_array();
	jc::Value v = jc::parse(w.str());

	EXPECT_NEAR(v.arr[0].num, 0.000123456, 1e-12);
	EXPECT_DOUBLE_EQ(v.arr[1].num, 123456.0);
	EXPECT_DOUBLE_EQ(v.arr[2].num, 1e12);
}

TEST(Json, CheckerRejectsGarbage)
{
	EXPECT_THROW(jc::parse("{\"a\":1,}"), std::runtime_error);
	EXPECT_THROW(jc::parse("{\"a\":1} x"), std::runtime_error);
	EXPECT_THROW(jc::parse("[nan]"), std::runtime_error);
}
