// SPDX-License-Identifier: GPL-2.0-only
#include "requests.h"

#include "units.h"

#include <linux/verbsgate.h>

#include <functional>
#include <sstream>

namespace vg {

namespace {

const char *const class_names[] = {"bandwidth", "throughput", "latency"};
const char *const op_class_names[] = {"data", "atomic", "mr"};
const char *const selector_names[] = {"default", "cgroup", "ulp", "local",
				      "peer"};

template <size_t N>
uint32_t lookup(const std::string &word, const char *const (&names)[N],
		const char *what)
{
	for (size_t i = 0; i < N; i++)
		if (matches(word, names[i]))
			return uint32_t(i);
	std::string all;
	for (size_t i = 0; i < N; i++)
		all += std::string(i ? " | " : "") + names[i];
	throw UsageError("unknown " + std::string(what) + " \"" + word +
			 "\" (" + all + ")");
}

// Converts the next word with a units parser, naming the keyword on error.
template <typename T>
T value(Args &args, const char *keyword, const std::function<T(const std::string &)> &parse)
{
	std::string w = args.next(keyword);

	try {
		return parse(w);
	} catch (const UnitError &e) {
		throw UsageError(std::string(keyword) + ": " + e.what());
	}
}

uint64_t rate(Args &args, const char *keyword, const char *zero_word)
{
	if (zero_word && args.accept(zero_word))
		return 0;
	return value<uint64_t>(args, keyword, parse_rate);
}

uint32_t u32(Args &args, const char *keyword)
{
	return uint32_t(value<uint64_t>(args, keyword, [](const std::string &s) {
		return parse_uint(s, UINT32_MAX);
	}));
}

uint32_t size32(Args &args, const char *keyword)
{
	return uint32_t(value<uint64_t>(args, keyword, [](const std::string &s) {
		uint64_t v = parse_size(s);
		if (v > UINT32_MAX)
			throw UnitError("size \"" + s + "\" is above 4GiB");
		return v;
	}));
}

// A QP bound of a count: min..max, or none for `none`, the value that
// means no bound.
uint8_t count_bound(Args &args, const char *keyword, uint8_t min, uint8_t max,
		    uint8_t none)
{
	if (args.accept("none"))
		return none;
	return uint8_t(value<uint64_t>(args, keyword,
				       [min, max](const std::string &s) {
		uint64_t v = parse_uint(s, max);
		if (v < min)
			throw UnitError("number \"" + s + "\" is below " +
					std::to_string(min) +
					" (none: no bound)");
		return v;
	}));
}

// A QP bound of a time: 0..max ns, none (or 0) for no bound.
uint64_t time_bound(Args &args, const char *keyword, uint64_t max)
{
	if (args.accept("none"))
		return 0;
	return value<uint64_t>(args, keyword, [max](const std::string &s) {
		uint64_t ns = parse_time(s);
		if (ns > max) {
			std::string limit = format_time(max);
			if (parse_time(limit) != max)	// rounded
				limit = std::to_string(max) + "ns";
			throw UnitError("time \"" + s + "\" is above " + limit);
		}
		return ns;
	});
}

// The QP bound the next words give, if they give one.
bool qp_bound(Args &args, Tenant &t)
{
	if (args.accept("rnr-retry-max"))
		t.rnr_retry_max = count_bound(args, "rnr-retry-max", 0,
					      kRetryNone, kRetryNone);
	else if (args.accept("retry-cnt-max"))
		t.retry_cnt_max = count_bound(args, "retry-cnt-max", 0,
					      kRetryNone, kRetryNone);
	else if (args.accept("rnr-timer-min"))
		t.rnr_timer_min_ns = time_bound(args, "rnr-timer-min",
						kRnrTimerMaxNs);
	else if (args.accept("timeout-min"))
		t.timeout_min_ns = time_bound(args, "timeout-min",
					      kTimeoutMaxNs);
	else if (args.accept("rd-atomic-max"))
		t.rd_atomic_max = count_bound(args, "rd-atomic-max", 1,
					      UINT8_MAX, 0);
	else
		return false;
	return true;
}

// A control verb pace's number: 1..kCtrlMax; `none` (0) if none_ok.
uint32_t ctrl_count(Args &args, const char *keyword, bool none_ok)
{
	if (none_ok && args.accept("none"))
		return 0;
	return uint32_t(value<uint64_t>(args, keyword,
					[none_ok](const std::string &s) {
		uint64_t v = parse_uint(s, kCtrlMax);
		if (v < 1)
			throw UnitError("number \"" + s + "\" is below 1" +
					(none_ok ? " (none: no pace)" : ""));
		return v;
	}));
}

// The control verb pace the next words give, if they give one.
bool ctrl_pace(Args &args, Tenant &t)
{
	if (args.accept("ctrl-rate"))
		t.ctrl_rate = ctrl_count(args, "ctrl-rate", true);
	else if (args.accept("ctrl-burst"))
		t.ctrl_burst = ctrl_count(args, "ctrl-burst", false);
	else
		return false;
	return true;
}

// The MR byte quota the next words give, if they give one: a size, or
// `none` (0).
bool mr_quota(Args &args, Tenant &t)
{
	if (!args.accept("mr-bytes-max"))
		return false;
	t.mr_bytes_max = args.accept("none") ? 0 :
		value<uint64_t>(args, "mr-bytes-max", [](const std::string &s) {
			uint64_t v = parse_size(s);
			if (v < 1)
				throw UnitError("size \"" + s + "\" is below 1 byte (none: no quota)");
			return v;
		});
	return true;
}

bool on_off(Args &args, const char *keyword, const char *on, const char *off)
{
	if (args.accept(on))
		return true;
	if (args.accept(off))
		return false;
	throw UsageError(std::string(keyword) + " takes " + on + " or " + off);
}

std::string name(Args &args, const char *what)
{
	std::string n = args.next(what);

	if (n.empty())
		throw UsageError(std::string("empty ") + what);
	return n;
}

// A filter keyword's value, at most once.
void filter(std::optional<std::string> &slot, Args &args, const char *keyword,
	    const char *what)
{
	if (slot)
		throw UsageError(std::string(keyword) + " given twice");
	slot = name(args, what);
}

}  // namespace

uint32_t parse_class(const std::string &word)
{
	return lookup(word, class_names, "class");
}

const char *class_name(uint32_t cls)
{
	return cls < std::size(class_names) ? class_names[cls] : "?";
}

uint32_t parse_op_class(const std::string &word)
{
	return lookup(word, op_class_names, "operation class");
}

const char *op_class_name(uint32_t cls)
{
	return cls < std::size(op_class_names) ? op_class_names[cls] : "?";
}

const char *selector_name(uint32_t type)
{
	return type < std::size(selector_names) ? selector_names[type] : "?";
}

std::vector<ChunkEntry> parse_chunk_table(const std::string &s)
{
	std::vector<ChunkEntry> table;
	std::stringstream ss(s);
	std::string item;

	while (std::getline(ss, item, ',')) {
		size_t at = item.find('@');
		if (at == std::string::npos)
			throw UsageError("chunk-table entry \"" + item +
					 "\" is not SIZE@PERCENT");
		ChunkEntry e;
		try {
			uint64_t size = parse_size(item.substr(0, at));
			if (size > UINT32_MAX)
				throw UnitError("size above 4GiB");
			e.size = uint32_t(size);
			e.util_ppm = parse_percent_ppm(item.substr(at + 1));
		} catch (const UnitError &err) {
			throw UsageError("chunk-table entry \"" + item +
					 "\": " + err.what());
		}
		table.push_back(e);
	}
	if (table.empty())
		throw UsageError("chunk-table needs at least one SIZE@PERCENT");
	return table;
}

Tenant parse_tenant_add(Args &args, const std::vector<Cgroup2Mount> &mounts)
{
	Tenant t;

	t.name = name(args, "tenant name");
	while (!args.empty()) {
		Selector s;

		if (args.accept("cgroup")) {
			s.type = VERBSGATE_SEL_CGROUP;
			s.cgroup_path = cgroup_hierarchy_path(
				args.next("cgroup path"), mounts);
		} else if (args.accept("ulp")) {
			s.type = VERBSGATE_SEL_ULP;
			s.ulp = args.next("ULP name");
		} else if (args.accept("local")) {
			s.type = VERBSGATE_SEL_LOCAL_ADDR;
			s.prefix = parse_prefix(args.next("local prefix"));
		} else if (args.accept("peer")) {
			s.type = VERBSGATE_SEL_PEER_ADDR;
			s.prefix = parse_prefix(args.next("peer prefix"));
		} else {
			if (args.accept("class")) {
				t.cls = parse_class(args.next("class"));
			} else if (args.accept("weight")) {
				t.weight = u32(args, "weight");
			} else if (args.accept("min")) {
				t.min_rate = rate(args, "min", nullptr);
			} else if (args.accept("max")) {
				t.max_rate = rate(args, "max", nullptr);
			} else if (!qp_bound(args, t) && !ctrl_pace(args, t) &&
				   !mr_quota(args, t)) {
				throw UsageError("unknown tenant add argument \"" +
						 args.peek() + "\"");
			}
			continue;
		}
		if (t.sel)
			throw UsageError("a tenant has one selector");
		t.sel = s;
	}
	if (!t.sel)
		throw UsageError("missing selector: cgroup PATH | ulp NAME | "
				 "local PREFIX | peer PREFIX");
	if (!t.cls)
		throw UsageError("missing class (bandwidth | throughput | "
				 "latency)");
	if (!t.weight)
		throw UsageError("missing weight");
	return t;
}

Tenant parse_tenant_set(Args &args)
{
	Tenant t;

	t.name = name(args, "tenant name");
	while (!args.empty()) {
		if (args.accept("class"))
			t.cls = parse_class(args.next("class"));
		else if (args.accept("weight"))
			t.weight = u32(args, "weight");
		else if (args.accept("min"))
			t.min_rate = rate(args, "min", "none");
		else if (args.accept("max"))
			t.max_rate = rate(args, "max", "none");
		else if (qp_bound(args, t) || ctrl_pace(args, t) ||
			 mr_quota(args, t))
			continue;
		else if (args.peek() == "cgroup" || args.peek() == "ulp" ||
			 args.peek() == "local" || args.peek() == "peer")
			throw UsageError("a tenant's selector cannot change; "
					 "delete and add the tenant");
		else
			throw UsageError("unknown tenant set argument \"" +
					 args.peek() + "\"");
	}
	if (!t.cls && !t.weight && !t.min_rate && !t.max_rate &&
	    !t.rnr_retry_max && !t.retry_cnt_max && !t.rnr_timer_min_ns &&
	    !t.timeout_min_ns && !t.rd_atomic_max && !t.ctrl_rate &&
	    !t.ctrl_burst && !t.mr_bytes_max)
		throw UsageError("nothing to set: class, weight, min, max, "
				 "rnr-retry-max, retry-cnt-max, rnr-timer-min, "
				 "timeout-min, rd-atomic-max, ctrl-rate, "
				 "ctrl-burst or mr-bytes-max");
	return t;
}

Device parse_dev_set(Args &args)
{
	Device d;

	d.name = name(args, "device name");
	while (!args.empty()) {
		if (args.accept("maxrate")) {
			d.max_rate = rate(args, "maxrate", nullptr);
		} else if (args.accept("maxops")) {
			d.max_ops = value<uint64_t>(args, "maxops",
						    [](const std::string &s) {
				return parse_uint(s, UINT64_MAX);
			});
		} else if (args.accept("target-p99")) {
			d.target_p99_ns = args.accept("none") ? 0 :
				value<uint64_t>(args, "target-p99", parse_time);
		} else if (args.accept("step")) {
			d.step = args.accept("auto") ? 0 :
				rate(args, "step", nullptr);
		} else if (args.accept("period")) {
			d.period_ns = value<uint64_t>(args, "period",
						      parse_time);
		} else if (args.accept("burst")) {
			d.burst = size32(args, "burst");
		} else if (args.peek() == "chunk") {
			// Exact: "chunk" is also a prefix of the two below.
			args.next("chunk");
			d.chunk_table = std::vector<ChunkEntry>{
				{size32(args, "chunk"), VERBSGATE_PPM}};
		} else if (args.accept("chunk-table")) {
			d.chunk_table = parse_chunk_table(
				args.next("chunk-table"));
		} else if (args.accept("chunk-nolat")) {
			d.chunk_nolat = size32(args, "chunk-nolat");
		} else if (args.accept("cost")) {
			OpCost c;
			c.cls = parse_op_class(args.next("operation class"));
			for (;;) {
				if (args.accept("bytes"))
					c.bytes = u32(args, "cost bytes");
				else if (args.accept("units"))
					c.units = u32(args, "cost units");
				else
					break;
			}
			if (!c.bytes && !c.units)
				throw UsageError("cost " +
						 std::string(op_class_name(c.cls)) +
						 " needs bytes N and/or units N");
			for (const auto &o : d.costs)
				if (o.cls == c.cls)
					throw UsageError("cost " +
							 std::string(op_class_name(c.cls)) +
							 " given twice");
			d.costs.push_back(c);
		} else if (args.accept("latency-weight")) {
			d.lat_each = on_off(args, "latency-weight", "each",
					    "group");
		} else if (args.accept("enforce")) {
			d.enforce = on_off(args, "enforce", "on", "off");
		} else if (args.accept("user-qps")) {
			d.user_qps_deny = on_off(args, "user-qps", "deny",
						 "allow");
		} else if (args.accept("link-rate")) {
			// After the older settings: keywords match by prefix.
			d.link_rate = rate(args, "link-rate", "device");
		} else if (args.accept("pkt-overhead")) {
			d.pkt_overhead = args.accept("auto") ?
				VERBSGATE_PKT_OVERHEAD_AUTO :
				u32(args, "pkt-overhead");
		} else {
			throw UsageError("unknown dev set argument \"" +
					 args.peek() + "\"");
		}
	}
	if (!d.max_rate && !d.max_ops && !d.target_p99_ns && !d.step &&
	    !d.period_ns && !d.burst && !d.chunk_nolat && !d.chunk_table &&
	    d.costs.empty() && !d.lat_each && !d.enforce && !d.user_qps_deny &&
	    !d.link_rate && !d.pkt_overhead)
		throw UsageError("nothing to set; see 'verbsgate dev help'");
	return d;
}

Qp parse_qp_show(Args &args)
{
	Qp q;

	while (!args.empty()) {
		if (args.accept("dev"))
			filter(q.dev, args, "dev", "device name");
		else if (args.accept("tenant"))
			filter(q.tenant, args, "tenant", "tenant name");
		else
			throw UsageError("unknown qp show argument \"" +
					 args.peek() + "\"");
	}
	return q;
}

}  // namespace vg
