#ifndef CAPWATCH_LOG_H
#define CAPWATCH_LOG_H
/* capwatch's own diagnostics on stderr. Every message is formatted into one
 * buffer and written with one write(2), prefixed "capwatch: ", so that lines
 * from capwatch never interleave with each other mid-line. */

typedef enum cw_log_level {
	CW_LOG_ERROR = 0,   /* always shown */
	CW_LOG_WARNING = 1, /* hidden by --quiet */
	CW_LOG_INFO = 2,    /* shown with --verbose */
	CW_LOG_DEBUG = 3,   /* shown with --verbose --verbose */
} cw_log_level;

void cw_log_set_level(cw_log_level max);
cw_log_level cw_log_get_level(void);
/* Write the diagnostics to FD instead of 2 (the supervisor keeps its own
 * duplicate of stderr so that its messages do not depend on fd 2 staying
 * what it was). */
void cw_log_set_fd(int fd);

void cw_log(cw_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define cw_err(...) cw_log(CW_LOG_ERROR, __VA_ARGS__)
#define cw_warn(...) cw_log(CW_LOG_WARNING, __VA_ARGS__)
#define cw_info(...) cw_log(CW_LOG_INFO, __VA_ARGS__)
#define cw_debug(...) cw_log(CW_LOG_DEBUG, __VA_ARGS__)

#endif
