// SPDX-License-Identifier: GPL-2.0
/*
 * The fdinfo of BPF maps (/proc/self/fdinfo/FD) and its parser. Strict: a line of
 * unknown format is an error, not a guess. No error lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdinfo.h"
#include "fileio.h"

static long long field(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':') {
			char *end;
			long long v;

			p += len + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			/* a digit first: strtoll() would skip the newline of an empty value
			 * and take the next line's number, or take a sign
			 */
			if (*p < '0' || *p > '9')
				return -2;
			errno = 0;
			v = strtoll(p, &end, 0);
			if (errno || end == p || (*end != '\n' && *end != '\0'))
				return -2;	/* malformed */
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int bpfmem_parse_map_fdinfo(const char *text, struct bpfmem_map_info *info)
{
	static const struct {
		const char *key;
		size_t off;
		bool required;
	} keys[] = {
#define F(k, m, r) { k, __builtin_offsetof(struct bpfmem_map_info, m), r }
		F("memlock", memlock, true),
		F("elements", elements, false),
		F("alloc_cached_objs", cached_objs, false),
		F("alloc_cached_bytes", cached_bytes, false),
		F("alloc_pending_objs", pending_objs, false),
		F("alloc_pending_bytes", pending_bytes, false),
		F("alloc_failures", alloc_failures, false),
		F("forced_dynamic", forced_dynamic, false),
		F("force_kept", force_kept, false),
#undef F
	};
	long long v;
	size_t i;

	memset(info, 0, sizeof(*info));
	v = field(text, "map_type");
	if (v < 0)
		return -EINVAL;	/* not a map's fdinfo */
	info->type = v;
#define U(k, m) do { v = field(text, k); if (v < 0) return -EINVAL; info->m = v; } while (0)
	U("key_size", key_size);
	U("value_size", value_size);
	U("max_entries", max_entries);
	U("map_flags", flags);
	U("map_id", id);
#undef U
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = field(text, keys[i].key);
		if (v == -2 || (v == -1 && keys[i].required))
			return -EINVAL;
		*(long long *)((char *)info + keys[i].off) = v;
	}
	return 0;
}

int bpfmem_map_fdinfo_file(const char *path, struct bpfmem_map_info *info)
{
	char *buf = bpfmem_read_whole(path, NULL);	/* any length */
	int err;

	if (!buf)
		return -errno;
	err = bpfmem_parse_map_fdinfo(buf, info);
	free(buf);
	return err;
}

int bpfmem_map_fdinfo(int map_fd, struct bpfmem_map_info *info)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", map_fd);
	return bpfmem_map_fdinfo_file(path, info);
}

long long bpfmem_fdinfo_file_value(const char *path, const char *key)
{
	char *buf = bpfmem_read_whole(path, NULL);
	long long v;

	if (!buf)
		return -1;
	v = field(buf, key);
	free(buf);
	return v < 0 ? -1 : v;
}

long long bpfmem_fdinfo_value(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return bpfmem_fdinfo_file_value(path, key);
}
