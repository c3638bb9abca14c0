/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfmem savings: what the files of the subcommand share. tools/savings.c is the
 * command and its measurement (options, maps, fills, sizes from BTF); tools/savings/
 * holds its cgroup plumbing (cgroup.c), the churn case (churn.c) and the printers
 * (print.c).
 */
#ifndef BPFMEM_SAVINGS_H
#define BPFMEM_SAVINGS_H

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
extern struct savings_env env;
extern struct result *results;
extern int n_results;
extern long long elem_bytes, bucket_bytes, n_buckets;
extern int ncpus;	/* online CPUs, ids in cpus[]: BPF_F_TEST_RUN_ON_CPU needs online */
extern int *cpus;
int create_in_cgroup(const char *cg, bool prealloc);
struct savings_bpf *load_filler(int map_fd);
long long bpf_ops(struct savings_bpf *skel, long long start, long long count, int op,
		  int cpu, long long *fails);
long long count_elements(int fd);
int add_result(const char *mode, const char *fill, double occ, int fd, const char *cg,
	       long long elements, long long fails);
long long target_of(double occ);

/* tools/savings/cgroup.c */
extern char orig_cg[PATH_MAX];
int move_self(const char *cg);
int measure_cg(const char *cg, long long *current, long long *kernel);
int new_cgroup(char *cg, size_t len);
void remove_cgroup(const char *cg);
int check_kmem_accounting(void);
int current_cgroup(void);

/* tools/savings/churn.c */
int churn_case(bool prealloc);

/* tools/savings/print.c */
void print_csv(FILE *f);
void print_json(void);
void print_table(bool series);

#endif
