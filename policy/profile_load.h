#ifndef CAPWATCH_PROFILE_LOAD_H
#define CAPWATCH_PROFILE_LOAD_H
/* --profile NAME|FILE: a built-in name, or a JSON profile file (whose
 * "extends" may name another file, relative to it). The one loader of the
 * supervisor and the trace tools. Unlike the rest of policy/ it reads
 * files, so it is not in libcwpolicy (policy/local.mk). */
#include <stddef.h>
#include "profile.h"

struct cw_profile_files {
	char **paths; /* absolute names of every profile file read (protected):
		       * each one's resolved name and cw_walked_names of the
		       * name the loader reached it by; NULL-terminated */
	size_t n;
};

/* Load ARG. On success returns 0 and a profile in *OUT, with the files it
 * came from appended to FILES. On failure prints one line
 * "capwatch: FILE:LINE: message" (or "capwatch: FILE: reason") on stderr,
 * control characters escaped, and returns -errno. A name with no '/' that
 * is a built-in profile is the built-in; anything else is a file path. */
int cw_profile_load(const char *arg, cw_profile **out, struct cw_profile_files *files);

/* The same without printing: the message (no "capwatch: " prefix) goes to
 * ERR, for a caller that writes its diagnostics elsewhere. */
int cw_profile_load_quiet(const char *arg, cw_profile **out, struct cw_profile_files *files,
			  char *err, size_t errsz);

/* Append to *NAMES (N entries, kept NULL-terminated; duplicates skipped)
 * the names the kernel walks to reach NAME from CWD (absolute; ignored
 * when NAME is absolute): NAME joined to CWD with its ".." kept
 * (cw_path_join), and at each symlink met on the way the name continued
 * through the link's target. Every directory and symlink of the walk is
 * then a directory above one of them (cw_path_holds_protected), so
 * protecting them keeps NAME reaching the same file. Reads the file
 * system (lstat, readlink) like the loader, hence here, not in path.c.
 * Returns 0 or -ENOMEM; past PATH_MAX or a missing component it stops. */
int cw_walked_names(const char *cwd, const char *name, char ***names, size_t *n);

void cw_profile_files_free(struct cw_profile_files *files);

#endif
