/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate tenant selectors: which tenant's selector fits a QP best.
 *
 * A selector names the QPs a tenant takes; the facts say what is known
 * about one QP. vg_sel_rank() scores a selector against the facts, and
 * the tenant whose selector scores highest takes the QP. The rules, the
 * first that matches wins:
 *  1. cgroup: a user QP goes to the deepest selected cgroup that is an
 *     ancestor of, or is, the cgroup of the task that created it;
 *  2. address: the longest local or peer prefix matching the QP's source
 *     or destination GID (an IPv4 prefix matches IPv4-mapped GIDs); at
 *     equal length a peer prefix wins over a local one;
 *  3. ULP: a kernel QP goes to the selector with its restrack owner name;
 *  4. default: matches every QP.
 * A user QP never matches a ULP selector and a kernel QP never matches a
 * cgroup selector; a QP without addresses matches no address selector.
 *
 * Everything here is plain data: the glue (tenant/classify.c) describes a
 * cgroup by an opaque identity and its depth, and a user QP's cgroup by
 * its ancestor array indexed by depth, the way struct cgroup keeps
 * ancestors[] and level. The selected cgroup is then an ancestor-or-self
 * of the QP's exactly when its level is at most the QP's and the QP's
 * ancestors[level] is it, which is what cgroup_is_descendant() tests.
 *
 * Context and locking: any context, no locks, no sleeping, no allocation.
 * The functions read what they are given and nothing else; the caller
 * keeps the pointed-to data alive and unchanged during a call.
 */
#ifndef _VG_CORE_SELECT_H
#define _VG_CORE_SELECT_H

#include "vg_compat.h"

/* Mirrors enum verbsgate_selector of the uapi (asserted in classify.c). */
enum vg_sel_type {
	VG_SEL_DEFAULT,
	VG_SEL_CGROUP,
	VG_SEL_ULP,
	VG_SEL_LOCAL_ADDR,
	VG_SEL_PEER_ADDR,
	VG_SEL_NR,
};

/* Bytes of an address (an IPv6 address or a GID), bits of a prefix. */
#define VG_SEL_ADDR_LEN		16
#define VG_SEL_PLEN_MAX		(VG_SEL_ADDR_LEN * 8)

/*
 * vg_sel_rank() values: the rule (bits 32 and up, higher wins) and the
 * specificity within it (low 32 bits): the cgroup's level, or twice the
 * prefix length plus one for a peer prefix. 0 is no match.
 */
#define VG_SEL_RANK(rule, spec)	(((u64)(rule) << 32) | (u32)(spec))

enum vg_sel_rule {
	VG_SEL_RULE_DEFAULT = 1,
	VG_SEL_RULE_ULP,
	VG_SEL_RULE_ADDR,
	VG_SEL_RULE_CGROUP,
};

/**
 * struct vg_sel - a tenant's selector, as plain data
 * @type: enum vg_sel_type
 * @plen: address selector: prefix length over @addr, 0..VG_SEL_PLEN_MAX
 *	(an IPv4 prefix of n bits is the IPv4-mapped prefix of 96 + n bits)
 * @addr: address selector: the prefix, bits beyond @plen clear
 * @ulp: ULP selector: restrack owner name, or NULL (matches nothing)
 * @cgrp: cgroup selector: the cgroup's identity (compared, never read),
 *	or NULL (matches nothing)
 * @level: cgroup selector: the cgroup's depth, 0 for the root
 */
struct vg_sel {
	u32 type;
	u8 plen;
	u8 addr[VG_SEL_ADDR_LEN];
	const char *ulp;
	const void *cgrp;
	int level;
};

/**
 * struct vg_sel_facts - what is known about a QP, as plain data
 * @user: created through uverbs on behalf of a task (else by the kernel)
 * @ancestors: user QP: the creating task's cgroup's ancestors, indexed by
 *	level, itself at [@level]; NULL if unknown
 * @level: user QP: the creating task's cgroup's depth, 0 for the root
 * @ulp: kernel QP: restrack owner name, or NULL
 * @local: source GID (VG_SEL_ADDR_LEN bytes) once the address vector is
 *	set, else NULL
 * @peer: destination GID (VG_SEL_ADDR_LEN bytes) once the address vector
 *	is set, else NULL
 */
struct vg_sel_facts {
	bool user;
	const void *const *ancestors;
	int level;
	const char *ulp;
	const u8 *local;
	const u8 *peer;
};

/**
 * vg_sel_rank() - how well a selector fits a QP
 * @sel: selector
 * @f: the QP's facts
 *
 * Context: any, pure.
 * Return: 0 if @sel does not select the QP, otherwise VG_SEL_RANK() of
 * the rule that matches and its specificity: of two selectors, the one
 * with the larger value takes the QP.
 */
u64 vg_sel_rank(const struct vg_sel *sel, const struct vg_sel_facts *f);

/**
 * vg_sel_equal() - whether two selectors select the same QPs
 * @a: selector
 * @b: selector
 *
 * Context: any, pure.
 * Return: true if @a and @b have the same type and the same cgroup, ULP
 * name, or prefix (length and bits); two default selectors, or two of the
 * same unknown type, are equal.
 */
bool vg_sel_equal(const struct vg_sel *a, const struct vg_sel *b);

/**
 * vg_sel_prefix_match() - whether an address starts with a prefix
 * @prefix: VG_SEL_ADDR_LEN bytes
 * @plen: bits of @prefix to compare, 0..VG_SEL_PLEN_MAX
 * @addr: VG_SEL_ADDR_LEN bytes
 *
 * Context: any, pure.
 * Return: true if the first @plen bits of @prefix and @addr agree (always
 * for @plen 0); false for @plen above VG_SEL_PLEN_MAX.
 */
bool vg_sel_prefix_match(const u8 *prefix, unsigned int plen, const u8 *addr);

/**
 * vg_sel_prefix_init() - validate an address prefix and fill a selector's
 * @sel: selector whose @addr and @plen are set (only on success)
 * @addr: the address, @len bytes
 * @len: 4 (IPv4, stored IPv4-mapped) or 16 (IPv6 address or GID)
 * @plen: prefix length in bits of @addr, or -1 for all of them
 *
 * Context: any, pure.
 * Return: 0; -EINVAL if @len is neither 4 nor 16 or @addr has a bit set
 * beyond @plen; -ERANGE if @plen is above 8 * @len (or below -1).
 */
int vg_sel_prefix_init(struct vg_sel *sel, const u8 *addr, unsigned int len,
		       int plen);

#endif /* _VG_CORE_SELECT_H */
