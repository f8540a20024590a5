// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"

#include <cmath>
#include <cstdio>

namespace vg {

std::string JsonWriter::escape(const std::string &s)
{
	std::string o = "\"";

	for (unsigned char c : s) {
		switch (c) {
		case '"': o += "\\\""; break;
		case '\\': o += "\\\\"; break;
		case '\n': o += "\\n"; break;
		case '\r': o += "\\r"; break;
		case '\t': o += "\\t"; break;
		case '\b': o += "\\b"; break;
		case '\f': o += "\\f"; break;
		default:
			if (c < 0x20) {
				char buf[8];

				snprintf(buf, sizeof(buf), "\\u%04x", c);
				o += buf;
			} else {
				o += char(c);
			}
		}
	}
	return o + "\"";
}

void JsonWriter::before_value()
{
	if (after_key_) {
		after_key_ = false;
		return;
	}
	if (!first_.empty()) {
		if (!first_.back())
			out_ += ',';
		first_.back() = false;
	}
}

JsonWriter &JsonWriter::begin_object()
{
	before_value();
	out_ += '{';
	first_.push_back(true);
	return *this;
}

JsonWriter &JsonWriter::end_object()
{
	out_ += '}';
	first_.pop_back();
	return *this;
}

JsonWriter &JsonWriter::begin_array()
{
	before_value();
	out_ += '[';
	first_.push_back(true);
	return *this;
}

JsonWriter &JsonWriter::end_array()
{
	out_ += ']';
	first_.pop_back();
	return *this;
}

JsonWriter &JsonWriter::key(const std::string &k)
{
	before_value();
	out_ += escape(k);
	out_ += ':';
	after_key_ = true;
	return *this;
}

JsonWriter &JsonWriter::value(const std::string &s)
{
	before_value();
	out_ += escape(s);
	return *this;
}

JsonWriter &JsonWriter::value(const char *s)
{
	return value(std::string(s ? s : ""));
}

JsonWriter &JsonWriter::value(bool b)
{
	before_value();
	out_ += b ? "true" : "false";
	return *this;
}

JsonWriter &JsonWriter::value(double d)
{
	if (!std::isfinite(d))
		return null();
	before_value();
	char buf[40];

	// 6 significant digits are plenty for rates and microseconds and
	// keep integers such as 125.0 readable as 125.
	snprintf(buf, sizeof(buf), "%.6g", d);
	out_ += buf;
	return *this;
}

JsonWriter &JsonWriter::value(uint64_t u)
{
	before_value();
	out_ += std::to_string(u);
	return *this;
}

JsonWriter &JsonWriter::value(int64_t i)
{
	before_value();
	out_ += std::to_string(i);
	return *this;
}

JsonWriter &JsonWriter::null()
{
	before_value();
	out_ += "null";
	return *this;
}

std::string json_pretty(const std::string &compact, int indent)
{
	std::string o;
	int depth = 0;
	bool in_string = false, escaped = false;
	auto newline = [&](int d) {
		o += '\n';
		o.append(size_t(d * indent), ' ');
	};

	for (size_t i = 0; i < compact.size(); i++) {
		char c = compact[i];

		if (in_string) {
			o += c;
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
			continue;
		}
		switch (c) {
		case '"':
			in_string = true;
			o += c;
			break;
		case '{':
		case '[':
			o += c;
			// Keep empty containers on one line.
			if (i + 1 < compact.size() &&
			    (compact[i + 1] == '}' || compact[i + 1] == ']')) {
				o += compact[++i];
				break;
			}
			newline(++depth);
			break;
		case '}':
		case ']':
			newline(--depth);
			o += c;
			break;
		case ',':
			o += c;
			newline(depth);
			break;
		case ':':
			o += ": ";
			break;
		default:
			o += c;
		}
	}
	return o;
}

}  // namespace vg
