// SPDX-License-Identifier: GPL-2.0-only
#include "counters.h"

#include "units.h"

namespace vg {

const Table<Counters> &counters_table()
{
	using C = Counters;
	static const Table<C> t = {
		row(VERBSGATE_STAT_ATTR_TX_BYTES, &C::tx_bytes)
			.shows(" tx_bytes %s").key("tx_bytes"),
		row(VERBSGATE_STAT_ATTR_TX_WRS, &C::tx_wrs)
			.shows(" tx_wrs %s").key("tx_wrs"),
		row(VERBSGATE_STAT_ATTR_CHUNKS, &C::chunks)
			.shows(" chunks %s").key("chunks"),
		row(VERBSGATE_STAT_ATTR_SPLIT_WRS, &C::split_wrs)
			.shows(" split_wrs %s").key("split_wrs"),
		row(VERBSGATE_STAT_ATTR_THROTTLED_NS, &C::throttled_ns,
		    unit<uint64_t>(format_time))
			.shows(" throttled %s").key("throttled_ns"),
		row(VERBSGATE_STAT_ATTR_QUEUED_WRS, &C::queued_wrs)
			.shows(" queued_wrs %s").key("queued_wrs"),
		row(VERBSGATE_STAT_ATTR_QP_CLAMPS, &C::qp_clamps)
			.shows(" qp_clamps %s").key("qp_clamps"),
		row(VERBSGATE_STAT_ATTR_CTRL_VERBS, &C::ctrl_verbs)
			.shows(" ctrl_verbs %s").key("ctrl_verbs"),
		row(VERBSGATE_STAT_ATTR_CTRL_WAIT_NS, &C::ctrl_wait_ns,
		    unit<uint64_t>(format_time))
			.shows(" ctrl_wait %s").key("ctrl_wait_ns"),
		row(VERBSGATE_STAT_ATTR_MR_BYTES, &C::mr_bytes)
			.shows(" mr_bytes %s").key("mr_bytes"),
		row(VERBSGATE_STAT_ATTR_MR_REFUSED, &C::mr_refused)
			.shows(" mr_refused %s").key("mr_refused"),
		row(VERBSGATE_STAT_ATTR_QP_ERRORS, &C::qp_errors)
			.shows(" qp_errors %s").key("qp_errors"),
		row(VERBSGATE_STAT_ATTR_RETRY_BYTES, &C::retry_bytes)
			.shows(" retry_bytes %s").key("retry_bytes"),
	};
	return t;
}

}  // namespace vg
