#ifndef CAPWATCH_TEXT_H
#define CAPWATCH_TEXT_H
/* Messages quote names chosen by the command or by a file (paths, argv,
 * profile text): their control characters must not reach the terminal
 * (escape sequences) nor forge a line of ours (newlines). The one escaper
 * of the supervisor's log and the profile loader. */
#include <stddef.h>

/* INLEN bytes of IN into OUT (at most OUTSZ bytes, no NUL added): what is
 * not printable ASCII or valid UTF-8 (C1 controls excluded) as \xNN, a
 * backslash as \\; stops before a character that does not fit. Returns
 * the bytes written. */
size_t cw_text_escape(char *out, size_t outsz, const char *in, size_t inlen);

#endif
