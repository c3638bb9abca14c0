# SPDX-License-Identifier: GPL-2.0
# Where a BPF_F_NO_PREALLOC hash map spends its churn time against a preallocated one
# (issue 14, item 3): mapperf (update + lookup + delete from BPF on every CPU, via
# BPF_PROG_TEST_RUN) runs once per mode while the function_graph tracer times every
# call of the functions below (funcgraph-tail: nested calls are timed too, so each
# figure includes its callees):
#   htab_map_update_elem, htab_map_delete_elem   the helpers the program calls (the
#                                                lookup is inlined and not seen)
#   bpf_mem_refill                               refill/trim irq_work of bpf_mem_alloc
#   alloc_bulk, free_bulk                        its slab side
#   __free_rcu, __free_rcu_tasks_trace,          grace-period callbacks
#   __free_by_rcu
#   kmem_cache_alloc_node_noprof, kmem_cache_free, slab
#   __kmalloc_node_noprof, kfree
#   __memcg_slab_post_alloc_hook,                memcg charging and uncharging
#   __memcg_slab_free_hook
# Guest only: ./run exec [--smp N] -- sh /bench/churn-profile.sh [SECONDS [CASE]]
# CASE: "mapperf" (default), or an upstream htab-mem use case (overwrite,
# batch_add_batch_del, add_del_on_diff_cpu) run by the selftests' bench with 2 pinned
# producers; bench is built by tests/selftests-build.sh (without --no-bench):
#   C=/var/cache/bpfmem/selftests/current/stage/selftests-bpf
#   ./run exec --add $C --add $C/bench -- sh /bench/churn-profile.sh 2 add_del_on_diff_cpu
# Prints "profile MODE FUNC calls N total_us T per_update_ns P" per mode and function,
# per_update_ns being the function's time per traced htab_map_update_elem call (the
# trace buffer may wrap: only what it holds is counted); then the mapperf lines.
# Times are TCG guest times with the tracer's own cost included in every call: read
# the split (which part of an op goes where), not the absolute figures.
secs=${1:-0.5}
case=${2:-mapperf}
B=/usr/share/bpfmem/selftests-bpf/bench
if [ "$case" != mapperf ] && [ ! -x $B ]; then
	echo "churn-profile: no $B (tests/selftests-build.sh; --add its stage dir)" >&2
	exit 1
fi
workload() {	# workload MODE: one run of the case, output in $T/MODE.out
	if [ "$case" = mapperf ]; then
		mapperf -s "$secs" -m $1
	else
		flag=""
		[ $1 = prealloc ] && flag=--preallocated
		# shellcheck disable=SC2086
		$B -w1 -d"$secs" -a -p2 htab-mem --use-case "$case" $flag
	fi >$T/$1.out 2>&1
}
TR=/sys/kernel/tracing
T=/tmp/churn-profile
mkdir -p $T
[ -w $TR/current_tracer ] && grep -qw function_graph $TR/available_tracers || {
	echo "churn-profile: the function_graph tracer is not available" >&2
	exit 1
}
funcs="htab_map_update_elem htab_map_delete_elem bpf_mem_refill alloc_bulk free_bulk
	__free_rcu __free_rcu_tasks_trace __free_by_rcu
	kmem_cache_alloc_node_noprof kmem_cache_free __kmalloc_node_noprof kfree
	__memcg_slab_post_alloc_hook __memcg_slab_free_hook"
echo 0 >$TR/tracing_on
echo nop >$TR/current_tracer
: >$TR/set_ftrace_filter
traced=""
for f in $funcs; do
	if grep -qx "$f" $TR/available_filter_functions; then
		echo "$f" >>$TR/set_ftrace_filter && traced="$traced $f"
	else
		echo "# $f: not traceable in this kernel"
	fi
done
echo "# traced:$traced"
echo 16384 >$TR/buffer_size_kb
echo function_graph >$TR/current_tracer
echo funcgraph-tail >$TR/trace_options
echo funcgraph-irqs >$TR/trace_options 2>/dev/null	# irq_work refills count too

for mode in prealloc dynamic; do
	echo >$TR/trace
	echo 1 >$TR/tracing_on
	workload $mode
	echo 0 >$TR/tracing_on
	echo "# $case $mode: $(grep -E '^mapperf|^Summary' $T/$mode.out | head -n 1)"
	# " 1)   0.725 us    |  kfree();" and " 1) + 12.34 us   |  } /* bpf_mem_refill */"
	awk -v mode=$mode '
		/ us +[|]/ {
			if (!match($0, /[0-9]+\.[0-9]+ us/))
				next
			us = substr($0, RSTART, RLENGTH - 3) + 0
			name = ""
			if (match($0, "/[*] [A-Za-z0-9_.]+ [*]/"))
				name = substr($0, RSTART + 3, RLENGTH - 6)
			else if (match($0, "[A-Za-z0-9_.]+[(][)];"))
				name = substr($0, RSTART, RLENGTH - 3)
			if (name == "")
				next
			n[name]++
			t[name] += us
		}
		END {
			ops = n["htab_map_update_elem"]
			for (f in n)
				printf "profile %s %s calls %d total_us %.0f per_update_ns %.1f\n", mode, f,
					n[f], t[f], (ops > 0 ? t[f] * 1000 / ops : 0)
		}' $TR/trace | sort -k3
done
echo 0 >$TR/tracing_on
echo nop >$TR/current_tracer
: >$TR/set_ftrace_filter
grep -E '^mapperf|^Summary' $T/prealloc.out $T/dynamic.out
