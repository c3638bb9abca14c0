# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): events the tracers lose, by kernel, hook and competing load.
#   ./run exec --kernel rt --smp 2 -- sh /bench/rt-loss.sh [CALLS] [CONNS] [HOOKS] [LOADS]
# (HOOKS: default "fentry kprobe tp"; LOADS: default "none cpu")
# (any kernel: base is the control; there flows may miss a few runs by design, a
# softirq on top of a run in task context: see tests/guest/rtloss.sh)
# For hook fentry, kprobe (and tp for syscalls), with and without a CPU-bound competitor
# on every CPU (a shell busy loop, same priority):
#  - syscalls: one syscall-workload per CPU, CALLS getppid in all; `bpfmem syscalls -c`
#    on their cgroup counts them. Expected CALLS + 1 exit_group per process.
#  - flows: flowgen churn of CONNS short TCP connections, 4 at a time; `bpfmem flows
#    --closed` must give 2 x CONNS tcp_close records.
# Prints one row per case: expected, counted, missed (the programs' recursion_misses,
# as the tool reports them) and the share lost.
. /tests/lib.sh	# wait_for, missed_text, missed_json
calls=${1:-200000}
conns=${2:-2000}
hooks=${3:-fentry kprobe tp}
loads=${4:-none cpu}
ncpu=$(grep -c ^processor /proc/cpuinfo)
CG=/sys/fs/cgroup/rtloss
mkdir -p $CG
rt=no
bpfmem probe 2>/dev/null | grep -q '^PREEMPT_RT: *yes' && rt=yes
np=$(cat /proc/sys/kernel/bpf_rt_nonpreempt 2>/dev/null || echo none)
echo "kernel $(uname -r), PREEMPT_RT $rt, kernel.bpf_rt_nonpreempt $np, $ncpu CPUs, $calls getppid, $conns connections"

hogs=""
start_hogs() {
	local i=0
	hogs=""
	while [ $i -lt $ncpu ]; do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
		i=$((i + 1))
	done
}
stop_hogs() {
	[ -n "$hogs" ] && kill $hogs 2>/dev/null && wait $hogs 2>/dev/null
	hogs=""
}
row() {	# row TOOL HOOK LOAD EXPECTED COUNTED MISSED
	awk -v t="$1" -v h="$2" -v l="$3" -v e="$4" -v c="$5" -v m="$6" 'BEGIN {
		printf "%-9s %-7s %-5s %10d %10d %8d %7.3f%%\n", t, h, l, e, c, m, e ? 100 * (e - c) / e : 0 }'
}

short() {	# short STDERR OUTPUT: show both, as comment lines
	echo "# short count: the tool's stderr, then its output (head and tail)"
	sed 's/^/#   err: /' "$1"
	{ head -n 20 "$2"; echo ...; tail -n 5 "$2"; } | sed 's/^/#   out: /'
}

bench_syscalls() {	# bench_syscalls HOOK LOAD
	local per=$((calls / ncpu)) i=0 pids="" sum ex miss
	# empty the files here, not only in the child's redirection: with a CPU hog
	# the child may not have run yet when wait_for reads the previous case's
	# "Tracing" (the workload then ran before the tool attached: 0 counted)
	: >/tmp/sc.out
	: >/tmp/sc.err
	bpfmem syscalls --hook $1 -c $CG -T 0 >/tmp/sc.out 2>/tmp/sc.err &
	tp=$!
	wait_for Tracing /tmp/sc.err $tp || echo "# syscalls did not start in 60 s: $(tr "\n" " " </tmp/sc.err)"
	while [ $i -lt $ncpu ]; do
		sh -c "echo \$\$ >$CG/cgroup.procs && exec syscall-workload -g $per -o 0 -n 0" >/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	wait $pids
	sleep 0.5
	kill -INT $tp
	wait $tp
	sum=$(awk '$1 == "getppid" { s += $2 } END { print s + 0 }' /tmp/sc.out)
	ex=$(awk '$1 == "exit_group" { s += $2 } END { print s + 0 }' /tmp/sc.out)
	miss=$(missed_text /tmp/sc.out)
	row syscalls $1 $2 $((per * ncpu + ncpu)) $((sum + ex)) $miss
	# a short count that misses do not explain: what the tool said
	[ $((sum + ex + miss)) -lt $((per * ncpu + ncpu)) ] && short /tmp/sc.err /tmp/sc.out
	return 0
}

bench_flows() {	# bench_flows HOOK LOAD
	local n miss
	: >/tmp/fl.json	# see bench_syscalls
	: >/tmp/fl.err
	bpfmem flows --hook $1 -j --closed -i 1 -T 1 >/tmp/fl.json 2>/tmp/fl.err &
	fp=$!
	wait_for '"type":"start"' /tmp/fl.json $fp || echo "# flows did not start in 60 s: $(tr "\n" " " </tmp/fl.err)"
	flowgen churn 127.0.0.1 6100 $conns 4 >/dev/null
	sleep 1
	kill -INT $fp
	wait $fp
	n=$(grep -c '"type":"closed","reason":"tcp_close"' /tmp/fl.json)
	# what else the tool accounted for: other close reasons, its drop counters
	echo "# flows $1 $2: closed by reason: $(grep -o '"type":"closed","reason":"[a-z_]*"' \
		/tmp/fl.json | sed 's/.*"reason":"//; s/"$//' | sort | uniq -c | tr -s ' \n' ' ');" \
		"$(grep -o '"dropped":{[^}]*}' /tmp/fl.json | tail -n 1)"
	miss=$(missed_json /tmp/fl.json)
	row flows $1 $2 $((2 * conns)) $n $miss
	[ $((n + miss)) -lt $((2 * conns)) ] && short /tmp/fl.err /tmp/fl.json
	return 0
}

printf "%-9s %-7s %-5s %10s %10s %8s %8s\n" tool hook load expected counted missed lost
for load in $loads; do
	for hook in $hooks; do
		[ $load = cpu ] && start_hogs
		bench_syscalls $hook $load
		if [ $hook != tp ]; then
			bench_flows $hook $load
		fi
		stop_hogs
	done
done
rmdir $CG 2>/dev/null
exit 0
