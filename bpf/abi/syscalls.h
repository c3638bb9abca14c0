/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by bpf/syscalls.bpf.c and tools/syscalls.c. */
#ifndef BPFMEM_SYSCALLS_H
#define BPFMEM_SYSCALLS_H

#define SC_HIST_SLOTS	32		/* log2(latency in us): [2^i, 2^(i+1)) */
#define SC_ALL		0xffffffffu	/* key.nr in per-process mode */
#define SC_COMM_LEN	16

/* per-CPU counters (PERCPU_ARRAY "stats") */
enum sc_stat {
	SC_DROPPED,		/* aggregate update failed: map full or no memory */
	SC_INFLIGHT_LOST,	/* in-flight update failed: latency sample lost */
	SC_REAPED,		/* in-flight entries deleted at thread exit */
	SC_NO_START,		/* returns without an entry (started before attach) */
	SC_NSTATS,
};

/* in-flight map: thread id -> entry */
struct sc_inflight {
	__u64 ts;
	__u32 nr;
	__u32 pad;
};

/* aggregate map: one per syscall, or per process (-P, nr = SC_ALL) */
struct sc_key {
	__u32 tgid;	/* 0 unless per process */
	__u32 nr;
};

/*
 * Counters are cumulative: userspace reads the map each interval and subtracts what it
 * saw the last time, so no increment is lost to a read (a program may increment
 * through a pointer from an earlier lookup at any time). The largest latency cannot be
 * subtracted: it is kept per interval ("epoch", set by userspace at each interval's
 * end) in the slot of the epoch's parity, which the first sample of an epoch resets.
 *
 * The histogram is only part of the value with -H: the map's value_size is set to
 * offsetof(struct sc_val, hist) otherwise, and the BPF side touches it only when
 * want_hist (a load-time constant, so the verifier prunes that code).
 */
struct sc_val {
	__u64 count;
	__u64 errors;
	__u64 lat_total;	/* ns, over lat_samples calls */
	__u64 lat_samples;
	__u64 lat_max[2];	/* ns: the largest latency of epoch max_epoch[i], i its parity */
	__u32 max_epoch[2];
	char comm[SC_COMM_LEN];
	__u32 hist[SC_HIST_SLOTS];
};

#endif
