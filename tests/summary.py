#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Counts results in meson's testlog.json: every TAP line of a TAP test is one
result (a TAP test that failed without a 'not ok' line counts one failure), every
other test is one. Prints failures, each with the TAP diagnostics ('#' lines) next to
it (CI shows only this: the testlog stays on the machine), then the plain
'N passed, N failed' line."""
import json
import re
import sys

passed = failed = skipped = 0


def diagnostics(out, i, before=8, after=24):
    """the '#' lines just before and after the result on line i, indented"""
    b = i
    while b > 0 and i - b < before and out[b - 1].startswith("#"):
        b -= 1
    a = i + 1
    while a < len(out) and a - i <= after and out[a].startswith("#"):
        a += 1
    return ["  " + o[:300] for o in out[b:i] + out[i + 1:a]]


fails = []
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError as e:
    print(f"summary: cannot read {sys.argv[1]}: {e}")
    print("0 passed, 1 failed")
    sys.exit(1)
for line in lines:
    t = json.loads(line)
    name, res = t["name"], t["result"]
    out_lines = (t.get("stdout") or "").splitlines()
    if any(re.match(r"^(not )?ok [0-9]+ ", o) for o in out_lines):
        p = f = 0
        for i, out in enumerate(out_lines):
            m = re.match(r"^(not ok|ok)\b[^#]*(#\s*(SKIP|TODO).*)?", out)
            if not m:
                continue
            if m.group(3) == "SKIP":
                skipped += 1
            elif m.group(1) == "ok":
                p += 1
            else:
                f += 1
                fails.append(f"{name}: {out.strip()}")
                fails.extend(diagnostics(out_lines, i))
        if res not in ("OK", "SKIP", "EXPECTEDFAIL") and f == 0:
            f = 1
            fails.append(f"{name}: {res}")
        passed += p
        failed += f
    elif res in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif res == "SKIP":
        skipped += 1
    else:
        failed += 1
        fails.append(f"{name}: {res}")
for f in fails:
    print(f if f.startswith("  ") else "FAILED: " + f)
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed or passed == 0 else 0)
