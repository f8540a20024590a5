/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * verbsgate: per-tenant performance isolation for shared RDMA devices.
 * User-kernel interface of the "verbsgate" generic netlink family.
 *
 * ABI rules:
 *  - Commands and attributes are only ever appended; values never change
 *    meaning and are never reused.
 *  - The kernel validates every request strictly: an attribute it does not
 *    know, or one that is output-only, is rejected with an extended ack.
 *  - User space must tolerate attributes it does not know in replies.
 *  - Commands that change state require CAP_NET_ADMIN; GET and dump
 *    commands are open to every user.
 */
#ifndef _UAPI_LINUX_VERBSGATE_H
#define _UAPI_LINUX_VERBSGATE_H

#define VERBSGATE_GENL_NAME	"verbsgate"
#define VERBSGATE_GENL_VERSION	1

enum verbsgate_cmd {
	VERBSGATE_CMD_UNSPEC,
	/* Module-wide status; reply carries VERBSGATE_ATTR_VERSION, DEV_COUNT. */
	VERBSGATE_CMD_GET_STATUS,
	/*
	 * One device (request carries DEV_INDEX or DEV_NAME) or, with
	 * NLM_F_DUMP, every device verbsgate is attached to.
	 */
	VERBSGATE_CMD_DEV_GET,

	__VERBSGATE_CMD_MAX,
	VERBSGATE_CMD_MAX = __VERBSGATE_CMD_MAX - 1
};

enum verbsgate_attr {
	VERBSGATE_ATTR_UNSPEC,
	VERBSGATE_ATTR_PAD,
	VERBSGATE_ATTR_VERSION,		/* string: module version, output */
	VERBSGATE_ATTR_DEV_COUNT,	/* u32: attached devices, output */
	VERBSGATE_ATTR_DEV_INDEX,	/* u32: ib_device index (as `rdma dev`) */
	VERBSGATE_ATTR_DEV_NAME,	/* string: ib_device name, e.g. "rxe0" */
	VERBSGATE_ATTR_DEV_DRIVER,	/* string: driver module, output */
	VERBSGATE_ATTR_DEV_PORTS,	/* u32: number of ports, output */
	VERBSGATE_ATTR_DEV_NODE_GUID,	/* u64: node GUID (host order), output */

	__VERBSGATE_ATTR_MAX,
	VERBSGATE_ATTR_MAX = __VERBSGATE_ATTR_MAX - 1
};

#endif /* _UAPI_LINUX_VERBSGATE_H */
