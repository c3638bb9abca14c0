#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Scale benchmark (issue 33; a benchmark, not a timed test): one guest run of
# tests/guest/scale.sh on KERNEL, 100, 1,000 and 10,000 BPF maps in N/10 memory
# cgroups with N/20 loaded programs; `bpfmem exporter` scrapes (median of 5, min-max),
# the exporter's CPU per scrape, `bpfmem maps -j` interleaved with bpftool `map show -j`
# (the anchor; the ratio of each pair); at SCALE_PAR_AT maps (3000) the exporter with
# its defaults answering 1 and 31 parallel scrapes (CPU, peak RSS); every map's
# exported values checked against fdinfo in the guest. Prints the table (docs/benchmarks.md) and whether the
# cost per map grows no worse than linearly: per-map scrape time, exporter CPU and
# maps -j time at the largest size at most 1.5x those at the one before. TAP.
# usage: tests/bench/scale.sh [KERNEL [SIZE...]]   (default base 100 1000 3000 10000)
# Environment: SCALE_STRIDE=K checks every K-th map only (default all).
k=${1:-base}
shift
[ $# -gt 0 ] || set -- 100 1000 3000 10000
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${BPFMEM_BUILDDIR:-$top/build}/meson-logs/bench-scale-$k.log
mkdir -p "$(dirname "$log")"
# the anchor, bpftool map show -j, on the same maps in the same guest (issue 40)
bt=$(command -v bpftool || true)
"$top/tests/harness/harness.sh" --kernel "$k" --smp 2 --mem 3072 --timeout 2400 \
	${bt:+--add "$bt"} --log "$log" -- env SCALE_STRIDE="${SCALE_STRIDE:-1}" \
	SCALE_PAR_AT="${SCALE_PAR_AT:-3000}" sh /tests/scale.sh "$k" "$@" >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && echo "ok 1 - scale.sh ran in the guest, its checks passed" ||
	echo "not ok 1 - scale.sh failed in the guest (exit $rc, log $log)"
grep -a '^\(not \)\?ok \|^# ' "$log" | tr -d '\r' | sed 's/^/# guest: /'
tr -d '\r' <"$log" | grep -a '^scale \(maps\|par\) ' | python3 "$top/tests/bench/scale-report.py"
