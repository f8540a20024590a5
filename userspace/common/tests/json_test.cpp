// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"

#include <gtest/gtest.h>

using vg::JsonWriter;

TEST(JsonWriter, NestsAndSeparates)
{
	JsonWriter w;
	w.begin_array()
		.begin_object().kv("name", "rxe0").kv("ports", 1u).end_object()
		.begin_object().kv("ok", true).key("none").null().end_object()
		.end_array();
	EXPECT_EQ(w.str(),
		  R"([{"name":"rxe0","ports":1},{"ok":true,"none":null}])");
}

TEST(JsonWriter, EscapesControlAndQuotes)
{
	EXPECT_EQ(JsonWriter::escape("a\"b\\c\n\x01"),
		  R"("a\"b\\c\n\u0001")");
}

TEST(JsonPretty, IndentsAndKeepsStringsIntact)
{
	EXPECT_EQ(vg::json_pretty(R"({"a":[1,2],"s":"x,{y}:z","e":[]})"),
		  "{\n  \"a\": [\n    1,\n    2\n  ],\n"
		  "  \"s\": \"x,{y}:z\",\n  \"e\": []\n}");
}

TEST(JsonPretty, EscapedQuoteDoesNotEndString)
{
	EXPECT_EQ(vg::json_pretty(R"(["a\",b"])"), "[\n  \"a\\\",b\"\n]");
}
