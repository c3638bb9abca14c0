// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: fill (or drain) a hash map of any key/value size from a BPF
 * program, the way a tracer does: a raw_tp program run with BPF_PROG_TEST_RUN
 * (optionally on a given CPU, i.e. from an IPI) inserts or deletes keys
 * start..start+count-1 in a bpf_loop. The target map is created by userspace
 * (BTF-less, any shape) and handed over with bpf_map__reuse_fd(); keys and
 * values are built in a per-CPU scratch buffer of the largest supported size.
 *
 * ctx (u64 args): [0] first key index, [1] number of keys, [2] op (0 insert,
 * 1 delete). The loop stops at the first failed operation, like a tracer that
 * drops an event; the return value is the number of operations that succeeded
 * (userspace retries the rest and counts the failure, see tools/savings.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define SAVINGS_MAX_KV 1024

struct scratch {
	__u8 key[SAVINGS_MAX_KV];
	__u8 val[SAVINGS_MAX_KV];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* placeholder: replaced by the map under test (bpf_map__reuse_fd) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 4);
} target SEC(".maps");

struct loop_ctx {
	__u64 start;
	__u32 op;
	__u32 done;
};

static long one(__u64 i, void *data)
{
	struct loop_ctx *lc = data;
	struct scratch *s;
	__u32 zero = 0, k;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 1;
	k = lc->start + i;
	*(__u32 *)s->key = k;
	if (lc->op == 0) {
		*(__u32 *)s->val = k;
		if (bpf_map_update_elem(&target, s->key, s->val, BPF_ANY))
			return 1;
	} else {
		if (bpf_map_delete_elem(&target, s->key))
			return 1;
	}
	lc->done++;
	return 0;
}

SEC("raw_tp")
int fill(struct bpf_raw_tracepoint_args *ctx)
{
	struct loop_ctx lc = {};

	lc.start = ctx->args[0];
	lc.op = ctx->args[2];
	bpf_loop(ctx->args[1], one, &lc, 0);
	return lc.done;
}

char LICENSE[] SEC("license") = "GPL";
