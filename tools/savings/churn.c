// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: the churn case. It fills a map to a steady occupancy and then, on
 * every online CPU at once, deletes the oldest keys and inserts new ones (each CPU
 * deletes keys another CPU inserted); memory is sampled after every round (peak) and
 * after a settle time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbpfmem.h"
#include "savings.skel.h"
#include "savings.h"

struct churn_worker {
	pthread_t th;
	int cpu;
	struct savings_bpf *skel;
	long long del_start, ins_start, batch;
	long long deleted, inserted, fails;
	int err;
};

static pthread_barrier_t bar_start, bar_end;
static volatile int churn_stop;
/*
 * Workers wait at this gate until every one of them was created: the barriers are
 * set up for that number only then, so a failed pthread_create() cannot leave the
 * others blocked in a barrier that never fills (gate_state 2: go home).
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_state;

static void gate_set(int state)
{
	pthread_mutex_lock(&gate_lock);
	gate_state = state;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *churn_thread(void *arg)
{
	struct churn_worker *w = arg;
	cpu_set_t set;
	int state;

	/* the programs run on w->cpu anyway (BPF_F_TEST_RUN_ON_CPU); this keeps the
	 * syscall side there too
	 */
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		w->err = -errno;
	pthread_mutex_lock(&gate_lock);
	while (!gate_state)
		pthread_cond_wait(&gate_cond, &gate_lock);
	state = gate_state;
	pthread_mutex_unlock(&gate_lock);
	if (state != 1)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&bar_start);
		if (churn_stop)
			break;
		w->deleted = sav_bpf_ops(w->skel, w->del_start, w->batch, 1, w->cpu, &w->fails);
		w->inserted = sav_bpf_ops(w->skel, w->ins_start, w->batch, 0, w->cpu, &w->fails);
		pthread_barrier_wait(&bar_end);
	}
	return NULL;
}

int sav_churn_case(bool prealloc)
{
	struct churn_worker *w;
	struct savings_bpf *skel = NULL;
	long long k = sav_target_of(sav_env.churn_occ), batch, lo = 0, peak = -1, peak_kernel = -1;
	long long fails = 0;
	const char *mode = prealloc ? "prealloc" : "dynamic";
	char cg[128];
	long r;
	int fd, c, err = -1;

	batch = k / (8 * sav_ncpus);
	if (batch < 1)
		batch = 1;
	w = calloc(sav_ncpus, sizeof(*w));
	if (!w)
		return -1;
	if (sav_new_cgroup(cg, sizeof(cg)))
		goto out_free;
	fd = sav_create_in_cgroup(cg, prealloc);
	if (fd < 0)
		goto out_cg;
	skel = sav_load_filler(fd);
	if (!skel)
		goto out;
	if (sav_bpf_ops(skel, 0, k, 0, -1, &fails) != k) {
		bpfmem_err("churn: filling the %s map to %lld elements failed", mode, k);
		goto out;
	}
	churn_stop = 0;
	gate_state = 0;
	for (c = 0; c < sav_ncpus; c++) {
		w[c].cpu = sav_cpus[c];
		w[c].skel = skel;
		w[c].batch = batch;
		err = pthread_create(&w[c].th, NULL, churn_thread, &w[c]);
		if (err) {
			bpfmem_err("churn: cannot start the worker for CPU %d: %s", sav_cpus[c],
				   strerror(err));
			gate_set(2);
			while (c > 0)
				pthread_join(w[--c].th, NULL);
			err = -1;
			goto out;
		}
	}
	err = -1;
	pthread_barrier_init(&bar_start, NULL, sav_ncpus + 1);
	pthread_barrier_init(&bar_end, NULL, sav_ncpus + 1);
	gate_set(1);
	for (c = 0; c < sav_ncpus; c++)
		if (w[c].err)	/* not fatal: the runs are on that CPU regardless */
			bpfmem_warn("churn: worker not pinned to CPU %d (its runs still are): %s",
				    w[c].cpu, strerror(-w[c].err));
	for (r = 0; r < sav_env.churn_rounds; r++) {
		long long cur, kern;

		for (c = 0; c < sav_ncpus; c++) {
			/* CPU c deletes a slice another CPU inserted in an earlier round */
			w[c].del_start = lo + ((c + 1) % sav_ncpus) * batch;
			w[c].ins_start = lo + k + c * batch;
		}
		pthread_barrier_wait(&bar_start);
		pthread_barrier_wait(&bar_end);
		lo += sav_ncpus * batch;
		for (c = 0; c < sav_ncpus; c++) {
			if (w[c].deleted != batch || w[c].inserted != batch) {
				bpfmem_err("churn round %ld on CPU %d: %lld of %lld deleted, %lld inserted",
					   r, w[c].cpu, w[c].deleted, batch, w[c].inserted);
				err = -2;
			}
		}
		if (err == -2)
			break;
		if (sav_measure_cg(cg, &cur, &kern))
			break;
		if (cur > peak) {
			peak = cur;
			peak_kernel = kern;
		}
	}
	churn_stop = 1;
	pthread_barrier_wait(&bar_start);
	for (c = 0; c < sav_ncpus; c++)
		pthread_join(w[c].th, NULL);
	pthread_barrier_destroy(&bar_start);
	pthread_barrier_destroy(&bar_end);
	if (err == -2 || r < sav_env.churn_rounds)
		goto out;
	if (sav_count_elements(fd) != k) {
		bpfmem_err("churn: map holds %lld elements, expected %lld", sav_count_elements(fd), k);
		goto out;
	}
	for (c = 0; c < sav_ncpus; c++)
		fails += w[c].fails;
	/* peak: the largest drained memory.current seen after a round */
	if (sav_add_result(mode, "churn-peak", sav_env.churn_occ, fd, cg, k, fails))
		goto out;
	sav_results[sav_n_results - 1].memory = peak;
	sav_results[sav_n_results - 1].kernel = peak_kernel;
	bpfmem_sleep(sav_env.settle);
	err = sav_add_result(mode, "churn-settled", sav_env.churn_occ, fd, cg, k, fails);
out:
	savings_bpf__destroy(skel);
	close(fd);
out_cg:
	sav_remove_cgroup(cg);
out_free:
	free(w);
	return err;
}
