// SPDX-License-Identifier: GPL-2.0
/*
 * Names from the system (comm, cgroup path, map or program name) made safe for a
 * terminal: controls and bytes that are not UTF-8 written as \xNN (see text_safe.h).
 */
#include <stdio.h>
#include <string.h>

#include "text_safe.h"
#include "json.h"

const char *bpfmem_text_safe(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), o = 0;

	if (!len)
		return buf;
	while (left) {
		int n = bpfmem_utf8_len(p, left);

		/* C1 controls (U+0080..U+009F) are c2 80..c2 9f in UTF-8 */
		if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			if (o + 4 >= len)
				break;
			snprintf(buf + o, len - o, "\\x%02x", *p);
			o += 4;
			n = 1;
		} else {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
		}
		p += n;
		left -= n;
	}
	buf[o] = '\0';
	return buf;
}
