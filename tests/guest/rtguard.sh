# SPDX-License-Identifier: GPL-2.0
# The recursion guard of fentry programs (workload rtguard, tests/bpf/rtguard.bpf.c):
# real recursion is still skipped and counted (a program that deletes from a hash
# map while attached to htab_map_delete_elem); two runs of one program never
# interleave on a CPU (a per-CPU scratch slot is never found overwritten); every
# call either ran or was counted as missed; and, with three tasks and a CPU-bound
# one sharing CPU 0, no run is missed: on PREEMPT_RT series patch 19 makes a run
# that finds its program busy on the CPU wait for the preempted holder instead of
# being skipped (without it, tasks preempted inside the program make the others
# miss); on base and debug (voluntary preemption) programs are never preempted.
# The same for kprobe programs (-K), guarded by bpf_prog_active: a kprobe inside its
# own task's BPF syscall map operation is skipped; with a fourth task on CPU 0 making
# BPF syscalls all along, none is missed (on PREEMPT_RT series patch 1: a program may
# run while another task is preempted inside a syscall's map operation).
# -M: the program (on pid_vnr) is hit from two contexts, getsid() in plain task
# context and fcntl(F_GETOWN) under an rwlock_t, where patch 19 cannot wait: on
# PREEMPT_RT without non-preemptible runs (kernel.bpf_rt_nonpreempt=0) runs are
# skipped while a task is preempted inside the program (checked: the case shows the
# problem); with them (series patch 20; switch 1, the default, and rtguard's fentry
# programs ask with BPF_F_RT_NONPREEMPT) a program that qualifies (fdinfo
# rt_nonpreempt 1) runs with preemption disabled and none is missed.
# -U: the program runs in the softirq of loopback UDP sends (bh disabled): a
# coverage case for non-preemptible runs there (it does not miss even without them,
# bh sections being serialized per CPU on PREEMPT_RT), with the hog only.
# The plain fentry cases run on PREEMPT_RT both ways.
# usage: rtguard.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
CALLS=20000
[ "$flavor" = debug ] && CALLS=5000
rt=no
bpfmem probe 2>/dev/null | grep -q '^PREEMPT_RT: *yes' && rt=yes
echo "# kernel $flavor, PREEMPT_RT $rt, $(grep -c ^processor /proc/cpuinfo) CPUs"

NP=/proc/sys/kernel/bpf_rt_nonpreempt
# series v17: 1 by default, non-preemptible runs for programs that ask
if [ $rt = yes ]; then
	[ "$(cat $NP)" = 1 ]; ok $? "kernel.bpf_rt_nonpreempt is 1 by default (on request): $(cat $NP)"
