#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The built kernel of a flavour against Debian's own config of the same version
# (linux-config-6.12): over the option families of kernel/config/distro.py (slab/mm,
# memcg, BPF/JIT, hardening, preemption/RCU, tracing) every difference must be listed
# there with its reason. Fails on any other, and when the kernel is not built.
#
#   tests/config-debian.sh FLAVOR        (TAP)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:?usage: config-debian.sh base|rt|debug|distro|distro-rt}
cfg=${BPFMEM_CACHE:-/var/cache/bpfmem}/kernel/build-patched-$flavor/.config
echo "1..2"
if [ -f "$cfg" ]; then echo "ok 1 - $flavor kernel configured ($cfg)"; else echo "not ok 1 - no $cfg (./run build $flavor)"; echo "not ok 2 - nothing to compare"; exit 1; fi
out=$(python3 "$top/kernel/config/distro.py" check "$flavor" "$cfg")
rc=$?
echo "$out" | sed 's/^/# /'
if [ $rc = 0 ]; then
	echo "ok 2 - $(echo "$out" | tail -n 1)"
else
	echo "not ok 2 - $(echo "$out" | tail -n 1)"
fi
exit $rc
