#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `bench --quick` smoke test (a benchmark, not a timing assertion): one guest run of
# tests/bench/guest/all.sh --quick on KERNEL; the report must have every row, both
# modes, with positive numbers. TAP.
k=${1:-base}
top=$(cd "$(dirname "$0")/../.." && pwd)
C=${BPFMEM_CACHE:-/var/cache/bpfmem}/selftests/current/stage/selftests-bpf
log=${BPFMEM_BUILDDIR:-$top/build}/meson-logs/bench-smoke-$k.log
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$top/tests/harness/harness.sh" --kernel "$k" --smp 2 --mem 2048 --timeout 900 \
	--add "$C" --add "$C/bench" --log "$log" -- sh /bench/all.sh --quick >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && echo "ok 1 - bench-all --quick ran in the guest" ||
	echo "not ok 1 - bench-all --quick failed in the guest (exit $rc, log $log)"
python3 "$top/tests/bench/report.py" "$out/bench.json" "$k:2:$log" | sed 's/^/# /'
python3 - "$out/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = 1
def t(ok, desc):
    global n
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {desc}")
res = d["results"]
for case in ["map_perf upd+lookup+del (ops/s, all CPUs)",
             "htab-mem overwrite (per-producer ops/s)",
             "htab-mem batch_add_batch_del (per-producer ops/s)",
             "htab-mem add_del_on_diff_cpu (per-producer ops/s)"]:
    for mode in ("prealloc", "dynamic"):
        r = [x for x in res if x["case"] == case and x["mode"] == mode]
        t(len(r) == 1 and r[0]["ops"] > 0 and r[0].get("peak", 1) > 0,
          f"{case} {mode}: row present, ops > 0" + (f" ({r[0]['ops']:.0f})" if r else ""))
print(f"1..{n}")
PY
