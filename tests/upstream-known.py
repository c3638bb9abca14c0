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

MITIG = ("CONFIG_CPU_MITIGATIONS is off in the tinyconfig guests: cpu_mitigations_off() "
         "lets unprivileged loads bypass the Spectre v1/v4 rules this case expects")
RULES = [  # (regex on the test name, reason); first match wins
    (r"@unpriv$", MITIG),
    (r"^\d+/u ", MITIG),
    (r"^verifier_ref_tracking", "kfunc bpf_key_put needs CONFIG_KEYS and "
     "CONFIG_SYSTEM_DATA_VERIFICATION: the object does not load"),
    (r"^verifier_(sock|jeq_infer_not_null)", "map_xskmap needs CONFIG_XDP_SOCKETS: "
     "the object does not load"),
    (r"^verifier_lsm", "LSM hook audit_rule_known needs CONFIG_AUDIT: not in the BTF"),
    (r"^verifier_tailcall_jit", "expects endbr64 in the JIT image: CONFIG_X86_KERNEL_IBT off"),
    (r"^verifier_global_subprogs/arg_tag_ctx_fmod_ret|^cgrp_local_storage/(yes|no)_rcu_lock",
     "syscalls are not modifiable/sleepable attach targets without "
     "CONFIG_FUNCTION_ERROR_INJECTION"),
    (r"^cgrp_local_storage/cgroup_iter_sleepable", "name_to_handle_at(2) needs CONFIG_FHANDLE"),
    (r"^(map_kptr/success-map|task_local_storage/exit_creds)", "kern_sync_rcu() uses "
     "membarrier(2): CONFIG_MEMBARRIER off (ENOSYS)"),
    (r"^timer", "bpf_timer is refused on PREEMPT_RT in 6.12 (the verifier's only RT-specific "
     "refusal): the objects do not load"),
    (r"^(task_local_storage/nodeadlock|test_local_storage)", "LSM socket hooks need "
     "CONFIG_SECURITY_NETWORK: not in the BTF"),
]
# a test that fails through its subtests gets the reason of its subtests
PARENT = "fails through the subtests listed below"


def failures(suite, text):
    out = set()
    for line in text.splitlines():
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
