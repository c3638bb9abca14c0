# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): what counting flows costs. In one guest boot:
#   ./run exec --add /usr/sbin/tcptop -- sh /examples/bench-flows.sh [SECONDS]
# Throughput of a bulk TCP transfer over loopback and the rate of short TCP
# connections, with no counter, with bpfmem flows (fentry and kprobe) and with
# libbpf-tools tcptop; ratios against no counter, and both tools' map memory.
secs=${1:-5}

run() {	# run NAME : bulk and rate under the counter started by the caller
	b=$(flowgen bulk 127.0.0.1 8000 "$secs" | awk '{ print $2 }')
	r=$(flowgen rate 127.0.0.1 8001 "$secs" | awk '{ print $2 }')
	echo "$1 $b $r" >>/tmp/bench.txt
	printf '%-22s bulk %8s MB/s   short connections %8s conn/s\n' "$1" "$b" "$r"
}

map_mem() {	# map_mem PID : memory of a process's BPF maps from fdinfo
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
		awk -v fd="${fd##*/}" '
			/^map_type/ { t = $2 } /^map_flags/ { f = $2 } /^max_entries/ { m = $2 }
			/^memlock/ { l = $2 } /^map_id/ { id = $2 }
			END { printf "  map id %-4s type %-3s flags %-6s max_entries %-7s memlock %s B\n", id, t, f, m, l }' \
			"/proc/$1/fdinfo/${fd##*/}"
	done
}

rm -f /tmp/bench.txt
echo "bulk TCP transfer and short connections over loopback, $secs s each ($(nproc) CPUs, TCG)"
run "no counter"

for hook in fentry kprobe; do
	bpfmem flows --hook $hook -i 1 -T 3 >/tmp/bench-flows-$hook.txt 2>&1 &
	fpid=$!
	sleep 2
	run "bpfmem flows ($hook)"
	kill -INT $fpid
	wait $fpid
done

if command -v tcptop >/dev/null; then
	tcptop -C -S 1 >/tmp/bench-tcptop.txt 2>&1 &
	tpid=$!
	sleep 3
	run "tcptop"
	echo "tcptop's maps (libbpf-tools, preallocated):"
	map_mem $tpid
	kill -INT $tpid
	wait $tpid
else
	echo "tcptop: not in the guest (./run exec --add /usr/sbin/tcptop -- sh /examples/bench-flows.sh)"
fi

echo "bpfmem flows' maps (fentry run):"
grep '^map ' /tmp/bench-flows-fentry.txt | sed 's/^/  /'
echo
echo "ratios against no counter (1.00 = no cost):"
awk 'NR == 1 { b0 = $(NF - 1); r0 = $NF; next }
	{ n = $0; sub(/ [^ ]+ [^ ]+$/, "", n)
	  printf "  %-22s bulk %.2f   short connections %.2f\n", n, $(NF - 1) / b0, $NF / r0 }' /tmp/bench.txt
