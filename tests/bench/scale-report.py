#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The "scale maps ..." lines of tests/guest/scale.sh (stdin) as the table of
# docs/benchmarks.md and TAP checks 2..N of tests/bench/scale.sh: values exact at
# every size, cost per map at the largest size at most 1.5x that at the one before.
import sys

rows = []
for line in sys.stdin:
    f = line.split()[1:]
    rows.append({f[i]: f[i + 1] for i in range(0, len(f) - 1, 2)})
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
