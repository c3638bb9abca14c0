#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# BPF objects that must load on kernels without some of what they use (Debian 12's 6.1
# has neither bpf_map_sum_elem_count nor map->elem_count): every kernel symbol they
# reference (kfuncs, ksyms: undefined in the object) is weak, so libbpf resolves a
# missing one to 0 and the program's bpf_ksym_exists() guard drops the call. TAP.
# usage: bpf-weak.sh OBJECT...
n=0
fail=0
for o in "$@"; do
	n=$((n + 1))
	und=$(readelf -sW "$o" 2>/dev/null | awk '$7 == "UND" && $8 != "" { print $5, $8 }')
	strong=$(echo "$und" | awk '$1 != "WEAK" && $2 != "" { print $2 }' | tr '\n' ' ')
	if [ -n "$und" ] && [ -z "$strong" ]; then
		echo "ok $n - $(basename "$o"): kernel symbols weak: $(echo "$und" | awk '{ print $2 }' | tr '\n' ' ')"
	elif [ -z "$und" ]; then
		echo "not ok $n - $(basename "$o"): no kernel symbols found (readelf failed?)"
		fail=1
	else
		echo "not ok $n - $(basename "$o"): not weak: $strong"
		fail=1
	fi
done
echo "1..$n"
exit $fail
