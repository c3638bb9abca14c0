# SPDX-License-Identifier: GPL-2.0
# The recursion guard of fentry programs (workload rtguard, bpf/rtguard.bpf.c):
# real recursion is still skipped and counted (a program that deletes from a hash
# map while attached to htab_map_delete_elem); two runs of one program never
# interleave on a CPU (a per-CPU scratch slot is never found overwritten); every
# call either ran or was counted as missed; and, with three tasks and a CPU-bound
# one sharing CPU 0, no run is missed: on PREEMPT_RT series patch 12 makes a run
# that finds its program busy on the CPU wait for the preempted holder instead of
# being skipped (without it, tasks preempted inside the program make the others
# miss); on base and debug (PREEMPT_NONE) programs are never preempted.
# The same for kprobe programs (-K), guarded by bpf_prog_active: a kprobe inside its
# own task's BPF syscall map operation is skipped; with a fourth task on CPU 0 making
# BPF syscalls all along, none is missed (on PREEMPT_RT series patch 15: a program may
# run while another task is preempted inside a syscall's map operation).
# usage: rtguard.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
CALLS=20000
[ "$flavor" = debug ] && CALLS=5000
rt=no
bpfmem probe 2>/dev/null | grep -q '^PREEMPT_RT: *yes' && rt=yes
echo "# kernel $flavor, PREEMPT_RT $rt, $(grep -c ^processor /proc/cpuinfo) CPUs"

for hook in fentry kprobe; do
for load in none hog; do
	opt=""
	[ $load = hog ] && opt=-H
	[ $hook = kprobe ] && opt="$opt -K"
	# shellcheck disable=SC2086
	rtguard -n $CALLS -w 3 -s 200 $opt >/tmp/g.out 2>/tmp/g.err
	ok $? "rtguard $hook ($load): exits 0"
	sed 's/^/# /' /tmp/g.out /tmp/g.err
	what=deletes
	[ $hook = kprobe ] && what=lookups
	d=$(kv /tmp/g.out $what rtguard recursion)
	r=$(kv /tmp/g.out runs rtguard recursion)
	m=$(kv /tmp/g.out missed rtguard recursion)
	if [ $hook = fentry ]; then
		[ -n "$d" ] && [ "$d" -gt 0 ] && [ "$r" = "$d" ] && [ "$m" = "$d" ]
		ok $? "recursion ($hook, $load): $d outer runs ran ($r), each inner run skipped and counted ($m)"
	else
		# a kprobe inside the map operation of its own task's syscall
		[ -n "$d" ] && [ "$d" -gt 0 ] && [ "$r" = 0 ] && [ "$m" = "$d" ]
		ok $? "recursion ($hook, $load): $d syscall lookups, each kprobe run inside them skipped and counted ($m, ran $r)"
	fi
	e=$(kv /tmp/g.out expected rtguard guard)
	r=$(kv /tmp/g.out runs rtguard guard)
	m=$(kv /tmp/g.out missed rtguard guard)
	c=$(kv /tmp/g.out corrupt rtguard guard)
	h=$(kv /tmp/g.out lookups rtguard guard)
	[ "$c" = 0 ]; ok $? "per-CPU scratch ($hook, $load): no two runs interleaved on a CPU (corrupt $c)"
	[ -n "$e" ] && [ $((r + m)) = "$e" ]; ok $? "every getppid ($hook, $load) ran or was counted missed ($r + $m = $e)"
	hogtxt=""
	[ $load = hog ] && hogtxt=" and a CPU hog"
	[ "$m" = 0 ]
	rc=$?
	if [ $hook = fentry ]; then
		ok $rc "no run missed ($hook, $load: 3 tasks$hogtxt on CPU 0, $m missed)"
	else
		ok $rc "no run missed ($hook, $load: 3 tasks, a task in BPF syscalls$hogtxt on CPU 0, $m missed)"
		[ "${h:-0}" -gt 0 ]; ok $? "the BPF syscall task ran meanwhile ($h lookups)"
	fi
done
done
done_testing
