// SPDX-License-Identifier: GPL-2.0-only
#include "tenant.h"

#include "requests.h"
#include "units.h"

#include <cstring>

namespace vg {

namespace {

// An address and its prefix length travel as two attributes.
Field<Selector> address()
{
	using S = Selector;
	Field<S> f = custom(VERBSGATE_SEL_ATTR_ADDR, &S::prefix,
			    words<AddrPrefix>(format_prefix));

	f.put = [](nl_msg *m, int a, const S &s) {
		check_room(nla_put(m, a, int(s.prefix->len),
				   s.prefix->addr.data()));
	};
	f.get = [](const nlattr *a, S &s) {
		int len = nla_len(a);
		if (len != 4 && len != 16)
			return;
		AddrPrefix &p = s.prefix.emplace();
		p.len = size_t(len);
		memcpy(p.addr.data(), nla_data(a), p.len);
		p.plen = unsigned(len * 8);
	};
	return f;
}

Field<Selector> prefix_length()
{
	using S = Selector;
	Field<S> f = custom(VERBSGATE_SEL_ATTR_PREFIX_LEN, &S::prefix,
			    words<AddrPrefix>(format_prefix),
			    nla_policy{NLA_U8, 0, 0});

	f.put = [](nl_msg *m, int a, const S &s) {
		check_room(nla_put_u8(m, a, uint8_t(s.prefix->plen)));
	};
	f.get = [](const nlattr *a, S &s) {
		if (s.prefix)
			s.prefix->plen = nla_get_u8(a);
	};
	return f;
}

// A QP bound: in text only while it bounds, not at `none`, the value that
// means no bound; in JSON always, as the kernel has it.
template <typename T>
Field<Tenant> bound(int attr, std::optional<T> Tenant::*m,
		    typename Member<std::optional<T>>::type none,
		    Style<T> style = plain<T>())
{
	Field<Tenant> f = row(attr, m, style).nonzero();

	f.zero = [m, none](const Tenant &t) {
		return (t.*m).value_or(none) == none;
	};
	return f;
}

// The control verb burst: in text only while there is a pace (it means
// nothing without one); in JSON always.
Field<Tenant> ctrl_burst()
{
	Field<Tenant> f = row(VERBSGATE_ATTR_TENANT_CTRL_BURST,
			      &Tenant::ctrl_burst).nonzero();

	f.zero = [](const Tenant &t) { return t.ctrl_rate.value_or(0) == 0; };
	return f;
}

}  // namespace

const Table<Selector> &selector_table()
{
	using S = Selector;
	static const Table<S> t = {
		row(VERBSGATE_SEL_ATTR_TYPE, &S::type, words<uint32_t>(selector_name))
			.sent("selector").shows("%s").key("type"),
		row(VERBSGATE_SEL_ATTR_CGROUP_PATH, &S::cgroup_path)
			.sent("cgroup path").shows(" %s").key("path"),
		row(VERBSGATE_SEL_ATTR_CGROUP_ID, &S::cgroup_id).key("cgroup_id"),
		row(VERBSGATE_SEL_ATTR_ULP, &S::ulp)
			.sent("ulp name").shows(" %s").key("ulp"),
		address().sent("address").shows(" %s").key("prefix"),
		prefix_length().sent("prefix length"),
	};
	return t;
}

const Table<Tenant> &tenant_table()
{
	using T = Tenant;
	auto time = unit<uint64_t>(format_time);
	static const Table<T> t = {
		row(VERBSGATE_ATTR_TENANT_ID, &T::id)
			.in(kTenantKey).shows("%s: ").key("id"),
		row(VERBSGATE_ATTR_TENANT_NAME, &T::name).sent("tenant name")
			.in(kTenantKey).shows("%s:").key("name"),
		nest(VERBSGATE_ATTR_TENANT_SELECTOR, &T::sel, selector_table())
			.sent("selector").in(kTenantConfig)
			.shows(" selector %s").key("selector"),
		row(VERBSGATE_ATTR_TENANT_CLASS, &T::cls, words<uint32_t>(class_name))
			.sent("class").in(kTenantConfig)
			.shows(" class %s").key("class"),
		row(VERBSGATE_ATTR_TENANT_WEIGHT, &T::weight).sent("weight")
			.in(kTenantConfig).shows(" weight %s").key("weight"),
		row(VERBSGATE_ATTR_TENANT_MIN_RATE, &T::min_rate,
		    unit<uint64_t>(format_rate))
			.sent("min").in(kTenantConfig).nonzero()
			.shows(" min %s").key("min_rate"),
		row(VERBSGATE_ATTR_TENANT_MAX_RATE, &T::max_rate,
		    unit<uint64_t>(format_rate))
			.sent("max").in(kTenantConfig).nonzero()
			.shows(" max %s").key("max_rate"),
		bound(VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX, &T::rnr_retry_max,
		      kRetryNone)
			.sent("rnr-retry-max").in(kTenantConfig)
			.shows(" rnr-retry-max %s").key("rnr_retry_max"),
		bound(VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX, &T::retry_cnt_max,
		      kRetryNone)
			.sent("retry-cnt-max").in(kTenantConfig)
			.shows(" retry-cnt-max %s").key("retry_cnt_max"),
		bound(VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN, &T::rnr_timer_min_ns,
		      0, time)
			.sent("rnr-timer-min").in(kTenantConfig)
			.shows(" rnr-timer-min %s").key("rnr_timer_min_ns"),
		bound(VERBSGATE_ATTR_TENANT_TIMEOUT_MIN, &T::timeout_min_ns, 0,
		      time)
			.sent("timeout-min").in(kTenantConfig)
			.shows(" timeout-min %s").key("timeout_min_ns"),
		bound(VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX, &T::rd_atomic_max, 0)
			.sent("rd-atomic-max").in(kTenantConfig)
			.shows(" rd-atomic-max %s").key("rd_atomic_max"),
		row(VERBSGATE_ATTR_TENANT_CTRL_RATE, &T::ctrl_rate)
			.sent("ctrl-rate").in(kTenantConfig).nonzero()
			.shows(" ctrl-rate %s").key("ctrl_rate"),
		ctrl_burst()
			.sent("ctrl-burst").in(kTenantConfig)
			.shows(" ctrl-burst %s").key("ctrl_burst"),
		row(VERBSGATE_ATTR_TENANT_MR_BYTES_MAX, &T::mr_bytes_max,
		    unit<uint64_t>(format_size))
			.sent("mr-bytes-max").in(kTenantConfig).nonzero()
			.shows(" mr-bytes-max %s").key("mr_bytes_max"),
		row(VERBSGATE_ATTR_TENANT_QPS, &T::qps)
			.in(kTenantQps).shows(" qps %s").key("qps"),
		// JSON: the counters are the tenant's own members.
		nest(VERBSGATE_ATTR_TENANT_STATS, &T::stats, counters_table())
			.in(kTenantStats).shows("%s").key(""),
	};
	return t;
}

std::string tenant_text(const Tenant &t)
{
	return text(tenant_table(), t, kTenantKey | kTenantConfig | kTenantQps);
}

void tenant_json(JsonWriter &w, const Tenant &t)
{
	json(w, tenant_table(), t);
}

}  // namespace vg
