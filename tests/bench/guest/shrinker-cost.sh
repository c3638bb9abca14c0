# SPDX-License-Identifier: GPL-2.0
# What one call of the bpf_mem_alloc shrinker costs with many allocators (issue 13 F4):
# cgroup B holds NMAPS BPF_F_NO_PREALLOC hash maps with filled caches (memshrink, no
# pressure of its own); the function_graph tracer times every call of the shrinker's
# count_objects and scan_objects while
#   1. "other": memory.reclaim of cgroup A, which holds one map: count walks all
#      allocators but looks at the caches of A's one only;
#   2. "own":   memory.reclaim of cgroup B: count looks at every cache of NMAPS maps;
#   3. "global": drop_caches, one call per memcg with the shrinker's bit and node.
# Guest only: ./run exec -- sh /bench/shrinker-cost.sh [NMAPS]
# Prints one "shrinker_cost CASE FUNC calls N min_us M median_us M max_us M" line per
# case and function; times are TCG guest times, several times native.
nmaps=${1:-1000}
T=/tmp/shrinker-cost
TR=/sys/kernel/tracing
mkdir -p $T
[ -w $TR/current_tracer ] && grep -qw function_graph $TR/available_tracers || {
	echo "shrinker-cost: the function_graph tracer is not available" >&2
	exit 1
}
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
A=/sys/fs/cgroup/shrinker-cost-a B=/sys/fs/cgroup/shrinker-cost-b
mkdir -p $A $B
rm -f $T/done

sh -c "echo \$\$ >$B/cgroup.procs && exec memshrink -m $nmaps -p none -w $T/done -t 5" \
	>$T/b 2>&1 &
bpid=$!
i=0
until grep -q '^before ' $T/b; do
	kill -0 $bpid 2>/dev/null || { cat $T/b >&2; echo "shrinker-cost: memshrink failed" >&2; exit 1; }
	i=$((i + 1))
	[ $i -gt 1200 ] && { echo "shrinker-cost: memshrink did not fill its caches" >&2; exit 1; }
	sleep 0.5
done
# one map in A, filled caches too, left to wait the same way
sh -c "echo \$\$ >$A/cgroup.procs && exec memshrink -m 1 -p none -w $T/done -t 5" \
	>$T/a 2>&1 &
apid=$!
until grep -q '^before ' $T/a; do
	kill -0 $apid 2>/dev/null || { cat $T/a >&2; exit 1; }
	sleep 0.5
done
echo "# $(grep -c ^processor /proc/cpuinfo) CPUs; B: $(grep '^before ' $T/b)"

echo 0 >$TR/tracing_on
echo function_graph >$TR/current_tracer
printf 'bpf_mem_alloc_shrinker_count\nbpf_mem_alloc_shrinker_scan\n' >$TR/set_ftrace_filter
echo funcgraph-proc >$TR/trace_options 2>/dev/null

measure() {	# CASE COMMAND...
	c=$1
	shift
	echo >$TR/trace
	echo 1 >$TR/tracing_on
	"$@"
	echo 0 >$TR/tracing_on
	# leaf lines: " 1)   12.345 us    |  bpf_mem_alloc_shrinker_count();"
	for f in count scan; do
		sed -n "s/.*[ |]\([0-9][0-9.]*\) us *| *bpf_mem_alloc_shrinker_$f();.*/\1/p" $TR/trace |
			sort -n >$T/$c.$f
		awk -v c="$c" -v f="$f" '{ v[NR] = $1 } END {
			if (NR == 0) { printf "shrinker_cost %s %s calls 0\n", c, f; exit }
			printf "shrinker_cost %s %s calls %d min_us %s median_us %s max_us %s\n",
				c, f, NR, v[1], v[int((NR + 1) / 2)], v[NR] }' $T/$c.$f
	done
}

measure other sh -c "echo 1M >$A/memory.reclaim"
measure own sh -c "echo 1M >$B/memory.reclaim"
measure global sh -c "echo 2 >/proc/sys/vm/drop_caches"
echo nop >$TR/current_tracer
echo >$TR/set_ftrace_filter

touch $T/done
wait $bpid $apid
rmdir $A $B 2>/dev/null
exit 0
