# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): `bpfmem syscalls -p PID` on one process while four other
# processes make syscalls in loops on the same CPUs (they run the same programs: the
# PID filter is inside them). On PREEMPT_RT without the series a competitor preempted
# inside a program makes the kernel skip the traced process's runs on that CPU.
#   ./run exec --kernel deb612-rt --smp 2 -- sh /bench/rt-pid.sh [CALLS] [RUNS]
# (any kernel; a kernel without PREEMPT_RT is the control, where nothing is missed)
# The traced process makes CALLS getppid (default 200000, as rt-loss.sh) and
# exits; expected CALLS getppid + 1 exit_group. One row per run: expected, counted,
# missed (the programs' recursion_misses as the tool reports them), share lost.
. /tests/lib.sh	# wait_for, missed_text
calls=${1:-200000}
runs=${2:-3}
ncomp=4
rt=no
bpfmem probe 2>/dev/null | grep -q '^PREEMPT_RT: *yes' && rt=yes
series=$(bpfmem probe 2>/dev/null | sed -n 's/^bpfmem series: *//p')
echo "kernel $(uname -r), PREEMPT_RT $rt, series $series, $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$calls getppid traced, $ncomp competing syscall loops"
printf "%-4s %-7s %10s %10s %8s %8s\n" run hook expected counted missed lost
r=1
while [ $r -le "$runs" ]; do
	rm -f /tmp/comp.stop
	i=0 comps=""
	while [ $i -lt $ncomp ]; do
		sh -c 'while [ ! -e /tmp/comp.stop ]; do syscall-workload -g 20000 -o 50 -n 0 >/dev/null; done' &
		comps="$comps $!"
		i=$((i + 1))
	done
	: >/tmp/pid.wl
	: >/tmp/pid.out
	: >/tmp/pid.err
	syscall-workload -s -g "$calls" -o 0 -n 0 >/tmp/pid.wl 2>&1 &
	wpid=$!
	wait_for '^pid ' /tmp/pid.wl $wpid
	bpfmem syscalls -p $wpid -T 0 >/tmp/pid.out 2>/tmp/pid.err &
	tp=$!
	wait_for Tracing /tmp/pid.err $tp || echo "# syscalls did not start: $(tr '\n' ' ' </tmp/pid.err)"
	kill -USR1 $wpid
	wait $wpid
	sleep 0.5
	kill -INT $tp
	wait $tp
	touch /tmp/comp.stop
	wait $comps
	hook=$(sed -n 's/.*hook \([a-z]*\).*/\1/p' /tmp/pid.err | head -n1)
	sum=$(awk '$1 == "getppid" || $1 == "exit_group" { s += $2 } END { print s + 0 }' /tmp/pid.out)
	miss=$(missed_text /tmp/pid.out)
	awk -v r=$r -v h="$hook" -v e=$((calls + 1)) -v c="$sum" -v m="$miss" 'BEGIN {
		printf "%-4d %-7s %10d %10d %8d %7.3f%%\n", r, h, e, c, m, 100 * (e - c) / e }'
	grep -i 'missed\|dropped' /tmp/pid.out | sed 's/^/#   /'
	r=$((r + 1))
done
exit 0
