/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from the system made safe for a terminal (text_safe.c).
 */
#ifndef BPFMEM_TEXT_SAFE_H
#define BPFMEM_TEXT_SAFE_H

#include <stddef.h>

/*
 * A name from the system (process comm, cgroup path, map or program name) for text
 * output: bytes a terminal could act on (controls, ESC sequences such as \x1b[2J, DEL,
 * C1 controls U+0080..U+009F) and bytes that are not UTF-8 are written as \xNN, as
 * ps and bpftool do; printable ASCII and UTF-8 characters are kept. Into @buf of
 * @len bytes (4 * strlen(@s) + 1 holds any @s), cut before a character or escape
 * that does not fit; returns @buf. JSON output escapes by itself (json.c).
 */
#define BPFMEM_TEXT_SAFE_LEN(n) (4 * (n) + 1)
const char *bpfmem_text_safe(char *buf, size_t len, const char *s);

#endif
