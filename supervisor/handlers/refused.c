/* Default deny: a syscall with no row in table.c (or a REFUSE row) is
 * refused with ENOSYS, what a kernel without it would say, so that a
 * program falls back to a call capwatch decides, and recorded as
 * `unrestricted` under its name. A profile that allows unrestricted (or
 * --observe) lets it run: the number is all the decision uses, so CONTINUE
 * is exact. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"

void cw_handle_unlisted(struct cw_notif *n)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	/* The first argument, for the record: it is often the operation. */
	ev.flags = (long long)n->req->data.args[0];
	ev.has_flags = true;
	if (!cw_notif_valid(n)) {
		n->answered = true;
		return;
	}
	if (cw_event_decide(n, &ev)) {
		enforce_continue(n, &ev);
	} else {
		ev.d.err = ENOSYS;
		cw_event_deny(n, &ev);
	}
	cw_event_record(n, &ev);
}
