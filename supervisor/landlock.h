#ifndef CAPWATCH_LANDLOCK_H
#define CAPWATCH_LANDLOCK_H
/* The kernel backstop (issue 4 item 4): a Landlock domain on the command.
 * capwatch emulates the writes it allows (the supervisor opens, creates and
 * removes on its own descriptors, outside the domain), so the domain only
 * binds what the command does itself: the calls capwatch CONTINUEs (device
 * and /proc opens, symlink-level operations) and anything a race or a bug
 * would let through. Write rights are allowed beneath the workspace roots
 * (when the profile allows workspace writes at all), the scratch directory,
 * /dev, the regular files the command's stdin/stdout/stderr are, and the
 * paths the profile's "unrestricted" allow and ask scopes name (each glob
 * cut back to its literal directory); reads are not handled (the
 * supervisor decides them). Only when such a write could be allowed
 * anywhere is the fs part left out. */
#include <stdbool.h>

struct cw_run;

/* In the parent, before fork: probe the ABI and build the ruleset, in the
 * module's state (run->landlock, made here). Never fails the run: an
 * unusable Landlock leaves the layer out. */
void cw_landlock_prepare(struct cw_run *run);
/* Close the ruleset and free run->landlock (the end of the run). */
void cw_landlock_free(struct cw_run *run);

/* In the child, after PR_SET_NO_NEW_PRIVS and before the seccomp filter
 * (async-signal-safe). Returns 0 (also when nothing was prepared) or
 * -errno. */
int cw_landlock_child(const struct cw_run *run);

/* The report's layer name ("landlock-abi7:fs+scope"), or NULL when no
 * Landlock domain was applied. */
const char *cw_landlock_layer(const struct cw_run *run);

/* Why the layer is absent or partial ("" when fully applied). */
const char *cw_landlock_note(const struct cw_run *run);

/* True when the fs part was left out because the profile may allow writes
 * anywhere outside the workspace ("unrestricted" allowed or asked by
 * default, or by a scope such as "**" that can match under "/"); the run
 * notes why. */
bool cw_landlock_fs_unbounded(const struct cw_run *run);
/* Does the ruleset handle reads (run->kernel_reads asked for it, and the
 * fs part applies)? Without it reads cannot be passed in the kernel. */
bool cw_landlock_reads(const struct cw_run *run);

#endif
