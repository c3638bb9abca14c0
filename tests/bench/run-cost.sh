#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host: the cost of a tracing program's run in task context on PREEMPT_RT, the series
# against the same rt config without it (issue 30, finding 5: patch 19's run lock),
# N interleaved boots per kernel. Each boot runs the workload trigsys (getpgid() in a
# loop with no program, an fentry program that qualifies for patch 20's non-preemptible
# run, one that does not and takes patch 19's run lock, a kprobe; -r rounds each) and
# reports per mode the median calls/s of the boot and the overhead per call against no
# program. Prints every boot and, per kernel and mode, the median of the boots' medians
# with its range. TCG times are emulated: compare kernels only, on the same machine.
#
#   tests/bench/run-cost.sh [-n BOOTS] [-d SECONDS] [-r ROUNDS] [-t THREADS] [-k 'rt vanilla-rt']
#
# -t 2: two threads share CPU 0 and preempt each other, so a run can find the lock held.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)	# tests/
n=5 secs=2 rounds=3 threads=1 kernels="rt vanilla-rt"
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-d) secs=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-t) threads=$2; shift 2 ;;
	-k) kernels=$2; shift 2 ;;
	*) echo "usage: tests/bench/run-cost.sh [-n BOOTS] [-d SECONDS] [-r ROUNDS] [-t THREADS] [-k 'rt vanilla-rt']" >&2
	   exit 2 ;;
	esac
done
out=${BPFMEM_CACHE:-/var/cache/bpfmem}/bench/run-cost-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
res=$out/boots.txt
: >"$res"
for b in $(seq 1 "$n"); do
	for k in $kernels; do
		l=$out/$k-$b.log
		rc=0
		"$here/harness/harness.sh" --kernel "$k" --log "$l" \
			-- trigsys -d "$secs" -r "$rounds" -t "$threads" >/dev/null 2>&1 || rc=$?
		grep -a '^trigsys-median ' "$l" | tr -d '\r' |
			while read -r _ mode _ rate _ ns _ over; do
				echo "$k $b rc=$rc $mode $rate $ns $over"
			done | tee -a "$res"
	done
done
# per kernel and mode: median (range) of calls/s and of the overhead per call
awk '
function med(a, c,   i, j, t) {
	for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}
$3 == "rc=0" { k = $1 " " $4; c = ++cnt[k]; rate[k, c] = $5; over[k, c] = $7; keys[k] = 1 }
END {
	printf "# kernel mode: calls/s median (range), overhead ns/call median (range), boots\n"
	for (k in keys) {
		c = cnt[k]
		delete a; for (i = 1; i <= c; i++) a[i] = rate[k, i]; m1 = med(a, c); lo1 = a[1]; hi1 = a[c]
		delete a; for (i = 1; i <= c; i++) a[i] = over[k, i]; m2 = med(a, c); lo2 = a[1]; hi2 = a[c]
		printf "%s: %s (%s-%s) %s (%s-%s) %d\n", k, m1, lo1, hi1, m2, lo2, hi2, c
	}
}' "$res" | sort | tee "$out/medians.txt"
echo "# logs: $out"
