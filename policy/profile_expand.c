/* A profile expanded to the profile-file format: every slot written out,
 * no "extends": what `capwatch profiles` prints and learn starts from. */
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "policy.h"
#include "profile.h"
#include "profile_impl.h"

char *cw_profile_to_json(const cw_profile *p)
{
	static const char *const lists[CW_LIST__COUNT] = {
		[CW_LIST_DENY] = "deny", [CW_LIST_ASK] = "ask", [CW_LIST_ALLOW] = "allow",
	};
	if (!p)
		return NULL;
	char *text = NULL;
	cJSON *root = cJSON_CreateObject();
	if (!root || !cJSON_AddStringToObject(root, "name", p->name))
		goto out;
	if (p->notes && !cJSON_AddStringToObject(root, "notes", p->notes))
		goto out;
	if (p->flag_sensitive && !cJSON_AddBoolToObject(root, "flagSensitive", 1))
		goto out;
	cJSON *caps = cJSON_AddObjectToObject(root, "capabilities");
	if (!caps)
		goto out;
	for (int k = 0; k < CW_SLOT__COUNT; k++) {
		/* the contract's order: the secret slot right after filesystem_read */
		int s = k == 0 ? CW_CAP_FILESYSTEM_READ : k == 1 ? CW_SLOT_SECRET_READ : k - 1;
		const struct cw_slot_rule *r = &p->slot[s];
		bool plain = !r->notes;
		for (int l = 0; l < CW_LIST__COUNT; l++)
			plain = plain && r->nscopes[l] == 0;
		if (plain) {
			if (!cJSON_AddStringToObject(caps, cw_slot_name(s), cw_verdict_name(r->def)))
				goto out;
			continue;
		}
		cJSON *o = cJSON_AddObjectToObject(caps, cw_slot_name(s));
		if (!o || !cJSON_AddStringToObject(o, "default", cw_verdict_name(r->def)))
			goto out;
		for (int l = 0; l < CW_LIST__COUNT; l++) {
			if (!r->nscopes[l])
				continue;
			cJSON *a = cJSON_AddArrayToObject(o, lists[l]);
			if (!a)
				goto out;
			for (size_t i = 0; i < r->nscopes[l]; i++) {
				cJSON *str = cJSON_CreateString(r->scopes[l][i]);
				if (!str || !cJSON_AddItemToArray(a, str)) {
					cJSON_Delete(str);
					goto out;
				}
			}
		}
		if (r->notes && !cJSON_AddStringToObject(o, "notes", r->notes))
			goto out;
	}
	text = cJSON_Print(root);
out:
	cJSON_Delete(root);
	return text;
}
