/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem savings: what the files of the subcommand share. tools/savings.c is the
 * command and its measurement (options, maps, fills, sizes from BTF); tools/savings/
 * holds its cgroup plumbing (cgroup.c), the churn case (churn.c) and the printers
 * (print.c).
 */
#ifndef BPFMEM_TOOLS_SAVINGS_H
#define BPFMEM_TOOLS_SAVINGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MAX_OCC 16

struct savings_env {
	long key_size, value_size, max_entries;
	double occ[MAX_OCC];
	int n_occ;
	bool fill_bpf, fill_user, churn, json, csv, verbose, lru;
	double churn_occ;
	long churn_rounds;
	double settle;
	const char *csv_file;
};

struct result {
	const char *mode, *fill;
	double occ;
	long long elements, memory, kernel, memlock, cached, pending, floor;
	int forced;	/* fdinfo "forced_dynamic: 1" (bpfmem series): not preallocated */
	long long fails;	/* failed insert runs/calls that had to be retried */
};

struct savings_bpf;

/* tools/savings.c */
extern struct savings_env sav_env;
extern struct result *sav_results;
extern int sav_n_results;
extern long long sav_elem_bytes, sav_bucket_bytes, sav_n_buckets;
extern int sav_ncpus;	/* online CPUs, ids in sav_cpus[]: BPF_F_TEST_RUN_ON_CPU needs online */
extern int *sav_cpus;
int sav_create_in_cgroup(const char *cg, bool prealloc);
struct savings_bpf *sav_load_filler(int map_fd);
long long sav_bpf_ops(struct savings_bpf *skel, long long start, long long count, int op,
		  int cpu, long long *fails);
long long sav_count_elements(int fd);
int sav_add_result(const char *mode, const char *fill, double occ, int fd, const char *cg,
	       long long elements, long long fails);
long long sav_target_of(double occ);

/* tools/savings/cgroup.c */
extern char sav_orig_cg[PATH_MAX];
int sav_move_self(const char *cg);
int sav_measure_cg(const char *cg, long long *current, long long *kernel);
int sav_new_cgroup(char *cg, size_t len);
void sav_remove_cgroup(const char *cg);
int sav_check_kmem_accounting(void);
int sav_current_cgroup(void);

/* tools/savings/churn.c */
int sav_churn_case(bool prealloc);

/* tools/savings/print.c */
void sav_print_csv(FILE *f);
void sav_print_json(void);
void sav_print_table(bool series);

#endif
