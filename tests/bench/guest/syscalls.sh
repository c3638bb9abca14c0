# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): what tracing syscalls costs. In one guest boot:
#   ./run exec --add /usr/sbin/syscount -- sh /bench/syscalls.sh [CALLS] [ROUNDS]
# Wall time of CALLS getppid (default 1000000) with no tracer, with bpfmem syscalls
# (counts only, and -L latency) and with libbpf-tools syscount (counts only, and -L),
# all system-wide, ROUNDS times interleaved (TCG timing is noisy): medians, overhead
# ratios against no tracer, and each tool's BPF map memory (memlock from fdinfo, read
# while the tool runs, after the workload, before it drains or exits).
calls=${1:-1000000}
rounds=${2:-3}
have_syscount=0
command -v syscount >/dev/null && have_syscount=1
configs="none bpfmem bpfmem-L"
[ $have_syscount = 1 ] && configs="$configs syscount syscount-L"

uptime_s() { cut -d' ' -f1 /proc/uptime; }

run_workload() {	# prints the wall seconds of the workload
	local t0 t1
	t0=$(uptime_s)
	syscall-workload -g "$calls" -o 0 -n 0 >/dev/null
	t1=$(uptime_s)
	echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
}

map_mem() {	# map_mem PID : one line per BPF map of PID, then "total N"
	local fd t=0 l
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
		awk '/^map_type/ { t = $2 } /^map_flags/ { f = $2 } /^max_entries/ { m = $2 }
			/^memlock/ { l = $2 } /^map_id/ { id = $2 }
			END { printf "    map id %-4s type %-3s flags %-6s max_entries %-7s memlock %s B\n", id, t, f, m, l }' \
			"/proc/$1/fdinfo/${fd##*/}"
		l=$(awk '/^memlock/ { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		t=$((t + l))
	done
	echo "    total memlock $t B"
}

start_tracer() {	# start_tracer CONFIG : sets tpid, waits until attached
	case "$1" in
	bpfmem) bpfmem syscalls -T 3 >/tmp/bench-out 2>&1 & ;;
	bpfmem-L) bpfmem syscalls -L -T 3 >/tmp/bench-out 2>&1 & ;;
	syscount) syscount -T 3 >/tmp/bench-out 2>&1 & ;;
	syscount-L) syscount -L -T 3 >/tmp/bench-out 2>&1 & ;;
	esac
	tpid=$!
	i=0
	while ! grep -qi 'ctrl' /tmp/bench-out 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
}

rm -f /tmp/bench.txt /tmp/bench-mem-*
echo "$calls getppid() per run, $rounds rounds, $(grep -c ^processor /proc/cpuinfo) CPUs (TCG)," \
	"kernel $(uname -r)"
round=1
while [ $round -le "$rounds" ]; do
	echo "round $round"
	for c in $configs; do
		[ $c != none ] && start_tracer $c
		t=$(run_workload)
		if [ $c != none ]; then
			[ $round = 1 ] && map_mem $tpid >/tmp/bench-mem-$c
			kill -INT $tpid
			wait $tpid
			[ $round = 1 ] && cp /tmp/bench-out /tmp/bench-last-$c
		fi
		echo "$c $t" >>/tmp/bench.txt
		printf '  %-11s %6s s\n' "$c" "$t"
	done
	round=$((round + 1))
done

echo
echo "medians and overhead ratios against no tracer (1.00 = no cost):"
base=$(awk '$1 == "none" { print $2 }' /tmp/bench.txt | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
for c in $configs; do
	m=$(awk -v c=$c '$1 == c { print $2 }' /tmp/bench.txt | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	printf '  %-11s %6s s   x%s\n' "$c" "$m" "$(echo "$m $base" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')"
done
echo
echo "BPF map memory while tracing (round 1, after the workload):"
for c in $configs; do
	[ $c = none ] && continue
	echo "  $c:"
	cat /tmp/bench-mem-$c
done
echo
echo "bpfmem syscalls -L, its own report (round 1):"
sed 's/^/  /' /tmp/bench-last-bpfmem-L
