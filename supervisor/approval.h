#ifndef CAPWATCH_APPROVAL_H
#define CAPWATCH_APPROVAL_H
/* Approvals while the run goes on (issue 7): an operation the profile says
 * "ask" for waits, unanswered in the kernel, while a person on the terminal
 * (/dev/tty) or a program on the approval socket decides; the event loop
 * and every other process go on meanwhile.
 *
 * The handler's usual ending (cw_event_finish) answers an ask it cannot
 * settle with CW_ANSWER_DEFER; applying that answer hands the notification
 * to cw_approval_defer(), which keeps it (and the question, not the
 * event) in a pending record. Any answer then runs the syscall's handler
 * again on the saved notification: it decodes and decides afresh, and its
 * decision meets the answer (cw_approval_remembered) only if the operation
 * is still the one asked about (capability, scope); the handler enforces
 * an allow with its own state, and denies and records a deny, a timeout,
 * a dropped client or capwatch's exit.
 *
 * Exec is not deferred (the exec stop re-checks the program outside the
 * notification): an asked exec is denied with nextAction request_approval,
 * as are asks decided outside cw_event_finish (sendmmsg, some proc
 * calls). */
#include <stdbool.h>
#include "supervisor/notify.h"

struct cw_run;

/* Set up the approvers the options ask for (the terminal when capwatch has
 * one, --approval-socket), with the module's state in run->approval.
 * Returns 0 or -errno (a socket that cannot be created is a setup
 * failure). */
int cw_approval_init(struct cw_run *run);
/* One fd for the event loop (an epoll set of the approvers and a timer),
 * -1 when no approver is active. Readable: call cw_approval_dispatch(). */
int cw_approval_fd(const struct cw_run *run);
void cw_approval_dispatch(struct cw_run *run);
/* Deny every pending approval, close the approvers and free
 * run->approval (capwatch's exit; later calls do nothing). */
void cw_approval_shutdown(struct cw_run *run);

/* While the handler runs again for a notification whose question was
 * denied, or not answered: EV->d becomes that question's denial (its
 * capability, scope and errno, the approval's rule and reason), whatever
 * EV now decides; the notification is not asked again. True when it did.
 * (An allow covers only the operation asked about: see below.) */
bool cw_approval_refused(struct cw_notif *n, struct cw_event *ev);

/* For an ask that approvals on the command line did not settle: apply an
 * "allow once" given to this very notification, or an answer remembered
 * "for this run". Returns true when that allowed it (EV->d rewritten as an
 * approval); a remembered deny rewrites EV->d too. Otherwise EV->d becomes
 * a deny with nextAction request_approval. */
bool cw_approval_remembered(struct cw_notif *n, struct cw_event *ev);

/* The approval stage of an answer (notify.c applies CW_ANSWER_DEFER
 * here): EV was decided "ask" and is about to be denied; keep it waiting
 * instead when an approver may answer. Returns true when the notification
 * is now pending (answered and recorded when the handler runs again);
 * false: deny it now. */
bool cw_approval_defer(struct cw_notif *n, struct cw_event *ev);

#endif
