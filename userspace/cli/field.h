// SPDX-License-Identifier: GPL-2.0-only
// An object's fields as one table, iproute2 style: each row names one
// netlink attribute and says how it is sent in requests, read from
// replies and events, and shown in text and in JSON. encode(), decode(),
// text() and json() below walk a table; tenant.cpp, device.cpp, qp.cpp,
// counters.cpp and status.cpp hold the tables.
#pragma once

#include "genl_client.h"
#include "json.h"

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace vg {

// What every table says about an attribute, whatever its object: the
// reply policy and the names of request attributes in errors come from it.
struct AttrInfo {
	int attr;
	const char *keyword;		// the CLI's word for it; nullptr: never sent
	nla_policy policy;		// how replies carry it
	std::shared_ptr<const std::vector<AttrInfo>> nested;	// a nest's own
	bool array;			// a nest of entries, each of `nested`
};

// Row flags above the object's own groups (bits 0..15), which select the
// rows a printer shows (a device's settings only with -d, say); a row of
// no group shows in every view.
enum : unsigned {
	kNonZero = 1u << 16,	// text only when not 0; JSON always
	kAlways = 1u << 17,	// shown as 0 or "" when a reply lacks it
	kMembers = 1u << 18,	// a nest: JSON members, not a value
	kGroups = 0xffffu,
};

// How a value of type T reads in text and in JSON.
template <typename T>
struct Style {
	std::function<std::string(const T &)> text;
	std::function<void(JsonWriter &, const T &)> json;
};

// As it is: a number or a string, in text and in JSON.
template <typename T>
Style<T> plain()
{
	if constexpr (std::is_same_v<T, std::string>)
		return {[](const T &v) { return v; },
			[](JsonWriter &w, const T &v) { w.value(v); }};
	else
		return {[](const T &v) { return std::to_string(v); },
			[](JsonWriter &w, const T &v) { w.value(v); }};
}

// Formatted in text, a plain number in JSON (rates, times, sizes).
template <typename T, typename Fn>
Style<T> unit(Fn format)
{
	return {[format](const T &v) { return std::string(format(v)); },
		[](JsonWriter &w, const T &v) { w.value(v); }};
}

// The same words in text and in JSON (enum names, addresses).
template <typename T, typename Fn>
Style<T> words(Fn name)
{
	return {[name](const T &v) { return std::string(name(v)); },
		[name](JsonWriter &w, const T &v) {
			w.value(std::string(name(v)));
		}};
}

// A flag: a word in text, a boolean in JSON.
Style<bool> on_off(const char *on, const char *off);

template <typename Obj>
struct Field {
	AttrInfo info;
	const char *text = nullptr;	// "%s" marks the value; nullptr: none
	const char *json = nullptr;	// "a.b": member b of object a;
					// "": a nest's members merged
	unsigned flags = 0;
	int line = 0;			// text: a later line starts anew
	int pos = 0;			// text: order in the line, if not the table's
	std::function<bool(const Obj &)> has;	// sent, shown
	std::function<bool(const Obj &)> zero;
	std::function<void(Obj &)> clear;
	std::function<void(nl_msg *, int, const Obj &)> put;
	std::function<void(const nlattr *, Obj &)> get;
	std::function<std::string(const Obj &)> text_of;
	std::function<void(JsonWriter &, const Obj &)> json_of;

	// The row's words, set in the table.
	Field &sent(const char *k) { info.keyword = k; return *this; }
	Field &shows(const char *t) { text = t; return *this; }
	Field &key(const char *j) { json = j; return *this; }
	Field &in(unsigned groups) { flags |= groups; return *this; }
	Field &at(int l, int p = 0) { line = l; pos = p; return *this; }
	Field &nonzero() { flags |= kNonZero; return *this; }
	Field &always() { flags |= kAlways; return *this; }
	// A reply's 0 means none (a kernel QP's pid, no reason).
	Field &zero_is_none()
	{
		get = [g = get, z = zero, c = clear](const nlattr *a, Obj &o) {
			g(a, o);
			if (z(o))
				c(o);
		};
		return *this;
	}
};

template <typename Obj>
using Table = std::vector<Field<Obj>>;

// A request too large for its message.
inline void check_room(int ret)
{
	if (ret < 0)
		throw NetlinkError(EMSGSIZE, "request too large");
}

// Nests carry NLA_F_NESTED: the kernel validates strictly.
nlattr *nest_start(nl_msg *m, int type);

// A member of type M: T, or std::optional<T> (sent and shown only when
// set), or std::vector<T> (sent only when not empty).
template <typename M>
struct Member {
	using type = M;
	static bool has(const M &) { return true; }
	static const M &value(const M &m) { return m; }
	static M &set(M &m) { return m; }
};

template <typename T>
struct Member<std::optional<T>> {
	using type = T;
	static bool has(const std::optional<T> &m) { return m.has_value(); }
	static T value(const std::optional<T> &m) { return m.value_or(T{}); }
	static T &set(std::optional<T> &m) { return m.emplace(); }
};

template <typename T>
struct Member<std::vector<T>> {
	using type = std::vector<T>;
	static bool has(const std::vector<T> &m) { return !m.empty(); }
	static const std::vector<T> &value(const std::vector<T> &m) { return m; }
	static std::vector<T> &set(std::vector<T> &m) { return m; }
};

// How a scalar of type T travels in netlink.
template <typename T>
struct Wire;

template <>
struct Wire<bool> {
	static constexpr uint16_t type = NLA_U8;
	static int put(nl_msg *m, int a, bool v) { return nla_put_u8(m, a, v); }
	static bool get(const nlattr *a) { return nla_get_u8(a); }
};

template <>
struct Wire<uint8_t> {
	static constexpr uint16_t type = NLA_U8;
	static int put(nl_msg *m, int a, uint8_t v) { return nla_put_u8(m, a, v); }
	static uint8_t get(const nlattr *a) { return nla_get_u8(a); }
};

template <>
struct Wire<uint32_t> {
	static constexpr uint16_t type = NLA_U32;
	static int put(nl_msg *m, int a, uint32_t v) { return nla_put_u32(m, a, v); }
	static uint32_t get(const nlattr *a) { return nla_get_u32(a); }
};

template <>
struct Wire<uint64_t> {
	static constexpr uint16_t type = NLA_U64;
	static int put(nl_msg *m, int a, uint64_t v) { return nla_put_u64(m, a, v); }
	static uint64_t get(const nlattr *a) { return nla_get_u64(a); }
};

template <>
struct Wire<std::string> {
	static constexpr uint16_t type = NLA_STRING;
	static int put(nl_msg *m, int a, const std::string &v)
	{
		return nla_put_string(m, a, v.c_str());
	}
	static std::string get(const nlattr *a)
	{
		return nla_get_string(const_cast<nlattr *>(a));
	}
};

// A row of its own kind (GIDs, addresses): the caller fills put and get.
template <typename Obj, typename M>
Field<Obj> custom(int attr, M Obj::*m, Style<typename Member<M>::type> style,
		  nla_policy policy = {})
{
	using V = Member<M>;
	Field<Obj> f;

	f.info = {attr, nullptr, policy, nullptr, false};
	f.has = [m](const Obj &o) { return V::has(o.*m); };
	f.zero = [m](const Obj &o) {
		return V::value(o.*m) == typename V::type{};
	};
	f.clear = [m](Obj &o) { o.*m = M{}; };
	f.text_of = [m, style](const Obj &o) { return style.text(V::value(o.*m)); };
	f.json_of = [m, style](JsonWriter &w, const Obj &o) {
		style.json(w, V::value(o.*m));
	};
	return f;
}

// A scalar: a number, a flag or a string.
template <typename Obj, typename M>
Field<Obj> row(int attr, M Obj::*m,
	       Style<typename Member<M>::type> style =
		       plain<typename Member<M>::type>())
{
	using V = Member<M>;
	using W = Wire<typename V::type>;
	Field<Obj> f = custom(attr, m, style, nla_policy{W::type, 0, 0});

	f.put = [m](nl_msg *msg, int a, const Obj &o) {
		check_room(W::put(msg, a, V::value(o.*m)));
	};
	f.get = [m](const nlattr *a, Obj &o) { V::set(o.*m) = W::get(a); };
	return f;
}

template <typename Obj>
std::vector<AttrInfo> infos(const Table<Obj> &t)
{
	std::vector<AttrInfo> out;

	for (const auto &f : t)
		out.push_back(f.info);
	return out;
}

template <typename Obj>
void encode(nl_msg *m, const Table<Obj> &t, const Obj &o)
{
	for (const auto &f : t)
		if (f.info.keyword && f.has(o))
			f.put(m, f.info.attr, o);
}

// tb holds the attributes by type, up to the table's largest.
template <typename Obj>
Obj decode(const Table<Obj> &t, const nlattr *const *tb)
{
	Obj o{};

	for (const auto &f : t)
		if (tb[f.info.attr])
			f.get(tb[f.info.attr], o);
	return o;
}

// Parses a nest with the table's policy; libnl skips types above the
// table's, so replies may grow.
template <typename Obj>
Obj decode_nested(const Table<Obj> &t, const nlattr *nest)
{
	int max = 0;

	for (const auto &f : t)
		max = std::max(max, f.info.attr);
	std::vector<nla_policy> policy(size_t(max) + 1);
	for (const auto &f : t)
		policy[size_t(f.info.attr)] = f.info.policy;
	std::vector<nlattr *> tb(size_t(max) + 1);
	parse_nested(nest, max, policy.data(), tb.data());
	return decode(t, tb.data());
}

// The rows of `groups` a reply carries, in text order.
template <typename Obj>
std::vector<const Field<Obj> *> shown(const Table<Obj> &t, const Obj &o,
				      unsigned groups, bool text)
{
	std::vector<const Field<Obj> *> rows;

	for (const auto &f : t)
		if ((!(f.flags & kGroups) || (f.flags & groups & kGroups)) &&
		    (text ? f.text != nullptr : f.json != nullptr) &&
		    (f.has(o) || (f.flags & kAlways)) &&
		    !(text && (f.flags & kNonZero) && f.zero(o)))
			rows.push_back(&f);
	if (text)
		std::stable_sort(rows.begin(), rows.end(),
				 [](const Field<Obj> *a, const Field<Obj> *b) {
			return a->line != b->line ? a->line < b->line :
						    a->pos < b->pos;
		});
	return rows;
}

// "%s" of a row's text with its value.
std::string fill(const char *format, const std::string &value);

// The rows of `groups` as text, a line each `line` (rows start with the
// blank that separates them, so a line break indents by three more).
template <typename Obj>
std::string text(const Table<Obj> &t, const Obj &o, unsigned groups = kGroups)
{
	std::string out;
	bool first = true;
	int line = 0;

	for (const Field<Obj> *f : shown(t, o, groups, true)) {
		if (!first && f->line != line)
			out += "\n   ";
		first = false;
		line = f->line;
		out += fill(f->text, f->text_of(o));
	}
	return out;
}

// The rows of `groups` as members of the open JSON object.
template <typename Obj>
void json_members(JsonWriter &w, const Table<Obj> &t, const Obj &o,
		  unsigned groups = kGroups)
{
	std::string open;	// the "a" of "a.b" keys now open

	for (const Field<Obj> *f : shown(t, o, groups, false)) {
		std::string k = f->json;
		size_t dot = k.find('.');
		std::string in = dot == std::string::npos ? "" : k.substr(0, dot);

		if (in != open) {
			if (!open.empty())
				w.end_object();
			if (!in.empty())
				w.key(in).begin_object();
			open = in;
		}
		k = k.substr(in.empty() ? 0 : dot + 1);
		if (!(f->flags & kMembers)) {
			f->json_of(w.key(k), o);
		} else if (k.empty()) {
			f->json_of(w, o);
		} else {
			w.key(k).begin_object();
			f->json_of(w, o);
			w.end_object();
		}
	}
	if (!open.empty())
		w.end_object();
}

template <typename Obj>
void json(JsonWriter &w, const Table<Obj> &t, const Obj &o,
	  unsigned groups = kGroups)
{
	w.begin_object();
	json_members(w, t, o, groups);
	w.end_object();
}

// A nest of another table's attributes.
template <typename Obj, typename M, typename Sub = typename Member<M>::type>
Field<Obj> nest(int attr, M Obj::*m, const Table<Sub> &sub)
{
	using V = Member<M>;
	Field<Obj> f;

	f.info = {attr, nullptr, nla_policy{NLA_NESTED, 0, 0},
		  std::make_shared<const std::vector<AttrInfo>>(infos(sub)),
		  false};
	f.flags = kMembers;
	f.has = [m](const Obj &o) { return V::has(o.*m); };
	f.zero = [](const Obj &) { return false; };
	f.put = [m, &sub](nl_msg *msg, int a, const Obj &o) {
		nlattr *n = nest_start(msg, a);
		encode(msg, sub, V::value(o.*m));
		nla_nest_end(msg, n);
	};
	f.get = [m, &sub](const nlattr *a, Obj &o) {
		V::set(o.*m) = decode_nested(sub, a);
	};
	f.text_of = [m, &sub](const Obj &o) { return text(sub, V::value(o.*m)); };
	f.json_of = [m, &sub](JsonWriter &w, const Obj &o) {
		json_members(w, sub, V::value(o.*m));
	};
	return f;
}

// How a nest of entries shows: its entries' texts joined by `separator`;
// in JSON an array of objects or, keyed, an object whose members the
// entries' first rows name.
struct Entries {
	const char *separator;
	bool keyed;
};

// A nest of entries (numbered 1, 2, ...), each of another table.
template <typename Obj, typename M,
	  typename Entry = typename Member<M>::type::value_type>
Field<Obj> entries(int attr, M Obj::*m, const Table<Entry> &sub, Entries how)
{
	using V = Member<M>;
	Table<Entry> rest(sub.begin() + 1, sub.end());	// keyed: all but the name
	Field<Obj> f;

	f.info = {attr, nullptr, nla_policy{NLA_NESTED, 0, 0},
		  std::make_shared<const std::vector<AttrInfo>>(infos(sub)),
		  true};
	f.has = [m](const Obj &o) { return V::has(o.*m); };
	f.zero = [](const Obj &) { return false; };
	f.put = [m, &sub](nl_msg *msg, int a, const Obj &o) {
		nlattr *n = nest_start(msg, a);
		int i = 0;
		for (const Entry &e : V::value(o.*m)) {
			nlattr *ent = nest_start(msg, ++i);
			encode(msg, sub, e);
			nla_nest_end(msg, ent);
		}
		nla_nest_end(msg, n);
	};
	f.get = [m, &sub](const nlattr *a, Obj &o) {
		auto &out = V::set(o.*m);
		const nlattr *ent;
		int rem;
		nla_for_each_nested(ent, a, rem)
			out.push_back(decode_nested(sub, ent));
	};
	f.text_of = [m, &sub, how](const Obj &o) {
		std::string out;
		bool first = true;
		for (const Entry &e : V::value(o.*m)) {
			out += (first ? "" : how.separator) + text(sub, e);
			first = false;
		}
		return out;
	};
	f.json_of = [m, &sub, rest, how](JsonWriter &w, const Obj &o) {
		how.keyed ? w.begin_object() : w.begin_array();
		for (const Entry &e : V::value(o.*m)) {
			if (how.keyed)
				w.key(sub.front().text_of(e));
			json(w, how.keyed ? rest : sub, e);
		}
		how.keyed ? w.end_object() : w.end_array();
	};
	return f;
}

}  // namespace vg
