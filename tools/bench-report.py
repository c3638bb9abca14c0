#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregates the "bench: " lines of several guest logs (one per kernel x smp) into one
table with ratios dyn/prealloc and patched/vanilla, and a JSON file for history.
usage: bench-report.py OUT.json KERNEL:SMP:LOG..."""
import json
import re
import sys

rows = {}   # (case, mode) -> {(kernel, smp): {"ops":..., "mem":..., "peak":...}}
runs = []
for arg in sys.argv[2:]:
    kernel, smp, log = arg.split(":", 2)
    key = (kernel, int(smp))
    runs.append(key)
    for line in open(log, errors="replace"):
        line = line.replace("\r", "").strip()
        m = re.match(r"^bench: (.*)$", line)
        if not m:
            continue
        f = m.group(1).split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "mapperf" and len(f) >= 12:
            case, mode, v = "map_perf upd+lookup+del (ops/s, all CPUs)", f[1], {"ops": float(f[9])}
        elif f[0] == "htab-mem" and len(f) >= 9:
            case = "htab-mem " + f[2] + " (per-producer ops/s)"
            mode = f[1]
            v = {"ops": float(f[4]) * 1000, "mem": float(f[6]), "peak": float(f[8])}
        elif f[0] == "hashmap-full-update" and len(f) >= 5:
            case, mode, v = "hashmap-full-update (events/s)", f[1], {"ops": float(f[4])}
        elif f[0] == "hashmap-lookup" and len(f) >= 5:
            case, mode, v = "hashmap-lookup (events/s)", f[1], {"ops": float(f[4]) * 1e6}
        else:
            continue
        rows.setdefault((case, mode), {})[key] = v


def fmt(x, unit=""):
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M{unit}"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k{unit}"
    return f"{x:.2f}{unit}"


cases = sorted({c for c, _ in rows})
print("bpfmem bench (TCG guest: compare ratios within this run, not absolute figures)")
hdr = f"{'case':52} {'mode':9}" + "".join(f" {k + '/smp' + str(s):>24}" for k, s in runs)
print(hdr)
print(f"{'':52} {'':9}" + "".join(f" {'ops  mem/peak MiB':>24}" for _ in runs))
for c in cases:
    for mode in ("prealloc", "dynamic"):
        d = rows.get((c, mode), {})
        cells = []
        for r in runs:
            v = d.get(r)
            if not v:
                cells.append(f" {'-':>24}")
                continue
            s = fmt(v["ops"])
            if "mem" in v:
                s += f" {v['mem']:.2f}/{v['peak']:.2f}"
            cells.append(f" {s:>24}")
        print(f"{c[:52]:52} {mode:9}" + "".join(cells))
print()
print("ratios: ops dyn/prealloc per kernel; ops and peak memory patched/vanilla per mode")
for c in cases:
    pre, dyn = rows.get((c, "prealloc"), {}), rows.get((c, "dynamic"), {})
    parts = []
    for r in runs:
        if r in pre and r in dyn and pre[r]["ops"]:
            parts.append(f"{r[0]}/smp{r[1]} dyn/pre {dyn[r]['ops'] / pre[r]['ops']:.2f}")
    for smp in sorted({s for _, s in runs}):
        for mode, d in (("prealloc", pre), ("dynamic", dyn)):
            p, v = d.get(("base", smp)), d.get(("vanilla", smp))
            if p and v and v["ops"]:
                t = f"smp{smp} {mode} patched/vanilla {p['ops'] / v['ops']:.3f}"
                if "peak" in p and v.get("peak"):
                    t += f" (peak mem {p['peak'] / v['peak']:.2f})"
                parts.append(t)
    print(f"  {c}:")
    for p in parts:
        print(f"    {p}")
out = {"runs": [{"kernel": k, "smp": s} for k, s in runs],
       "results": [{"case": c, "mode": m, "kernel": k, "smp": s, **v}
                   for (c, m), d in sorted(rows.items()) for (k, s), v in sorted(d.items())]}
json.dump(out, open(sys.argv[1], "w"), indent=1)
print(f"\nJSON: {sys.argv[1]}")
# a mode no run produced for a case does not exist for it (bpf-hashmap-full-update has
# no BPF_F_NO_PREALLOC variant); a mode some run produced must be in every run
missing = [(c, m, r) for c in cases for m in ("prealloc", "dynamic") for r in runs
           if rows.get((c, m)) and r not in rows[(c, m)]]
bad = [x for x in out["results"] if x["ops"] <= 0]
if not cases or missing or bad:
    print(f"bench: {len(missing)} missing and {len(bad)} non-positive results")
    sys.exit(1)
