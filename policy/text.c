/* Text for a line of capwatch's diagnostics (text.h). */
#include <string.h>
#include "text.h"

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

size_t cw_text_escape(char *out, size_t outsz, const char *in, size_t inlen)
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
