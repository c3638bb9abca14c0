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
#   __free_by_rcu, check_free_by_rcu
#   kmem_cache_alloc_node_noprof, kmem_cache_free, slab
#   __kmalloc_node_noprof, kfree
#   __memcg_slab_post_alloc_hook,                memcg charging and uncharging
#   __memcg_slab_free_hook
#   htab_lru_map_update_elem                     (not called: a sanity line)
# Guest only: ./run exec [--smp N] -- sh /examples/churn-profile.sh [SECONDS]
# Prints "profile MODE FUNC calls N total_us T per_update_ns P" per mode and function,
# per_update_ns being the function's time per traced htab_map_update_elem call (the
# trace buffer may wrap: only what it holds is counted); then the mapperf lines.
# Times are TCG guest times with the tracer's own cost included in every call: read
# the split (which part of an op goes where), not the absolute figures.
secs=${1:-0.5}
TR=/sys/kernel/tracing
T=/tmp/churn-profile
mkdir -p $T
[ -w $TR/current_tracer ] && grep -qw function_graph $TR/available_tracers || {
	echo "churn-profile: the function_graph tracer is not available" >&2
	exit 1
}
funcs="htab_map_update_elem htab_map_delete_elem bpf_mem_refill alloc_bulk free_bulk
	__free_rcu __free_rcu_tasks_trace __free_by_rcu check_free_by_rcu
	kmem_cache_alloc_node_noprof kmem_cache_free __kmalloc_node_noprof kfree
	__memcg_slab_post_alloc_hook __memcg_slab_free_hook htab_lru_map_update_elem"
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
	mapperf -s "$secs" -m $mode >$T/$mode.out
	echo 0 >$TR/tracing_on
	ops=$(awk '$1 == "mapperf" { for (i = 1; i < NF; i++) if ($i == "iters") print $(i + 1) }' \
		$T/$mode.out)
	lost=$(awk '/entries-in-buffer/ { print }' $TR/trace | head -n 1)
	echo "# $mode: ${ops:-?} ops; $lost"
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
cat $T/prealloc.out $T/dynamic.out
