/* Names of the policy vocabulary. Every list here is generated from the
 * X-macro tables (capabilities.def, ops.def) so that adding a capability or
 * an operation kind is a one-line change there. */
#include <errno.h>
#include <string.h>
#include "cap.h"
#include "policy.h"

static const char *const cap_names[] = {
#define CW_CAP(id, name, desc) [CW_CAP_##id] = name,
#include "capabilities.def"
#undef CW_CAP
};

static const char *const cap_descs[] = {
#define CW_CAP(id, name, desc) [CW_CAP_##id] = desc,
#include "capabilities.def"
#undef CW_CAP
};

static const char *const op_names[] = {
#define CW_OP(id, name) [CW_OP_##id] = name,
#include "ops.def"
#undef CW_OP
};

_Static_assert(sizeof cap_names / sizeof cap_names[0] == CW_CAP__COUNT, "capabilities.def");
_Static_assert(sizeof op_names / sizeof op_names[0] == CW_OP__COUNT, "ops.def");

/* The one slot that is not a capability kind of its own. */
#define SECRET_SLOT_NAME "filesystem_read_secret"

const char *cw_cap_name(cw_cap_kind kind)
{
	if (kind == CW_CAP_NONE)
		return "none";
	if ((int)kind < 0 || kind >= CW_CAP__COUNT)
		return NULL;
	return cap_names[kind];
}

const char *cw_cap_description(cw_cap_kind kind)
{
	if (kind == CW_CAP_NONE)
		return "no capability needed";
	if ((int)kind < 0 || kind >= CW_CAP__COUNT)
		return NULL;
	return cap_descs[kind];
}

/* "none" is not accepted: -1 would be indistinguishable from -EPERM. */
int cw_cap_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < CW_CAP__COUNT; i++)
		if (strcmp(cap_names[i], name) == 0)
			return i;
	return -EINVAL;
}

const char *cw_slot_name(int slot)
{
	if (slot == CW_SLOT_SECRET_READ)
		return SECRET_SLOT_NAME;
	if (slot < 0 || slot >= CW_CAP__COUNT)
		return NULL;
	return cap_names[slot];
}

int cw_slot_from_name(const char *name)
{
	if (name && strcmp(name, SECRET_SLOT_NAME) == 0)
		return CW_SLOT_SECRET_READ;
	return cw_cap_from_name(name);
}

const char *cw_op_name(cw_op_kind k)
{
	if ((int)k < 0 || k >= CW_OP__COUNT)
		return NULL;
	return op_names[k];
}

int cw_op_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < CW_OP__COUNT; i++)
		if (strcmp(op_names[i], name) == 0)
			return i;
	return -EINVAL;
}

const char *cw_verdict_name(cw_verdict v)
{
	static const char *const names[] = {
		[CW_ALLOW] = "allow", [CW_DENY] = "deny", [CW_ASK] = "ask",
	};
	if ((unsigned)v >= sizeof names / sizeof names[0])
		return NULL;
	return names[v];
}

const char *cw_next_action_name(cw_next_action a)
{
	static const char *const names[] = {
		[CW_NEXT_NONE] = "none",
		[CW_NEXT_REQUEST_APPROVAL] = "request_approval",
		[CW_NEXT_CHANGE_COMMAND] = "change_command",
		[CW_NEXT_ENABLE_SANDBOX] = "enable_sandbox",
	};
	if ((unsigned)a >= sizeof names / sizeof names[0])
		return NULL;
	return names[a];
}

const char *cw_source_name(cw_source s)
{
	static const char *const names[] = {
		[CW_SOURCE_CONFIGURED_POLICY] = "configured_policy",
		[CW_SOURCE_PLATFORM_SANDBOX] = "platform_sandbox",
		[CW_SOURCE_APPROVAL] = "approval",
	};
	if ((unsigned)s >= sizeof names / sizeof names[0])
		return NULL;
	return names[s];
}
