/* One logging module (style.md): one message, one write. */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "supervisor/log.h"

/* static by necessity: cw_log() is called from every module, from the
 * command line parser before any run exists, from the --timeout watchdog's
 * thread and from tools/, none of which has a run to hold these; set once
 * at the start of a run (the level, the descriptor) and only read after. */
static struct {
	cw_log_level max_level;
	int fd;
} log_conf = { CW_LOG_WARNING, 2 };

void cw_log_set_level(cw_log_level max)
{
	log_conf.max_level = max;
}

cw_log_level cw_log_get_level(void)
{
	return log_conf.max_level;
}

void cw_log_set_fd(int fd)
{
	log_conf.fd = fd;
}

/* Length of a valid UTF-8 sequence at S (at most N bytes) that is not a C1
 * control (U+0080..U+009F, which some terminals obey), or 0. */
static size_t utf8_ok(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* Messages quote names chosen by the command (paths, argv): its control
 * characters must not reach the terminal (escape sequences) nor forge a
 * line of ours (newlines). Everything that is not printable ASCII or
 * valid UTF-8 is written as \xNN, and a backslash as \\. */
static size_t escape_into(char *out, size_t outsz, const char *in, size_t inlen)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	for (size_t i = 0; i < inlen;) {
		size_t k = s[i] >= 0x80 ? utf8_ok(s + i, inlen - i) : 0;
		if (k) {
			if (o + k > outsz)
				break;
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			if (o + 1 > outsz)
				break;
			out[o++] = (char)s[i++];
		} else if (s[i] == '\\') {
			if (o + 2 > outsz)
				break;
			out[o++] = '\\';
			out[o++] = '\\';
			i++;
		} else {
			if (o + 4 > outsz)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[s[i] >> 4];
			out[o++] = hex[s[i] & 15];
			i++;
		}
	}
	return o;
}

void cw_log(cw_log_level level, const char *fmt, ...)
{
	char raw[2048], buf[2048 * 2];
	static const char prefix[] = "capwatch: ";
	size_t n = sizeof(prefix) - 1;
	int saved = errno;
	va_list ap;

	if (level > log_conf.max_level)
		return;
	va_start(ap, fmt);
	int r = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (r < 0)
		r = 0;
	size_t rn = (size_t)r < sizeof(raw) ? (size_t)r : sizeof(raw) - 1;
	memcpy(buf, prefix, n);
	n += escape_into(buf + n, sizeof(buf) - n - 1, raw, rn);
	buf[n++] = '\n';
	/* Diagnostics are best effort: a failed write to stderr is ignored. */
	while (write(log_conf.fd, buf, n) < 0 && errno == EINTR)
		;
	errno = saved;
}
