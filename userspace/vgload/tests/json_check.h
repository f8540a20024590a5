// SPDX-License-Identifier: GPL-2.0-only
// A strict little JSON parser for tests: checks that output is valid JSON
// and lets tests look values up by path ("total.lat_us.p99").
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace jc {

struct Value {
	enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
	bool b = false;
	double num = 0;
	std::string str;
	std::vector<Value> arr;
	std::map<std::string, Value> obj;

	const Value &at(const std::string &path) const
	{
		const Value *v = this;
		size_t start = 0;

		while (start <= path.size()) {
			size_t dot = path.find('.', start);
			std::string k = path.substr(start, dot == std::string::npos ?
								   std::string::npos :
								   dot - start);
			if (v->kind == Array) {
				v = &v->arr.at(std::stoul(k));
			} else {
				auto it = v->obj.find(k);

				if (v->kind != Object || it == v->obj.end())
					throw std::out_of_range("no key " + path);
				v = &it->second;
			}
			if (dot == std::string::npos)
				break;
			start = dot + 1;
		}
		return *v;
	}
	bool has(const std::string &path) const
	{
		try {
			at(path);
			return true;
		} catch (...) {
			return false;
		}
	}
};

class Parser {
public:
	explicit Parser(const std::string &s) : s_(s) {}

	Value parse()
	{
		Value v = value();

		ws();
		if (i_ != s_.size())
			fail("trailing characters");
		return v;
	}

private:
	[[noreturn]] void fail(const std::string &m)
	{
		throw std::runtime_error("JSON error at " + std::to_string(i_) + ": " + m);
	}
	void ws()
	{
		while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
			i_++;
	}
	bool eat(char c)
	{
		ws();
		if (i_ < s_.size() && s_[i_] == c) {
			i_++;
			return true;
		}
		return false;
	}
	void expect(char c)
	{
		if (!eat(c))
			fail(std::string("expected ") + c);
	}
	std::string string()
	{
		expect('"');
		std::string o;

		while (i_ < s_.size() && s_[i_] != '"') {
			char c = s_[i_++];

			if (static_cast<unsigned char>(c) < 0x20)
				fail("control character in string");
			if (c == '\\') {
				if (i_ >= s_.size())
					fail("bad escape");
				char e = s_[i_++];

				switch (e) {
				case '"': o += '"'; break;
				case '\\': o += '\\'; break;
				case '/': o += '/'; break;
				case 'n': o += '\n'; break;
				case 't': o += '\t'; break;
				case 'r': o += '\r'; break;
				case 'b': o += '\b'; break;
				case 'f': o += '\f'; break;
				case 'u':
					if (i_ + 4 > s_.size())
						fail("bad \\u");
					o += char(std::stoi(s_.substr(i_, 4), nullptr, 16));
					i_ += 4;
					break;
				default: fail("bad escape");
				}
			} else {
				o += c;
			}
		}
		expect('"');
		return o;
	}
	Value value()
	{
		ws();
		Value v;

		if (i_ >= s_.size())
			fail("unexpected end");
		char c = s_[i_];

		if (c == '{') {
			i_++;
			v.kind = Value::Object;
			if (eat('}'))
				return v;
			do {
				ws();
				std::string k = string();

				if (v.obj.count(k))
					fail("duplicate key " + k);
				expect(':');
				v.obj[k] = value();
			} while (eat(','));
			expect('}');
		} else if (c == '[') {
			i_++;
			v.kind = Value::Array;
			if (eat(']'))
				return v;
			do
				v.arr.push_back(value());
			while (eat(','));
			expect(']');
		} else if (c == '"') {
			v.kind = Value::String;
			v.str = string();
		} else if (s_.compare(i_, 4, "true") == 0) {
			v.kind = Value::Bool;
			v.b = true;
			i_ += 4;
		} else if (s_.compare(i_, 5, "false") == 0) {
			v.kind = Value::Bool;
			i_ += 5;
		} else if (s_.compare(i_, 4, "null") == 0) {
			i_ += 4;
		} else {
			size_t st = i_;

			if (s_[i_] == '-')
				i_++;
			if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_])))
				fail("bad value");
			while (i_ < s_.size() &&
			       (std::isdigit(static_cast<unsigned char>(s_[i_])) ||
				s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' ||
				s_[i_] == '+' || s_[i_] == '-'))
				i_++;
			v.kind = Value::Number;
			char *end = nullptr;
			std::string t = s_.substr(st, i_ - st);

			v.num = std::strtod(t.c_str(), &end);
			if (*end)
				fail("bad number " + t);
		}
		return v;
	}

	const std::string &s_;
	size_t i_ = 0;
};

inline Value parse(const std::string &s) { return Parser(s).parse(); }

}  // namespace jc
