#ifndef CAPWATCH_CAP_H
#define CAPWATCH_CAP_H
/* Capability kinds (contract section 2), generated from capabilities.def. */

typedef enum cw_cap_kind {
	CW_CAP_NONE = -1, /* the operation needs no capability (/dev/null, scratch) */
#define CW_CAP(id, name, desc) CW_CAP_##id,
#include "capabilities.def"
#undef CW_CAP
	CW_CAP__COUNT
} cw_cap_kind;

/* "filesystem_read" etc.; "none" for CW_CAP_NONE; NULL when out of range. */
const char *cw_cap_name(cw_cap_kind kind);
const char *cw_cap_description(cw_cap_kind kind);
/* Returns the kind, or -EINVAL when the name is not a capability. */
int cw_cap_from_name(const char *name);

/* Profile rule slots: one per capability kind plus the secret part of
 * filesystem_read, which the contract's profile table treats separately.
 * In profile JSON the secret slot is spelled "filesystem_read_secret". */
#define CW_SLOT_SECRET_READ CW_CAP__COUNT
#define CW_SLOT__COUNT (CW_CAP__COUNT + 1)
const char *cw_slot_name(int slot);
int cw_slot_from_name(const char *name); /* -EINVAL when unknown */

#endif
