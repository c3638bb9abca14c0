# SPDX-License-Identifier: GPL-2.0
# Replacing elements (series patch 14: a non-preallocated hash map keeps the element a
# replacement unlinked as the CPU's spare for the next one): a BPF program on every CPU
# replaces 64 resident keys of its own over and over (mapperf -w), in a preallocated and
# a BPF_F_NO_PREALLOC map; every lookup right after an update sees the new value
# (a spare handed out while still linked, or reused too early, would show the old one or
# another key's), and the map ends with exactly 64 elements per CPU (the element count
# does not drift: a replacement neither adds nor loses one).
# usage: overwrite.sh FLAVOR
. /tests/lib.sh
ncpu=$(grep -c ^processor /proc/cpuinfo)
mapperf -w -s 2 -n 20000 >/tmp/ow.txt 2>&1
ok $? "mapperf -w runs on $ncpu CPUs"
sed 's/^/# /' /tmp/ow.txt
for mode in prealloc dynamic; do
	l=$(grep "^mapperf-overwrite $mode " /tmp/ow.txt)
	it=$(echo "$l" | awk '{ print $6 }')
	f=$(echo "$l" | awk '{ print $12 }')
	en=$(echo "$l" | awk '{ print $14 }')
	el=$(echo "$l" | awk '{ print $16 }')
	[ -n "$it" ] && [ "$it" -gt 0 ] && [ "$f" = 0 ]
	ok $? "$mode: $it replacements, every lookup saw the new value ($f failures)"
	# ENOMEM: a program insert that found the per-CPU cache empty. A test run on its
	# own CPU (mapperf pins its threads) runs with preemption disabled; on PREEMPT_RT
	# the refill irq_work runs in a kthread, so it waits for the end of the run
	# (vanilla-rt has them too); elsewhere the refill runs in the irq_work IPI: never
	if [ "$1" = rt ]; then
		echo "# $mode: $en updates failed with ENOMEM (rt)"
	else
		[ "$en" = 0 ]; ok $? "$mode: no update failed with ENOMEM ($en)"
	fi
	[ "$el" = $((64 * ncpu)) ]
	ok $? "$mode: $el elements afterwards = 64 x $ncpu CPUs"
done
done_testing
