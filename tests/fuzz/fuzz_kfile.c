// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the parsers of kernel files: the "key:\tvalue" lines of a BPF
 * map's fdinfo (tools/lib/fdinfo.c, included here for its static field()), and the
 * memory cgroup's memory.stat, memory.current and /proc/PID/cgroup (tools/lib/cgroup.c).
 *
 * Input: the file's text (up to a NUL), in an allocation of exactly its size, so that
 * ASan sees any read past its end. Properties: each key's number is what a reference
 * here finds: the first line that starts with "key:", its value after spaces and tabs
 * up to the end of that line, strtoll(value, 0) of that field alone when it is all
 * consumed, without overflow, and starts with a digit (malformed, -2, otherwise: an
 * empty value is never the next line's number), or -1 when no line has the key;
 * bpfmem_parse_map_fdinfo() succeeds exactly when the map's lines are there and well
 * formed and gives those numbers; a memory.stat key found is a line "key N" of the text
 * (N in decimal).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../../tools/lib/fdinfo.c"
#include "cgroup.h"
#include "fuzz.h"

static const char *const keys[] = {
	"map_type", "key_size", "value_size", "max_entries", "map_flags", "map_id",
	"memlock", "elements", "alloc_cached_objs", "alloc_cached_bytes",
	"alloc_pending_objs", "alloc_pending_bytes", "alloc_failures", "forced_dynamic",
	"force_kept", "pos", "flags", "a",
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))
#define N_REQUIRED 7	/* map_type ... memlock */

static long long ref_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;

	for (; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *v, *e;
		char *val, *end;
		long long n;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		v = line + klen + 1;
		e = strchr(v, '\n');
		if (!e)
			e = v + strlen(v);
		while (v < e && (*v == ' ' || *v == '\t'))
			v++;
		if (v == e || *v < '0' || *v > '9')
			return -2;
		val = strndup(v, e - v);	/* the field alone */
		errno = 0;
		n = strtoll(val, &end, 0);
		if (errno || *end)
			n = -2;
		free(val);
		return n;
	}
	return -1;
}

static void memcg_stat(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p;
	long long v;
	char *end;

	if (bpfmem_parse_memcg_stat(text, key, &v))
		return;
	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ' &&
		    strtoll(p + klen + 1, &end, 10) == v && *end == '\n')
			return;
	PROP(0, "memory.stat %s = %lld is no line of the text", key, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size), i;
	char *text = malloc(len + 1), path[64];
	struct bpfmem_map_info mi;
	long long ref[N_KEYS], v;
	bool ok = true;
	int ret;

	memcpy(text, data, len);
	text[len] = '\0';
	for (i = 0; i < N_KEYS; i++) {
		ref[i] = ref_field(text, keys[i]);
		v = field(text, keys[i]);
		PROP(v == ref[i], "%s: %lld, the reference %lld", keys[i], v, ref[i]);
		if (i < N_REQUIRED ? ref[i] < 0 : ref[i] == -2 && i < 15)
			ok = false;
	}
	ret = bpfmem_parse_map_fdinfo(text, &mi);
	PROP((ret == 0) == ok, "parse %d, the reference %s", ret, ok ? "valid" : "invalid");
	if (!ret) {
		PROP(mi.type == (int)ref[0] && mi.key_size == (unsigned int)ref[1] &&
		     mi.value_size == (unsigned int)ref[2] && mi.max_entries == (unsigned int)ref[3] &&
		     mi.flags == (unsigned int)ref[4] && mi.id == (unsigned int)ref[5] &&
		     mi.memlock == ref[6] && mi.elements == ref[7] && mi.cached_objs == ref[8] &&
		     mi.cached_bytes == ref[9] && mi.pending_objs == ref[10] &&
		     mi.pending_bytes == ref[11] && mi.alloc_failures == ref[12] &&
		     mi.forced_dynamic == ref[13] && mi.force_kept == ref[14],
		     "fdinfo members differ from the lines");
	}
	/* the cgroup files: no crash, no read past the text; memory.stat's numbers */
	memcg_stat(text, "anon");
	memcg_stat(text, "percpu");
	if (!bpfmem_parse_u64_line(text, &v))
		PROP(v >= 0, "memory.current %lld", v);
	bpfmem_parse_proc_cgroup(text, path, sizeof(path));
	free(text);
	return 0;
}