fi
UCALLS=5000
[ "$flavor" = debug ] && UCALLS=2000
# cases: HOOK MODE LOAD. MODE np: kernel.bpf_rt_nonpreempt=1 (the default: programs
# that ask and qualify run non-preemptible on PREEMPT_RT; rtguard's fentry programs
# ask); wait: 0 (patch 19's run lock only).
# Other kernels have no such switch: one mode.
cases="fentry:wait:none fentry:wait:hog udp:np:hog mixed:np:none mixed:np:hog"
cases="$cases kprobe:np:none kprobe:np:hog"
[ $rt = yes ] && cases="$cases fentry:np:hog mixed:wait:hog"
for c in $cases; do
	hook=${c%%:*}
	mode=${c#*:}
	load=${mode#*:}
	mode=${mode%:*}
	opt=""
	n=$CALLS
	[ $load = hog ] && opt=-H
	[ $hook = kprobe ] && opt="$opt -K"
	[ $hook = udp ] && opt="$opt -U" && n=$UCALLS
	[ $hook = mixed ] && opt="$opt -M"
	if [ $rt = yes ]; then
		np=1
		[ $mode = wait ] && np=0
		echo $np >$NP
	fi
	# shellcheck disable=SC2086
	rtguard -n $n -w 3 -s 200 $opt >/tmp/g.out 2>/tmp/g.err
	ok $? "rtguard $hook ($mode, $load): exits 0"
	sed 's/^/# /' /tmp/g.out /tmp/g.err
	what=deletes
	[ $hook = kprobe ] && what=lookups
	d=$(kv /tmp/g.out $what rtguard recursion)
	r=$(kv /tmp/g.out runs rtguard recursion)
	m=$(kv /tmp/g.out missed rtguard recursion)
	if [ $hook != kprobe ]; then
		[ -n "$d" ] && [ "$d" -gt 0 ] && [ "$r" = "$d" ] && [ "$m" = "$d" ]
		ok $? "recursion ($hook, $mode, $load): $d outer runs ran ($r), each inner run skipped and counted ($m)"
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
	p=$(kv /tmp/g.out nonpreempt rtguard guard)
	[ "$c" = 0 ]; ok $? "per-CPU scratch ($hook, $mode, $load): no two runs interleaved on a CPU (corrupt $c)"
	[ -n "$e" ] && [ $((r + m)) = "$e" ]; ok $? "every call ($hook, $mode, $load) ran or was counted missed ($r + $m = $e)"
	want=-1
	if [ $rt = yes ]; then
		want=$np
		[ $hook = kprobe ] && want=0	# not a trampoline program
	fi
	[ "$p" = "$want" ]; ok $? "the guard program's fdinfo rt_nonpreempt ($hook, $mode): $p, expected $want (-1: none)"
	hogtxt=""
	[ $load = hog ] && hogtxt=" and a CPU hog"
	where="3 tasks$hogtxt on CPU 0"
	[ $hook = udp ] && where="3 tasks$hogtxt on CPU 0, the program in the softirq of their sends"
	[ $hook = mixed ] && where="3 tasks$hogtxt on CPU 0, the program hit with and without an rwlock_t held"
	[ $hook = kprobe ] && where="3 tasks, a task in BPF syscalls$hogtxt on CPU 0"
	if [ $hook = mixed ] && [ $mode = wait ]; then
		# a run under a lock is skipped while another task is preempted inside
		# the program: what non-preemptible runs remove
		[ "$m" -gt 0 ]; ok $? "without non-preemptible runs runs are missed ($where: $m of $e)"
	else
		[ "$m" = 0 ]; ok $? "no run missed ($hook, $mode, $load: $where, $m missed)"
	fi
	[ $hook = kprobe ] && { [ "${h:-0}" -gt 0 ]; ok $? "the BPF syscall task ran meanwhile ($h lookups)"; }
done

# -T: the task in BPF syscalls on CPU 0 updates a task storage map, holding the CPU's
# task storage busy count while it may be preempted (PREEMPT_RT: migration disabled
# only), and each kprobe run creates its task's storage: a run either is skipped and
# counted (series patch 1 lets none go ahead while the count is raised) or gets its
# storage; a NULL from bpf_task_storage_get(F_CREATE) is a run that went ahead into
# another task's storage operation
rtguard -n $CALLS -w 3 -s 200 -H -T >/tmp/gt.out 2>/tmp/gt.err
ok $? "rtguard -T (kprobe, task storage syscalls, hog): exits 0"
sed 's/^/# /' /tmp/gt.out /tmp/gt.err
e=$(kv /tmp/gt.out expected rtguard guard) r=$(kv /tmp/gt.out runs rtguard guard)
m=$(kv /tmp/gt.out missed rtguard guard) h=$(kv /tmp/gt.out lookups rtguard guard)
tn=$(kv /tmp/gt.out tnull rtguard guard)
[ -n "$e" ] && [ $((r + m)) = "$e" ]; ok $? "-T: every call ran or was counted missed ($r + $m = $e)"
[ "${h:-0}" -gt 0 ]; ok $? "-T: the task storage syscall task ran meanwhile ($h updates)"
tg=$(kv /tmp/gt.out tgot rtguard guard)
[ "$tn" = 0 ] && [ "$tg" = "$r" ]
ok $? "-T: every run that ran got its task storage ($tg of $r), none got NULL from bpf_task_storage_get(F_CREATE) ($tn)"

# which programs qualify (tests/bpf/rtnp.bpf.c: yes_* should, no_* should not, among
# them a may_goto loop and a 1 MiB copy) and which ask (rtnp -f: BPF_F_RT_NONPREEMPT on
# its 16 fentry programs, series v17): on PREEMPT_RT fdinfo rt_nonpreempt 1 for yes_*
# and 0 for no_* with the switch at 2 (every qualifying program, asked or not) and at
# 1 (the default) for programs that ask; 0 for all at 1 without asking and at 0 even
# when asking. Other kernels have no switch: rtnp -f sets no flag there (they would
# refuse it), everything loads and prints no such line (-1).
NPROGS=17
NFENTRY=16
if [ $rt = yes ]; then
	npcases="2:no 1:ask 1:no 0:ask"
else
	npcases="-:no -:ask"
fi
for c in $npcases; do
	v=${c%%:*}
	ask=${c#*:}
	[ $rt = yes ] && echo $v >$NP
	opt=""
	[ $ask = ask ] && opt=-f
	# shellcheck disable=SC2086
	rtnp $opt >/tmp/np.out 2>&1
	ok $? "rtnp${opt:+ $opt} loads its programs (kernel.bpf_rt_nonpreempt $v, $ask)"
	sed 's/^/# /' /tmp/np.out
	a=$(sed -n 's/^rtnp-asked \([0-9]*\)$/\1/p' /tmp/np.out)
	want=0
	[ $rt = yes ] && [ $ask = ask ] && want=$NFENTRY
	[ "$a" = $want ]; ok $? "rtnp${opt:+ $opt}: ${a:-?} programs asked (BPF_F_RT_NONPREEMPT), expected $want"
	bad=$(awk -v rt=$rt -v v=$v -v ask=$ask -v np=$NPROGS '$1 == "rtnp" { n++
		grant = v == 2 || (v == 1 && ask == "ask")
		want = rt == "no" ? -1 : (grant && $2 ~ /^yes_/) ? 1 : 0
		if ($3 != want) printf "%s=%s(want %d) ", $2, $3, want }
		END { if (n != np) printf "programs=%d(want %d)", n, np }' /tmp/np.out)
	[ -z "$bad" ]; ok $? "rt_nonpreempt of each program as its name says (switch $v, $ask) $bad"
done
[ $rt = yes ] && echo 1 >$NP

# Nesting (workload rtnest, tests/bpf/rtnest.bpf.c): outer qualifies and updates a hash
# map from getsid(0); outer_pre does the same but stays preemptible (bpf_loop); inner,
# on htab_map_update_elem, may sleep on PREEMPT_RT (LPM trie: spinlock_t, kmalloc).
# Inside outer's non-preemptible runs inner must be skipped and counted, never run with
# preemption disabled (CONFIG_DEBUG_ATOMIC_SLEEP would splat, which fails the test);
# inside outer_pre's it runs. Other kernels: inner always runs.
rtnest nested 200 >/tmp/nest.out 2>&1
ok $? "rtnest nested loads and runs"
sed 's/^/# /' /tmp/nest.out
set -- $(sed -n 's/^rtnest nested outer_np \(-*[0-9]*\) outer_pre_np \(-*[0-9]*\) inner_np \(-*[0-9]*\) outer_runs \([0-9]*\) outer_pre_runs \([0-9]*\) inner_runs \([0-9]*\) inner_misses \([0-9]*\)$/\1 \2 \3 \4 \5 \6 \7/p' /tmp/nest.out)
if [ $rt = yes ]; then
	[ "${1:-}" = 1 ] && [ "${2:-}" = 0 ] && [ "${3:-}" = 0 ] && [ "${4:-}" = 200 ] && [ "${5:-}" = 200 ] &&
		[ "${6:-}" = 200 ] && [ "${7:-}" = 200 ]
	ok $? "PREEMPT_RT: outer non-preemptible (np ${1:-?}), outer_pre not (${2:-?}), inner not (${3:-?}); 200 runs each (${4:-?}, ${5:-?}); inner ran inside outer_pre (${6:-?}) and was skipped inside outer (${7:-?} counted)"
else
	[ "${4:-}" = 200 ] && [ "${5:-}" = 200 ] && [ "${6:-}" = 400 ] && [ "${7:-}" = 0 ]
	ok $? "outer and outer_pre ran 200 times (${4:-?}, ${5:-?}), inner 400 (${6:-?}), none skipped (${7:-?})"
fi

# Extensions (freplace) run inside the runs of their target: rtnest's tgt calls a
# global subprog that extensions replace, so it must stay preemptible on PREEMPT_RT
# (rt_nonpreempt 0), and an extension that may sleep there (LPM trie update) loads,
# attaches and runs without a splat (CONFIG_DEBUG_ATOMIC_SLEEP on rt), as one that
# does not; other kernels print no rt_nonpreempt (-1)
rtnest freplace >/tmp/ext.out 2>&1
ok $? "rtnest freplace loads and runs"
sed 's/^/# /' /tmp/ext.out
set -- $(sed -n 's/^rtnest freplace tgt_np \(-*[0-9]*\) sleepy_load \(-*[0-9]*\) sleepy_runs \([0-9]*\) ok_load \(-*[0-9]*\) ok_runs \([0-9]*\)$/\1 \2 \3 \4 \5/p' /tmp/ext.out)
want=-1
[ $rt = yes ] && want=0
[ "${1:-}" = $want ] && [ "${2:-}" = 0 ] && [ "${3:-}" = 1 ] && [ "${4:-}" = 0 ] && [ "${5:-}" = 1 ]
ok $? "a program with a replaceable global subprog is preemptible (np ${1:-?}, want $want); both extensions load (${2:-?}, ${4:-?}) and run (${3:-?}, ${5:-?})"
[ $rt = yes ] && echo 1 >$NP

# A run in a task blocked on an rtmutex (current->pi_blocked_on set) must not wait
# for its program's run lock on PREEMPT_RT: a second rtmutex wait would overwrite
# the task's waiter (series v18 patch 12). Workload rtpi: two SCHED_FIFO tasks on
# CPU 0 block on PI futexes under a spinning fentry program on rt_mutex_schedule();
# the higher one preempts the lower inside its run now and then, and its own run
# must then be skipped and counted. v17 waited on the lock (0 missed, and 42 of 1811
# runs found pi_blocked_on cleared by that wait: the task's waiter overwritten).
if [ $rt = yes ]; then
	rtpi -d 3 >/tmp/rtpi.out 2>&1
	ok $? "rtpi: every PI futex try timed out, no hang"
	sed 's/^/# /' /tmp/rtpi.out
	runs=$(kv /tmp/rtpi.out runs rtpi) blocked=$(kv /tmp/rtpi.out blocked rtpi)
	misses=$(kv /tmp/rtpi.out misses rtpi)
	[ "${runs:-0}" -gt 0 ] && [ "$blocked" = "$runs" ]
	ok $? "rtpi: each of the $runs runs on rt_mutex_schedule() found its task's waiter queued ($blocked; v17: a run that had waited for the run lock found pi_blocked_on cleared by that wait)"
	# the safety check is the one above (a run that waited would have cleared the
	# waiter); a skip needs the higher task to preempt the lower inside a run, which
	# the scheduler does not promise in 3 s (1786 runs gave 47 skips once, 750 runs none)
	if [ "${misses:-0}" -gt 0 ]; then
		ok 0 "rtpi: runs of a blocked task that found the program busy were skipped, not waited for ($misses missed)"
	else
		skip "rtpi: a blocked task's run skipped" "no run found the program busy this time (timing: $runs runs)"
	fi
else
	skip "rtpi: a blocked task's runs skip the run lock" "no run lock without PREEMPT_RT"
fi
done_testing
