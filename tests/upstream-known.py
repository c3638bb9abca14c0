#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the list of upstream selftests that fail on a VANILLA kernel, with the reason
for each, from guest logs of tests/guest/upstream.sh (their runner output is in the
log whenever a failure is not on the list yet):

    tests/upstream-known.py [--stamp STAMP] SUITE LOG... > tests/guest/upstream/SUITE-FLAVOUR.known

STAMP: `tests/upstream-stamp.sh print FLAVOUR` (what the vanilla kernel and tests were),
written into the list so that the gate can tell when it is stale.

SUITE is verifier or progs. A failure no rule below explains stops the script: every
entry of a list has a reason a reader can check (a kernel option the guests lack, the
machine), never "fails on vanilla" alone.
"""
import re
import sys

DEBIAN = ("fails on Debian's own 6.12.118+deb12-cloud-amd64 binary too (tests/distro-ab.sh "
          "progs, docs/distro.md): the release under TCG, not this config or the series")
RULES = [  # (regex on the test name, reason); first match wins
    (r"^verifier_(loops1|search_pruning):TIMEOUT$", "runs past the 300 s of "
     "tests/guest/upstream-each.sh: verifier scale cases (1M instructions) on a kernel "
     "built -Os (tinyconfig's CC_OPTIMIZE_FOR_SIZE) under TCG; 145 s on Debian's -O2"),
    (r"^verifier_bounds_deduction/check deducing bounds from const, \d+ @unpriv$", DEBIAN),
    (r"^verifier_map_ptr/bpf_map_ptr: r = 0, r = r \+ map_ptr @unpriv$", DEBIAN),
    (r"^(test_local_storage|cgrp_local_storage/(cgrp1_(yes|no)|yes)_rcu_lock)$", DEBIAN),
    (r"^cgrp_local_storage/no_rcu_lock$", "its sleepable fentry program (cgrp_ls_sleepable) "
     "is refused with EACCES on the gate's kernels, vanilla and patched alike, and loads "
     "on Debian's binary: a config difference not found yet"),
    (r"^verifier_ref_tracking", "kfunc bpf_key_put needs CONFIG_KEYS (on in Debian's "
     "config, off in the gate's kernels): the object does not load"),
    (r"^timer", "bpf_timer is refused on PREEMPT_RT in 6.12 (the verifier's only RT-specific "
     "refusal): the objects do not load"),
]
# a test that fails through its subtests gets the reason of its subtests
PARENT = "fails through the subtests listed below"


def failures(suite, text):
    out = set()
    runner = "test_verifier" if suite == "verifier" else "test_progs"
    for line in text.splitlines():
        # upstream.sh's TAP names every failure, on the list or not (its runner
        # output, below, is cut at 400 lines)
        m = re.match(r"^(?:not )?ok \d+ - " + runner + r": (.+?) (?:FAILED, and it is "
                     r"not a known vanilla failure|fails on vanilla too # SKIP)", line)
        if m:
            out.add(m.group(1))
            continue
        line = re.sub(r"^#   ", "", line.rstrip("\r"))
        if suite == "verifier":
            m = re.match(r"^#(\d+/[up] .*) FAIL", line)
        else:
            m = re.match(r"^#\d+(?:/\d+)? +(.+):FAIL$", line)
        if m:
            out.add(m.group(1))
    return out


def main():
    args = sys.argv[1:]
    stamp = None
    if args[:1] == ["--stamp"] and len(args) > 1:
        stamp, args = args[1], args[2:]
    if len(args) < 2 or args[0] not in ("verifier", "progs"):
        sys.exit(__doc__)
    suite = args[0]
    fails = set()
    for f in args[1:]:
        with open(f, errors="replace") as fh:
            fails |= failures(suite, fh.read())
    names = sorted(fails)
    print("# tests that fail on the vanilla kernel of this flavour (same config as the")
    print("# patched one): NAME  # reason. Written by tests/upstream-known.py.")
    if stamp:
        print("# stamp: " + stamp)
    bad = []
    for n in names:
        why = next((r for rx, r in RULES if re.search(rx, n)), None)
        if why is None and any(o.startswith(n + "/") for o in names):
            why = PARENT
        if why is None:
            bad.append(n)
            continue
        print(f"{n}  # {why}")
    if bad:
        sys.exit("upstream-known.py: no reason known for: " + "; ".join(bad))


main()
