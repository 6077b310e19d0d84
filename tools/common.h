#ifndef CAPWATCH_TOOLS_COMMON_H
#define CAPWATCH_TOOLS_COMMON_H
/* Shared plumbing of the trace tools (replay, explain, learn, diff, export,
 * profiles): one streaming trace reader with one policy for bad input, an
 * aggregate model of a run (process tree, capabilities, denials), profile
 * loading, small containers, and safe terminal output.
 *
 * Exit statuses shared by every tool (documented in each --help):
 *   0   success (replay: nothing would change; diff: nothing new)
 *   1   replay: some decision would change; diff: something new appeared
 *   2   bad input: missing/unreadable file, not a trace, newer schema
 *   125 usage error or unreadable/invalid profile
 *
 * The reader's policy for bad input is in tools/trace_reader.h. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "policy/cap.h"
#include "policy/profile.h"
#include "tools/sset.h"
#include "tools/trace_reader.h"
#include "tools/run_model.h"

typedef struct cJSON cJSON;

#define CW_TOOL_EXIT_OK 0
#define CW_TOOL_EXIT_CHANGED 1
#define CW_TOOL_EXIT_BADINPUT 2
#define CW_TOOL_EXIT_USAGE 125

/* ---- messages: one write per message, prefixed "capwatch: " ---- */
void cw_tool_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write S to F with control characters (C0, DEL, C1) shown as \xNN, so a
 * path from a hostile trace cannot drive the terminal. NULL prints "-". */
void cw_tool_put(FILE *f, const char *s);
/* Same, at most MAX bytes of S (then "..."). */
void cw_tool_put_max(FILE *f, const char *s, size_t max);

/* Terminal styles: empty strings unless stdout is a tty and NO_COLOR is unset. */
struct cw_style {
	const char *bold, *dim, *red, *yellow, *green, *cyan, *reset;
};
void cw_style_init(struct cw_style *st, FILE *f);

/* ---- JSON field helpers (NULL/defaults when absent or of another type) ---- */
const char *cw_j_str(const cJSON *o, const char *key);
double cw_j_num(const cJSON *o, const char *key, double def);
bool cw_j_bool(const cJSON *o, const char *key, bool def);
/* A number that fits the type (DEF when absent, not a number or out of
 * range: a hostile trace must not cause an undefined conversion). */
int cw_j_int(const cJSON *o, const char *key, int def);
uint64_t cw_j_u64(const cJSON *o, const char *key, uint64_t def);
int cw_num_int(double v, int def);
/* The exact bytes of a string field: decodes "<key>_hex" when present.
 * Returns a malloc'd NUL-terminated copy (NUL bytes in the original end it
 * early), or NULL when absent. */
char *cw_j_bytes(const cJSON *o, const char *key);

/* ---- profiles ---- */
/* Load a built-in profile by name or a profile file with the one loader
 * of the supervisor and the tools (policy/profile_load.h; file-based
 * extends resolved relative to the including file). On error prints one
 * line ("capwatch: FILE:LINE: ...") and returns -errno. */
int cw_tool_profile_load(const char *name_or_file, cw_profile **out);

/* Parse profile TEXT (e.g. a generated one); file-based extends are
 * resolved relative to the current directory. ERR gets one line. */
int cw_tool_profile_parse_text(const char *text, size_t len, const char *origin, cw_profile **out,
			       char *err, size_t errsz);

/* ---- misc ---- */
/* S with every byte of an invalid UTF-8 sequence replaced by REPL
 * (malloc'd). Used where bytes must become JSON text that still matches:
 * a '?' glob matches any one byte. */
char *cw_tool_utf8_fix(const char *s, char repl);
/* Shell-ish quoting of an argv for display (malloc'd; control chars as \xNN). */
char *cw_tool_argv_join(char *const *argv, size_t max);
/* Directory part of PATH (malloc'd): "/a/b/c" -> "/a/b", "/a" -> "/". */
char *cw_tool_dirname(const char *path);
/* Is --help / -h among ARGS? */
bool cw_tool_wants_help(int argc, char **argv);

#endif
