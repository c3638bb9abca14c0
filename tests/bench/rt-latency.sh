#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host: cyclictest latency and fentry misses on PREEMPT_RT, the series against the same
# rt config without it, N interleaved boots per kernel (examples/rt-demo.sh: cyclictest
# -t 2 -p 80 -i 1000 under syscall + network load, without and with bpfmem's tracers
# attached; an fentry program's runs with tasks sharing a CPU). Prints every round and
# the medians with their ranges. TCG latencies are emulated time: compare kernels only.
# A boot without high-resolution timers (its TSC calibration failed) is repeated.
#
#   tests/bench/rt-latency.sh [-n ROUNDS] [-s SECONDS] [-k 'rt vanilla-rt']
#
# Needs the kernels built (./run build rt; ./run build vanilla-rt is part of ./run test).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)	# tests/
n=5 secs=10 kernels="rt vanilla-rt"
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-s) secs=$2; shift 2 ;;
	-k) kernels=$2; shift 2 ;;
	*) echo "usage: tests/bench/rt-latency.sh [-n ROUNDS] [-s SECONDS] [-k 'rt vanilla-rt']" >&2; exit 2 ;;
	esac
done
out=${BPFMEM_CACHE:-/var/cache/bpfmem}/bench/rt-latency-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
res=$out/rounds.txt
: >"$res"
for r in $(seq 1 "$n"); do
	for k in $kernels; do
		l=$out/$k-$r.log
		# a guest whose TSC calibration against the PIT failed (TCG, sporadic:
		# "tsc: Unable to calibrate against PIT") runs on jiffies without
		# high-resolution timers, and cyclictest measures the tick: boot again
		for try in 1 2 3 4 5; do
			rc=0
			"$here/harness/harness.sh" --kernel "$k" --smp 2 --add /usr/bin/cyclictest \
				--log "$l" -- sh /examples/rt-demo.sh "$secs" >/dev/null 2>&1 || rc=$?
			grep -aq 'High resolution timers not available' "$l" || break
			cp "$l" "$l.nohres.$try"
			echo "# $k $r: no high-resolution timers in the guest (try $try), booting again"
		done
		line=$(grep -a '^rtdemo: cyclictest \|^rtdemo: fentry' "$l" | tr -d '\r' |
			sed 's/^rtdemo: //' | tr '\n' ' ')
		echo "$k $r rc=$rc $line" | tee -a "$res"
	done
done
# medians (and ranges) per kernel: traced max, traced avg, baseline max, fentry missed
awk '
function med(a, c,   i, j, t) {
	for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}
{
	k = $1
	for (i = 4; i <= NF; i++) {
		if ($i == "baseline" || $i == "traced") cur = $i
		if ($i == "max_us") v[k, cur "_max", ++cnt[k, cur "_max"]] = $(i + 1)
		if ($i == "avg_us") v[k, cur "_avg", ++cnt[k, cur "_avg"]] = $(i + 1)
		if ($i == "missed") v[k, "missed", ++cnt[k, "missed"]] = $(i + 1)
	}
	ks[k] = 1
}
END {
	for (k in ks) {
		printf "# %s:", k
		split("traced_max traced_avg baseline_max missed", f, " ")
		for (x = 1; x <= 4; x++) {
			c = cnt[k, f[x]]
			if (!c) continue
			delete a
			for (i = 1; i <= c; i++) a[i] = v[k, f[x], i]
			m = med(a, c)
			printf " %s %s (%s-%s)", f[x], m, a[1], a[c]
		}
		printf "\n"
	}
}' "$res" | tee "$out/medians.txt"
echo "# logs: $out"
