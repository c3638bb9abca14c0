#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The "scale maps ..." lines of tests/guest/scale.sh (stdin) as the table of
# docs/benchmarks.md and TAP checks 2..N of tests/bench/scale.sh: values exact at
# every size, cost per map at the largest size at most 1.5x that at the one before.
import sys

rows, par = [], []
for line in sys.stdin:
    f = line.split()
    d = {f[i]: f[i + 1] for i in range(1, len(f) - 1, 2)}
    (par if f[1] == "par" else rows).append(d)
n = 1


def t(ok, desc):
    global n
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {desc}")


def ms(r, k):
    return int(r[k]) / 1000


t(len(rows) >= 1, f"{len(rows)} sizes measured")
print("#")
print("# | maps | cgroups | progs | scrape median ms (min-max) | exporter CPU ms/scrape "
      "| maps -j ms (CPU ms) | per map us: scrape, exporter CPU, maps -j | exact (maps checked) |")
print("# |---:|---:|---:|---|---:|---|---|---|")
for r in rows:
    m = int(r["maps"])
    r["pm"] = (int(r["scrape_med_us"]) / m, int(r["cpu_us_per_scrape"]) / m,
               int(r["mapsj_us"]) / m)
    exact = "yes" if r["bad"] == "0" else "NO: " + r["bad"] + " wrong"
    per_map = ", ".join(f"{x:.0f}" for x in r["pm"])
    print(f"# | {m:,} | {int(r['cgroups']):,} | {int(r['progs']):,} "
          f"| {ms(r, 'scrape_med_us'):.0f} ({ms(r, 'scrape_min_us'):.0f}-{ms(r, 'scrape_max_us'):.0f}) "
          f"| {ms(r, 'cpu_us_per_scrape'):.0f} "
          f"| {ms(r, 'mapsj_us'):.0f} ({ms(r, 'mapsj_cpu_us'):.0f}) "
          f"| {per_map} | {exact} ({r['checked']}) |")
print("#")
if any("bpftool_cpu_us" in r for r in rows):
    print("# | maps | bpfmem maps -j ms (CPU ms) | bpftool map show -j ms (CPU ms) "
          "| CPU per map us: maps -j, exporter scrape, bpftool | CPU ratio to bpftool: maps -j, exporter scrape |")
    print("# |---:|---|---|---|---|")
    for r in rows:
        if "bpftool_cpu_us" not in r:
            continue
        m, bc = int(r["maps"]), int(r["bpftool_cpu_us"])
        ex = int(r["cpu_us_per_scrape"])
        ratio = f"{int(r['mapsj_cpu_us']) / bc:.2f}, {ex / bc:.2f}" if bc else "-"
        print(f"# | {m:,} | {ms(r, 'mapsj_us'):.0f} ({ms(r, 'mapsj_cpu_us'):.0f}) "
              f"| {ms(r, 'bpftool_us'):.0f} ({bc / 1000:.0f}) "
              f"| {int(r['mapsj_cpu_us']) / m:.0f}, {ex / m:.0f}, {bc / m:.0f} | {ratio} |")
    print("#")
if par:
    print("# | exporter defaults, maps | parallel scrapes | CPU ms | wall ms | RSS before KiB "
          "| peak RSS KiB | body bytes |")
    print("# |---:|---:|---:|---:|---:|---:|---:|")
    for p in par:
        print(f"# | {int(p['maps']):,} | {p['par']} | {p['cpu_ms']} | {p['wall_ms']} "
              f"| {p['rss_kb_before']} | {p['hwm_kb']} | {int(p['bytes']):,} |")
    print("#")
for r in rows:
    t(r["bad"] == "0", f"{r['maps']} maps: exported values exact against fdinfo "
      f"({r['checked']} maps checked)")
if len(rows) >= 2:
    a, b = rows[-2], rows[-1]
    for i, what in enumerate(["scrape time", "exporter CPU", "maps -j time"]):
        ratio = b["pm"][i] / a["pm"][i] if a["pm"][i] else float("inf")
        t(ratio <= 1.5, f"{what} per map at {b['maps']} maps is {ratio:.2f}x that at "
          f"{a['maps']} (linear: <= 1.5x)")
print(f"1..{n}")
