// SPDX-License-Identifier: GPL-2.0-only
// Minimal streaming JSON writer for the tools' -j/--json output: compact,
// one document per line; json_pretty() indents it for -p.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vg {

class JsonWriter {
public:
	JsonWriter &begin_object();
	JsonWriter &end_object();
	JsonWriter &begin_array();
	JsonWriter &end_array();
	JsonWriter &key(const std::string &k);

	JsonWriter &value(const std::string &s);
	JsonWriter &value(const char *s);
	JsonWriter &value(bool b);
	JsonWriter &value(double d);     // non-finite values become null
	JsonWriter &value(uint64_t u);
	JsonWriter &value(int64_t i);
	JsonWriter &value(uint32_t u) { return value(uint64_t(u)); }
	JsonWriter &value(int i) { return value(int64_t(i)); }
	JsonWriter &null();

	template <typename T>
	JsonWriter &kv(const std::string &k, const T &v)
	{
		key(k);
		return value(v);
	}

	const std::string &str() const { return out_; }

	static std::string escape(const std::string &s);

private:
	void before_value();

	std::string out_;
	// One entry per open container: true until its first element.
	std::vector<bool> first_;
	bool after_key_ = false;
};

// Indents a compact JSON document (as JsonWriter makes) by `indent` spaces.
std::string json_pretty(const std::string &compact, int indent = 2);

}  // namespace vg
