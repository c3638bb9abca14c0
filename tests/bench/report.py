#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregates the "bench: " lines of guest logs (one per kernel x smp x round) into
ratios that survive TCG noise: for every case, the median over rounds of ops
dynamic/preallocated (both modes measured in the same boot) and of ops and peak
memory patched/vanilla (boots of one round are run back to back), each with its
min-max spread. The JSON file keeps every run.
usage: report.py OUT.json KERNEL:SMP[:ROUND]:LOG..."""
import json
import re
import statistics
import sys

results = []    # every measurement
data = {}       # (case, mode, kernel, smp) -> {round: values}
combos = []     # (kernel, smp) in first-seen order
rounds = set()
for arg in sys.argv[2:]:
    parts = arg.split(":", 3)
    if len(parts) == 4 and parts[2].isdigit():
        kernel, smp, rnd, log = parts[0], int(parts[1]), int(parts[2]), parts[3]
    else:
        kernel, smp, log = arg.split(":", 2)
        smp, rnd = int(smp), 1
    if (kernel, smp) not in combos:
        combos.append((kernel, smp))
    rounds.add(rnd)
    try:
        lines = open(log, errors="replace").read().splitlines()
    except OSError as e:
        print(f"report.py: {log}: {e.strerror}", file=sys.stderr)
        lines = []
    for line in lines:
        line = line.replace("\r", "").strip()
        m = re.match(r"^bench: (.*)$", line)
        if not m:
            continue
        f = m.group(1).split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "mapperf" and len(f) >= 12:
            case, mode, v = "map_perf upd+lookup+del (ops/s, all CPUs)", f[1], {"ops": float(f[9])}
        elif f[0] == "mapperf-overwrite" and len(f) >= 12:
            case, mode, v = "map_perf overwrite upd+lookup (ops/s, all CPUs)", f[1], {"ops": float(f[9])}
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
        data.setdefault((case, mode, kernel, smp), {})[rnd] = v
        results.append({"case": case, "mode": mode, "kernel": kernel, "smp": smp,
                        "round": rnd, **v})


def spread(xs):
    """median (min-max, n)"""
    if not xs:
        return "-"
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f}, n={len(xs)})"


def ratios(a, b, key="ops"):
    """a[r][key] / b[r][key] for every round both have"""
    return [a[r][key] / b[r][key] for r in sorted(a) if r in b and b[r].get(key)
            and key in a[r]]


cases = sorted({k[0] for k in data})
# the kernel-to-kernel ratio: the first kernel over the second, as ./run bench --kernels
# lists them ("base vanilla": the series over the kernel without it)
names = list(dict.fromkeys(k for k, _ in combos))
pair = (names[0], names[1]) if len(names) > 1 else None
pair_label = ("patched/vanilla" if pair == ("base", "vanilla")
              else f"{pair[0]}/{pair[1]}" if pair else None)
summary = []
print("bpfmem bench (TCG guest): medians over rounds, min-max in parentheses;")
print(f"{len(rounds)} round(s), each round boots " +
      ", ".join(f"{k}/smp{s}" for k, s in combos) + " in turn")
for c in cases:
    print(f"  {c}:")
    for k, s in combos:
        pre, dyn = data.get((c, "prealloc", k, s), {}), data.get((c, "dynamic", k, s), {})
        med = [statistics.median(x[r]["ops"] for r in x) for x in (pre, dyn) if x]
        line = f"    {k}/smp{s}: ops " + " / ".join(
            f"{m:.0f}" for m in med) + (" (prealloc / dynamic)" if len(med) == 2 else "")
        r = ratios(dyn, pre)
        if r:
            line += f"; dyn/prealloc {spread(r)}"
            summary.append({"case": c, "kernel": k, "smp": s, "ratio": "dynamic/prealloc",
                            "median": statistics.median(r), "min": min(r), "max": max(r),
                            "n": len(r)})
        pk = ratios(dyn, pre, "peak")
        if pk:
            line += f"; peak mem dyn/prealloc {spread(pk)}"
        print(line)
    for s in sorted({s for _, s in combos}) if pair else ():
        for mode in ("prealloc", "dynamic"):
            p, v = data.get((c, mode, pair[0], s)), data.get((c, mode, pair[1], s))
            if not p or not v:
                continue
            r = ratios(p, v)
            line = f"    smp{s} {mode} {pair_label} {spread(r)}"
            summary.append({"case": c, "mode": mode, "smp": s, "ratio": pair_label,
                            "median": statistics.median(r) if r else None,
                            "min": min(r) if r else None, "max": max(r) if r else None,
                            "n": len(r)})
            pk = ratios(p, v, "peak")
            if pk:
                line += f"; peak mem {spread(pk)}"
            print(line)
json.dump({"runs": [{"kernel": k, "smp": s} for k, s in combos], "rounds": sorted(rounds),
           "summary": summary, "results": results}, open(sys.argv[1], "w"), indent=1)
print(f"\nJSON: {sys.argv[1]}")
# a mode no run produced for a case does not exist for it (bpf-hashmap-full-update has
# no BPF_F_NO_PREALLOC variant); a mode some run produced must be in every run
missing = [(c, m, k, s, r) for c in cases for m in ("prealloc", "dynamic")
           for k, s in combos for r in sorted(rounds)
           if any((c, m, kk, ss) in data for kk, ss in combos)
           and r not in data.get((c, m, k, s), {})]
bad = [x for x in results if x["ops"] <= 0]
if not cases or missing or bad:
    print(f"bench: {len(missing)} missing and {len(bad)} non-positive results")
    sys.exit(1)
