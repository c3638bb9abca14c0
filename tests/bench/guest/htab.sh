#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-guest: the UPSTREAM BPF selftests `bench` hash map benchmarks, as a parsable table.
# Every htab-mem use case (overwrite, batch_add_batch_del, add_del_on_diff_cpu; see
# tools/testing/selftests/bpf/benchs/run_bench_htab_mem.sh) in preallocated and dynamic
# (BPF_F_NO_PREALLOC, bpf_mem_alloc) mode, then bpf-hashmap-full-update and
# bpf-hashmap-lookup (prealloc and BPF_F_NO_PREALLOC).
#
#   sh /bench/htab.sh [-w WARMUP_S] [-d DURATION_S] [-p PRODUCERS] [-q]
#   -q: htab-mem only.  Defaults: -w 1 -d 3 -p <CPUs, rounded down to even, >= 2>
#
# Host (bench is built by tests/selftests-build.sh):
#   C=/var/cache/bpfmem/selftests/current/stage/selftests-bpf
#   ./run exec --kernel base --smp 4 --add $C --add $C/bench -- sh /bench/htab.sh
#
# Output: lines starting with '#' are comments; data lines are whitespace-separated:
#   htab-mem MODE USE_CASE PRODUCERS OPS_K_PER_S OPS_SD MEM_MIB MEM_SD PEAK_MIB
#     (per-producer k ops/s, memcg memory.current mean/stddev and memory.peak, in MiB)
#   hashmap-full-update MODE - CPU EVENTS_PER_S
#   hashmap-lookup MODE - CPU M_EVENTS_PER_S SD
# MODE is "prealloc" or "dynamic". A failed run prints "FAILED bench args: reason" (also
# appended to /tmp/bench-htab.failed) and the script exits 1 after the remaining runs.
B=${BENCH:-/usr/share/bpfmem/selftests-bpf/bench}
w=1 d=3 p="" all=1
while [ $# -gt 0 ]; do
	case "$1" in
	-w) w=$2; shift 2 ;;
	-d) d=$2; shift 2 ;;
	-p) p=$2; shift 2 ;;
	-q) all=0; shift ;;
	-h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "htab.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -x "$B" ] || { echo "htab.sh: no $B (tests/selftests-build.sh; --add its stage dir)" >&2; exit 1; }
ncpu=$(grep -c ^processor /proc/cpuinfo)
if [ -z "$p" ]; then
	p=$((ncpu / 2 * 2))
	[ "$p" -lt 2 ] && p=2
fi
rc=0
out=/tmp/bench-htab.out.$$

run() {	# run ARGS... : bench output in $out, 1 on failure
	"$B" -w"$w" -d"$d" "$@" >"$out" 2>&1 && return 0
	echo "FAILED bench $*: $(grep -v '^Setting up\|^Benchmark\|^Iter' "$out" | head -n 3 | tr '\n' ' ')" |
		tee -a /tmp/bench-htab.failed
	rc=1
	return 1
}

echo "# bench htab: kernel $(uname -r), $ncpu CPUs, producers $p, warmup ${w}s, duration ${d}s"
echo "# bench MODE USE_CASE PRODUCERS OPS_K_PER_S OPS_SD MEM_MIB MEM_SD PEAK_MIB"
for mode in prealloc dynamic; do
	flag=""
	[ "$mode" = prealloc ] && flag=--preallocated
	for uc in overwrite batch_add_batch_del add_del_on_diff_cpu; do
		# -a: pin producers to CPUs, as run_bench_htab_mem.sh does
		run -a -p"$p" htab-mem --use-case "$uc" $flag || continue
		# Summary: per-prod-op X ± Yk/s, memory usage A ± BMiB, peak memory usage PMiB
		grep '^Summary:' "$out" | tail -n 1 | sed 's/[^0-9.]\+/ /g' |
			awk -v m="$mode" -v u="$uc" -v p="$p" \
				'{ printf "htab-mem %s %s %s %s %s %s %s %s\n", m, u, p, $1, $2, $3, $4, $5 }'
	done
done

if [ "$all" = 1 ]; then
	echo "# bench MODE - CPU EVENTS_PER_S (bpf-hashmap-full-update: updates of a full map)"
	for mode in prealloc dynamic; do
		# bpf-hashmap-full-update's map is preallocated (no flag to change it)
		[ "$mode" = dynamic ] && continue
		run -a -p"$((ncpu > 1 ? ncpu - 1 : 1))" bpf-hashmap-full-update || continue
		sed -n 's/^\([0-9]*\):hash_map_full_perf \([0-9]*\) events per sec$/hashmap-full-update prealloc - \1 \2/p' "$out"
	done
	echo "# bench MODE - CPU M_EVENTS_PER_S SD (bpf-hashmap-lookup, 1 producer)"
	for mode in prealloc dynamic; do
		mf=0
		[ "$mode" = dynamic ] && mf=1	# BPF_F_NO_PREALLOC
		run -p1 bpf-hashmap-lookup --map_flags "$mf" --key_size 4 --max_entries 1000 \
			--nr_entries 500 --nr_loops 20000 || continue
		sed -n 's/^cpu\([0-9]*\): lookup \([0-9.]*\)M ± \([0-9.]*\)M events\/sec.*/hashmap-lookup '"$mode"' - \1 \2 \3/p' "$out"
	done
fi
rm -f "$out"
exit $rc
