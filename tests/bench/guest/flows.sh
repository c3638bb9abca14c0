# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): what counting flows costs. In one guest boot:
#   ./run exec --add /usr/sbin/tcptop -- sh /bench/flows.sh [SECONDS] [ROUNDS]
# Throughput of a bulk TCP transfer over loopback and the rate of short TCP
# connections, with no counter, with bpfmem flows (fentry and kprobe) and with
# libbpf-tools tcptop, ROUNDS times interleaved (TCG timing is noisy): medians, their
# ratios against no counter, and both tools' map memory.
secs=${1:-4}
rounds=${2:-3}
have_tcptop=0
command -v tcptop >/dev/null && have_tcptop=1

measure() {	# measure CONFIG : bulk and rate under the counter started by the caller
	b=$(flowgen bulk 127.0.0.1 8000 "$secs" | awk '{ print $2 }')
	r=$(flowgen rate 127.0.0.1 8001 "$secs" | awk '{ print $2 }')
	echo "$1 $b $r" >>/tmp/bench.txt
	printf '  %-8s bulk %8s MB/s   short connections %8s conn/s\n' "$1" "$b" "$r"
}

map_mem() {	# map_mem PID : memory of a process's BPF maps, from fdinfo
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
		awk '/^map_type/ { t = $2 } /^map_flags/ { f = $2 } /^max_entries/ { m = $2 }
			/^memlock/ { l = $2 } /^map_id/ { id = $2 }
			END { printf "  map id %-4s type %-3s flags %-6s max_entries %-7s memlock %s B\n", id, t, f, m, l }' \
			"/proc/$1/fdinfo/${fd##*/}"
	done
}

rm -f /tmp/bench.txt
echo "bulk TCP transfer and short connections over loopback: $secs s each, $rounds rounds," \
	"$(grep -c ^processor /proc/cpuinfo) CPUs (TCG)"
round=1
while [ $round -le "$rounds" ]; do
	echo "round $round"
	measure none
	for hook in fentry kprobe; do
		bpfmem flows --hook $hook -i 1 -T 3 >/tmp/bench-flows-$hook.txt 2>&1 &
		fpid=$!
		sleep 2
		measure $hook
		kill -INT $fpid
		wait $fpid
	done
	if [ $have_tcptop = 1 ]; then
		tcptop -C -S 1 >/tmp/bench-tcptop.txt 2>&1 &
		tpid=$!
		sleep 3
		measure tcptop
		[ $round = 1 ] && map_mem $tpid >/tmp/bench-tcptop-maps.txt
		kill -INT $tpid
		wait $tpid
	fi
	round=$((round + 1))
done

echo
echo "medians, and ratios against no counter (1.00 = no cost):"
for c in none fentry kprobe tcptop; do
	b=$(awk -v c=$c '$1 == c { print $2 }' /tmp/bench.txt | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	q=$(awk -v c=$c '$1 == c { print $3 }' /tmp/bench.txt | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	[ -n "$b" ] || continue
	[ $c = none ] && b0=$b q0=$q
	case $c in
	none) name="no counter" ;;
	fentry|kprobe) name="bpfmem flows ($c)" ;;
	*) name=$c ;;
	esac
	awk -v n="$name" -v b=$b -v q=$q -v b0=$b0 -v q0=$q0 'BEGIN {
		printf "  %-22s bulk %7.1f MB/s (%.2f)   short connections %7.1f conn/s (%.2f)\n",
			n, b, b / b0, q, q / q0 }'
done
[ $have_tcptop = 1 ] || echo "  tcptop: not in the guest (./run exec --add /usr/sbin/tcptop -- sh /bench/flows.sh)"

echo
echo "map memory"
echo " bpfmem flows (fentry; BPF_F_NO_PREALLOC hash of live flows, ring buffer of closed flows):"
grep '^map ' /tmp/bench-flows-fentry.txt | sed 's/^/  /'
echo " bpfmem flows (kprobe; + the args map of the kretprobes):"
grep '^map ' /tmp/bench-flows-kprobe.txt | sed 's/^/  /'
if [ $have_tcptop = 1 ]; then
	echo " tcptop (libbpf-tools; type 1 = preallocated hash, flags 0x0):"
	cat /tmp/bench-tcptop-maps.txt
fi
