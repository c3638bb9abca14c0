#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-guest: the cost of a tracing program's run, from the UPSTREAM selftests `bench`
# trigger cases: a BPF driver calls a kernel function in a loop and an
# fentry/fexit/fmodret (trampoline) or kprobe program counts the calls. The driver is a
# raw_tp program run by BPF_PROG_TEST_RUN, which runs it between get_cpu() and
# put_cpu(): the traced runs are not preemptible, also on PREEMPT_RT, so they never
# take the series' run lock (patch 19). For the cost of runs in task context, where
# the lock is taken, see tests/bench/run-cost.sh (workload trigsys).
#
#   sh /bench/trig.sh [-w WARMUP_S] [-d DURATION_S] [-p PRODUCERS]
#   Defaults: -w 1 -d 3 -p 1
#
# Host (bench is built by tests/selftests-build.sh without --no-bench):
#   C=/var/cache/bpfmem/selftests/current/stage/selftests-bpf
#   ./run exec --kernel rt --add $C --add $C/bench -- sh /bench/trig.sh
#
# Output: "trig CASE PRODUCERS M_HITS_PER_S" per case ('#' lines are comments); a
# failed case prints "FAILED CASE" and the script exits 1 after the others.
B=${BENCH:-/usr/share/bpfmem/selftests-bpf/bench}
w=1 d=3 p=1
while [ $# -gt 0 ]; do
	case "$1" in
	-w) w=$2; shift 2 ;;
	-d) d=$2; shift 2 ;;
	-p) p=$2; shift 2 ;;
	-h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "trig.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -x "$B" ] || { echo "trig.sh: no $B (tests/selftests-build.sh; --add its stage dir)" >&2; exit 1; }
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, bench -w $w -d $d -p $p"
rc=0
for c in trig-fentry trig-fexit trig-fmodret trig-kprobe; do
	if ! (cd "$(dirname "$B")" && "$B" -w "$w" -d "$d" -p "$p" "$c") >/tmp/trig.out 2>&1; then
		echo "FAILED $c"
		sed 's/^/# /' /tmp/trig.out | tail -n 5
		rc=1
		continue
	fi
	# Summary: hits    1.234 ± 0.010M/s (  1.234M/prod)
	h=$(sed -n 's/^Summary: hits *\([0-9.]*\) .*/\1/p' /tmp/trig.out)
	if [ -z "$h" ]; then
		echo "FAILED $c (no summary)"
		rc=1
		continue
	fi
	echo "trig $c $p $h"
done
exit $rc
