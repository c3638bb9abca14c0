/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel feature probes (feature_probe.c): vmlinux BTF, PREEMPT_RT, the bpfmem series,
 * fentry/kprobe attach, kprobe link misses; the loader setup every subcommand that
 * loads programs does first; kernel.bpf_rt_nonpreempt.
 */
#ifndef BPFMEM_FEATURE_PROBE_H
#define BPFMEM_FEATURE_PROBE_H

#include <stdbool.h>

/* libbpf messages to stderr: warnings always, debug output only when @verbose. */
void bpfmem_libbpf_logging(bool verbose);
/* bpfmem_libbpf_logging() and the checks every loader needs: BTF present and
 * privilege. Prints the reason and returns < 0 on failure.
 */
int bpfmem_loader_init(bool verbose);
bool bpfmem_have_btf(void);
bool bpfmem_kernel_is_rt(void);
/* The running kernel carries the bpfmem series (detected by BTF type). */
bool bpfmem_series_present(void);
/* fentry can attach to @func: loads and attaches a tiny tracing program. */
bool bpfmem_fentry_can_attach(const char *func);
/* @func is in available_filter_functions or kallsyms (kprobe-able). */
bool bpfmem_kprobe_exists(const char *func);
/* struct bpf_link_info reports a kprobe link's misses (Linux 6.7) */
bool bpfmem_kernel_has_kprobe_missed(void);

/*
 * Non-preemptible runs on PREEMPT_RT (series patch 20). An fentry, fexit or fmod_ret
 * program asks for them with BPF_F_RT_NONPREEMPT in prog_flags at BPF_PROG_LOAD (the
 * build's linux/bpf.h may not have it); the verifier grants it if the program
 * qualifies, as kernel.bpf_rt_nonpreempt says: 0 to none, 1 (the default) to those
 * that ask, 2 to every program that qualifies, asked or not. The sysctl exists only
 * on PREEMPT_RT kernels with the series; every other kernel refuses the unknown flag
 * (EINVAL), so it is set only where the sysctl exists.
 */
#ifndef BPF_F_RT_NONPREEMPT
#define BPF_F_RT_NONPREEMPT (1U << 8)
#endif
#define BPFMEM_RT_NONPREEMPT_SYSCTL "/proc/sys/kernel/bpf_rt_nonpreempt"
/* kernel.bpf_rt_nonpreempt: 0, 1 or 2; -1 where the kernel has no such sysctl */
int bpfmem_rt_nonpreempt_mode(void);
/* Before the load: BPF_F_RT_NONPREEMPT on every fentry, fexit and fmod_ret program of
 * @obj where the sysctl exists. Returns how many programs ask (0 where it does not
 * exist), or -errno.
 */
struct bpf_object;
int bpfmem_rt_nonpreempt_request(struct bpf_object *obj);

#endif
