# SPDX-License-Identifier: GPL-2.0
# bpfmem syscalls in the guest: exact counts against syscall-workload in every hook
# mode, errno filters, per-process mode, intervals, churn (no in-flight leaks), map full,
# side by side with libbpf-tools syscount, bad inputs.
# usage: syscalls.sh FLAVOR (base|rt|debug)
. /tests/lib.sh
flavor=${1:-base}
T=/tmp/sc
mkdir -p $T
churn=2000
case "$flavor" in debug|deb*|distro*) churn=500 ;; esac	# as flows.sh: scaled down

# traced NAME "TRACER ARGS" "WORKLOAD ARGS": workload waits, tracer attaches with -p,
# workload runs, tracer gets SIGINT. Output in $T/NAME, exit status in $T/NAME.rc.
traced() {
	local name=$1 targs=$2 wargs=$3 wpid tpid
	syscall-workload -s $wargs >$T/$name.wl 2>&1 &
	wpid=$!
	wait_for '^pid ' $T/$name.wl $wpid
	bpfmem syscalls -p $wpid $targs >$T/$name 2>$T/$name.err &
	tpid=$!
	wait_for Tracing $T/$name.err $tpid
	kill -USR1 $wpid
	wait $wpid
	kill -INT $tpid
	wait $tpid
	echo $? >$T/$name.rc
	sed 's/^/#   /' $T/$name.err $T/$name
}

col() {	# col FILE ROWNAME COLUMN: a column of a text row (empty if no such row)
	awk -v r="$2" -v c="$3" '$1 == r { print $c; exit }' "$1"
}

rows() {	# rows FILE: the table rows of all intervals
	awk '/^(SYSCALL|PID) / { on = 1; next } /^(total:|\(|$)/ { on = 0 } on { print }' "$1"
}

expect() {	# expect DESC ACTUAL EXPECTED
	[ "$2" = "$3" ]
	ok $? "$1 (got '$2', want '$3')"
}

for hook in fentry kprobe tp; do
	traced $hook "--hook $hook -L -T 0" ""
	expect "$hook: exits 0 on SIGINT" "$(cat $T/$hook.rc)" 0
	grep -q "hook $( [ $hook = tp ] && echo tracepoint || echo $hook)" $T/$hook.err
	ok $? "$hook: the requested hook is used"
	expect "$hook: getppid count" "$(col $T/$hook getppid 2)" 1000
	expect "$hook: getppid errors" "$(col $T/$hook getppid 3)" 0
	expect "$hook: openat count" "$(col $T/$hook openat 2)" 500
	expect "$hook: openat errors (ENOENT)" "$(col $T/$hook openat 3)" 500
	expect "$hook: nanosleep count" "$(col $T/$hook nanosleep 2)" 20
	avg=$(col $T/$hook nanosleep 5)
	awk -v a="$avg" 'BEGIN { exit !(a + 0 >= 5000) }'
	ok $? "$hook: nanosleep average latency >= 5 ms (got ${avg} us)"
	expect "$hook: exit_group counted at entry" "$(col $T/$hook exit_group 2)" 1
	! grep -q dropped $T/$hook
	ok $? "$hook: nothing dropped"

	traced $hook-e "--hook $hook -e ENOENT -T 0" ""
	expect "$hook -e ENOENT: openat" "$(col $T/$hook-e openat 2)" 500
	expect "$hook -e ENOENT: only openat rows" "$(rows $T/$hook-e | awk '{ print $1 }')" openat
	traced $hook-x "--hook $hook -x -T 0" ""
	expect "$hook -x: openat" "$(col $T/$hook-x openat 3)" 500
	expect "$hook -x: no getppid" "$(col $T/$hook-x getppid 2)" ""
done

# JSON, parsed by a strict parser (json-flat): the same numbers
jrow() {	# jrow FLATFILE SYSCALL FIELD
	local i
	i=$(sed -n "s/^\\.rows\\[\\([0-9]*\\)\\]\\.syscall=\"$2\"$/\\1/p" "$1")
	[ -n "$i" ] && sed -n "s/^\\.rows\\[$i\\]\\.$3=//p" "$1"
}
traced json "-j -L -T 0" ""
json-flat <$T/json >$T/json.flat
ok $? "-j: output parses as strict JSON"
expect "-j: one object (final interval)" "$(grep -c . $T/json)" 1
expect "-j: getppid count" "$(jrow $T/json.flat getppid count)" 1000
expect "-j: openat count" "$(jrow $T/json.flat openat count)" 500
expect "-j: openat errors" "$(jrow $T/json.flat openat errors)" 500
expect "-j: nanosleep count" "$(jrow $T/json.flat nanosleep count)" 20
avg=$(jrow $T/json.flat nanosleep lat_ns.avg)
[ -n "$avg" ] && [ "$avg" -ge 5000000 ]; ok $? "-j: nanosleep lat_ns.avg >= 5 ms ($avg)"
expect "-j: final" "$(sed -n 's/^\.final=//p' $T/json.flat)" true
expect "-j: filter.pid" "$(sed -n 's/^\.filter\.pid=//p' $T/json.flat)" "$(sed -n 's/^pid //p' $T/json.wl)"
expect "-j: counts map is not preallocated" "$(sed -n 's/^\.maps\[0\]\.prealloc=//p' $T/json.flat)" false
m=$(sed -n 's/^\.maps\[0\]\.memlock=//p' $T/json.flat)
[ -n "$m" ] && [ "$m" -gt 0 ]; ok $? "-j: counts map memlock reported ($m)"
traced jsoni "-j -i 0.2 -x -P -H" "-n 40 -t 10"
json-flat -q <$T/jsoni
ok $? "-j -i 0.2 -x -P -H: every interval line parses ($(grep -c . $T/jsoni) lines)"

# per process
traced proc "-P -T 0" ""
wpid=$(sed -n 's/^pid //p' $T/proc.wl)
n=$(col $T/proc "$wpid" 3)
[ -n "$n" ] && [ "$n" -ge 1521 ] && [ "$n" -le 1530 ]
ok $? "-P: the workload's row counts its syscalls (got '$n', want 1521..1530)"
expect "-P: comm" "$(col $T/proc "$wpid" 2)" syscall-workloa
expect "-P: errors" "$(col $T/proc "$wpid" 4)" 500

# In a container's pid namespace (unshare -p -f --mount-proc): -p takes the pid there,
# -P labels rows with it (bpf_get_ns_current_pid_tgid), and /proc there decides exits
cat >$T/ns.sh <<'NS'
T=/tmp/sc
until_line() {	# until_line PATTERN FILE: 30 s at most
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
for mode in p P; do
	syscall-workload -s >$T/ns$mode.wl 2>&1 &
	w=$!
	until_line '^pid ' $T/ns$mode.wl
	if [ $mode = p ]; then args="-p $w -T 0"; else args="-P -T 0"; fi
	bpfmem syscalls $args >$T/ns$mode 2>$T/ns$mode.err &
	t=$!
	until_line Tracing $T/ns$mode.err
	kill -USR1 $w
	wait $w
	kill -INT $t
	wait $t
	echo "ns$mode nspid $w rc $?"
done
NS
if unshare -p -f --mount-proc true 2>/dev/null; then
	unshare -p -f --mount-proc sh $T/ns.sh >$T/ns.out 2>&1
	sed 's/^/#   /' $T/ns.out $T/nsp.err $T/nsp $T/nsP
	np=$(awk '$1 == "nsp" { print $3 }' $T/ns.out)
	nP=$(awk '$1 == "nsP" { print $3 }' $T/ns.out)
	[ -n "$np" ] && [ "$np" -lt 100 ] && grep -q '^nsp .* rc 0$' $T/ns.out
	ok $? "pid namespace: the workload has a pid of the namespace ($np) and syscalls -p exits 0"
	expect "pid namespace: -p $np counts its getppid calls" "$(col $T/nsp getppid 2)" 1000
	n=$(col $T/nsP "$nP" 3)
	[ -n "$n" ] && [ "$n" -ge 1521 ] && [ "$n" -le 1530 ]
	ok $? "pid namespace: -P labels the workload's row with its pid there, $nP (got '$n', want 1521..1530)"
	expect "pid namespace: -P row's comm" "$(col $T/nsP "$nP" 2)" syscall-workloa
else
	skip "pid namespace: -p and -P" "unshare -p cannot make a pid namespace here"
fi

# -P: a process's rows go when it exits, by the kernel's mark (sched_process_exit, the
# last thread), not by /proc: in a pid namespace whose /proc is not its own (unshare
# without --mount-proc) /proc says nothing, and 20 exited processes' rows stayed
cat >$T/nsx.sh <<'NS'
T=/tmp/sc
bpfmem syscalls -P -j --stats -i 0.5 -T 0 >$T/nsx 2>$T/nsx.err &
t=$!
i=0
while ! grep -q Tracing $T/nsx.err 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	/bin/sh -c 'exit 0'
done
sleep 3
kill -INT $t
wait $t
echo "nsx rc $?"
NS
if unshare -p -f true 2>/dev/null; then
	unshare -p -f sh $T/nsx.sh >$T/nsx.out 2>&1
	sed 's/^/#   /' $T/nsx.out $T/nsx.err
	last=$(grep '"interval":' $T/nsx | tail -n 1 | sed -n 's/.*"counts_elements":\([0-9]*\).*/\1/p')
	pids=$(grep -o '"pid":[0-9]*,"comm"' $T/nsx | sort -u | grep -c .)
	grep -q '^nsx rc 0$' $T/nsx.out; ok $? "pid namespace without its /proc: syscalls -P exits 0"
	[ "$pids" -ge 20 ]; ok $? "pid namespace without its /proc: the 20 processes had rows ($pids pids seen)"
	[ -n "$last" ] && [ "$last" -lt 10 ]
	ok $? "pid namespace without its /proc: their rows removed once they exited (the counts map holds $last at the end, < 10)"
else
	skip "-P exits without /proc" "unshare -p cannot make a pid namespace here"
fi

# intervals: the map holds one interval; the sum over intervals is exact
traced intv "-i 0.2 -L -T 0" "-n 40 -t 10"
sum=$(awk '$1 == "getppid" { s += $2 } END { print s + 0 }' $T/intv)
expect "-i 0.2: getppid summed over intervals" "$sum" 1000
nint=$(grep -c '^total:' $T/intv)
[ "$nint" -ge 2 ]; ok $? "-i 0.2: several intervals printed (got $nint)"

# histogram
traced hist "-H -T 0" ""
grep -A20 '^nanosleep' $T/hist | grep -q '4096 -> 8191 : 20\|8192 -> 16383 : 20\|4096 -> 8191 : [0-9]'
ok $? "-H: nanosleep histogram populated"

# map full: 8 entries, 50 distinct syscalls x 10
traced full "--max-entries 8 -T 0" "-m 10"
dropped=$(sed -n 's/^\([0-9]*\) events dropped (map full)$/\1/p' $T/full)
[ -n "$dropped" ] && [ "$dropped" -gt 0 ]; ok $? "map full: dropped count printed and > 0 ($dropped)"
expect "map full: exits 3 (counts incomplete), as flows does" "$(cat $T/full.rc)" 3
rows=$(rows $T/full)
nrows=$(printf '%s\n' "$rows" | grep -c .)
expect "map full: 8 rows" "$nrows" 8
bad=$(printf '%s\n' "$rows" | awk '$1 != "rt_sigtimedwait" && $2 != 10')
expect "map full: every counted syscall has exactly 10" "$bad" ""
counted=$(printf '%s\n' "$rows" | awk '$1 != "rt_sigtimedwait" { s += $2 } END { print s }')
expect "map full: counted + dropped = 50 x 10 + write + exit_group" $((counted + dropped)) 502

# churn in a cgroup: in-flight entries of dead threads never remain
mkdir -p /sys/fs/cgroup/sctest
bpfmem syscalls -c /sys/fs/cgroup/sctest -L --stats -i 1 -T 0 >$T/churn 2>$T/churn.err &
tpid=$!
wait_for Tracing $T/churn.err $tpid
sh -c "echo \$\$ >/sys/fs/cgroup/sctest/cgroup.procs && exec syscall-workload -f $churn" >/dev/null
sleep 2.5
kill -INT $tpid
wait $tpid
expect "churn: exits 0" $? 0
sed 's/^/#   /' $T/churn.err; grep -E '^(stats|total|getppid|exit_group)' $T/churn | sed 's/^/#   /'
# runs the kernel skipped (PREEMPT_RT: a tracer run preempted on the same CPU) are
# reported as missed; counted + missed must cover the workload, and nothing is invented
missed=$(missed_text $T/churn)
sum=$(awk '$1 == "exit_group" { s += $2 } END { print s + 0 }' $T/churn)
if [ "$missed" = 0 ]; then
	expect "churn: exit_group of every child counted" "$sum" $((churn + 1))
else
	[ "$sum" -le $((churn + 1)) ] && [ $((sum + missed)) -ge $((churn + 1)) ]
	ok $? "churn: exit_group counted ($sum) + reported missed ($missed) covers $((churn + 1))"
fi
sum=$(awk '$1 == "getppid" { s += $2 } END { print s + 0 }' $T/churn)
[ $((sum + missed)) -ge $churn ]; ok $? "churn: getppid of every child counted ($sum + $missed missed >= $churn)"
# the kernel deletes a thread's in-flight entry at its exit; one left by a dead thread
# means that exit's run was missed (PREEMPT_RT): the tool reports and removes it, so
# dead entries never exceed the reported misses, and none remains at the end
last=$(grep '^stats:' $T/churn | tail -n1)
set -- $(echo "$last" | sed -n 's/.*inflight elements \([0-9]*\) (dead threads \([0-9]*\)).*/\1 \2/p')
[ -n "${1:-}" ] && [ "$1" = "$2" ]
ok $? "churn: in-flight map empty after the churn, but for dead entries removed now: $last"
dead=$(sed -n 's/.*(dead threads \([0-9]*\)).*/\1/p' $T/churn | awk '{ s += $1 } END { print s + 0 }')
[ "$dead" -le "$missed" ]
ok $? "churn: in-flight entries of dead threads ($dead) only where runs were missed ($missed)"
rmdir /sys/fs/cgroup/sctest

# -c includes descendant cgroups (like libbpf-tools): a process in a child cgroup of
# the traced one is counted exactly; a tracer on a sibling cgroup sees none of it
CGP=/sys/fs/cgroup/scparent CGS=/sys/fs/cgroup/scsibling
mkdir -p $CGP/child $CGS
syscall-workload -s >$T/cgchild.wl 2>&1 &
wpid=$!
wait_for '^pid ' $T/cgchild.wl $wpid
echo $wpid >$CGP/child/cgroup.procs
ok $? "workload $wpid moved into the child cgroup scparent/child"
bpfmem syscalls -c $CGP -T 0 >$T/cgchild 2>$T/cgchild.err &
tpid=$!
bpfmem syscalls -c $CGS -T 0 >$T/cgsib 2>$T/cgsib.err &
spid=$!
wait_for Tracing $T/cgchild.err $tpid
wait_for Tracing $T/cgsib.err $spid
kill -USR1 $wpid
wait $wpid
kill -INT $tpid $spid
wait $tpid
rc=$?
wait $spid
rc2=$?
sed 's/^/#   parent: /' $T/cgchild.err $T/cgchild
sed 's/^/#   sibling: /' $T/cgsib.err
expect "-c parent (no -i/-d): exits 0 on SIGINT" $rc 0
expect "-c sibling (no -i/-d): exits 0 on SIGINT" $rc2 0
expect "-c parent: getppid of the process in the child cgroup" "$(col $T/cgchild getppid 2)" 1000
expect "-c parent: openat of the process in the child cgroup" "$(col $T/cgchild openat 2)" 500
expect "-c parent: nanosleep of the process in the child cgroup" "$(col $T/cgchild nanosleep 2)" 20
expect "-c sibling: none of its getppid" "$(col $T/cgsib getppid 2)" ""
rmdir $CGP/child $CGP $CGS

# churn system-wide: in-flight near zero afterwards (only threads blocked in syscalls)
bpfmem syscalls -L --stats -i 1 -T 3 >$T/churn2 2>$T/churn2.err &
tpid=$!
wait_for Tracing $T/churn2.err $tpid
syscall-workload -f $churn >/dev/null
sleep 2.5
kill -INT $tpid
wait $tpid
last=$(grep '^stats:' $T/churn2 | tail -n1)
echo "# $last"
n=$(echo "$last" | sed -n 's/.*inflight elements \([0-9]*\) (dead threads \([0-9]*\)).*/\1 \2/p')
set -- $n
m2=$(missed_text $T/churn2)
[ -n "$1" ] && [ $(($1 - $2)) -le 10 ] && [ "$2" -le "$m2" ]
ok $? "churn system-wide: in-flight elements near zero ($1), dead ($2) only where runs were missed ($m2)"

# side by side with libbpf-tools syscount
if [ -x /usr/bin/syscount ]; then
	syscall-workload -s >$T/side.wl 2>&1 &
	wpid=$!
	wait_for '^pid ' $T/side.wl $wpid
	bpfmem syscalls -p $wpid -T 0 >$T/side 2>$T/side.err &
	tpid=$!
	syscount -p $wpid -T 30 >$T/side.sc 2>&1 &
	spid=$!
	wait_for Tracing $T/side.err $tpid
	wait_for 'Ctrl' $T/side.sc $spid
	kill -USR1 $wpid
	wait $wpid
	kill -INT $tpid $spid
	wait $tpid
	wait $spid
	sed 's/^/#   syscount: /' $T/side.sc
	for s in getppid openat nanosleep; do
		a=$(col $T/side $s 2)
		b=$(col $T/side.sc $s 2)
		[ -n "$a" ] && [ "$a" = "$b" ]
		ok $? "side by side: $s bpfmem $a = syscount $b"
	done
else
	skip "side by side with syscount" "not in the initramfs (--add /usr/sbin/syscount)"
fi

# bad inputs: one clear line, non-zero exit
bad() {	# bad DESC ARGS...
	local desc=$1 rc
	shift
	bpfmem syscalls "$@" >$T/bad.out 2>$T/bad.err
	rc=$?
	[ $rc != 0 ] && [ "$(wc -l <$T/bad.err)" = 1 ] && grep -q '^bpfmem syscalls: ' $T/bad.err
	ok $? "bad input, $desc: rc $rc, '$(cat $T/bad.err)'"
}
bad "nonexistent PID" -p 999999 -d 1
bad "bad PID" -p abc
bad "nonexistent cgroup" -c /sys/fs/cgroup/nope -d 1
bad "unknown errno" -e EFOO
bad "bad interval" -i 0
bad "bad duration" -d x
bad "bad hook" --hook nope
bad "bad --max-entries" --max-entries 0
bad "bad -T" -T -1
bad "extra argument" -d 1 foo
bad "-p with -c" -p 1 -c /sys/fs/cgroup
bad "hex PID" -p 0x1 -d 1
bad "PID with a sign" -p +1 -d 1
# numbers are decimal: -p 0PID is PID (strtol base 0 read it as octal)
bpfmem syscalls -p 0$$ -d 0.5 -j >$T/p0 2>$T/p0.err
rc=$?
json-flat <$T/p0 >$T/p0.flat 2>&1
expect "-p 0$$: decimal, traces pid $$ (rc $rc, $(head -c 200 $T/p0.err))" \
	"$(sed -n 's/^\.filter\.pid=//p' $T/p0.flat)" $$
mount -t tmpfs none /sys/kernel/btf
bad "no BTF" -d 1
umount /sys/kernel/btf
syscall-workload -u 65534 bpfmem syscalls -d 1 >$T/bad.out 2>$T/bad.err
rc=$?
[ $rc != 0 ] && [ "$(wc -l <$T/bad.err)" = 1 ] && grep -q 'privilege' $T/bad.err
ok $? "no privilege: rc $rc, '$(cat $T/bad.err)'"

# the in-flight map (an entry per thread inside a syscall) is sized from the threads at
# start: with 4500 more threads, twice the threads of /proc/loadavg (over 8192)
syscall-workload -T 4500 >$T/thr 2>&1 &
tp=$!
wait_for '^threads' $T/thr $tp
thr=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
bpfmem syscalls -d 0.3 -j >$T/thr.json 2>$T/thr.err
rc=$?
kill $tp
wait $tp 2>/dev/null
sed 's/^/# /' $T/thr.err
got=$(grep -o '"name":"inflight","id":[0-9]*,"max_entries":[0-9]*' $T/thr.json | tail -n1 |
	sed 's/.*://')
[ $rc = 0 ] && [ -n "$got" ] && [ "$got" -gt 8192 ] && [ "$got" -ge $((2 * thr - 200)) ] &&
	[ "$got" -le $((2 * thr + 200)) ]
ok $? "in-flight map sized from $thr threads: max_entries $got (twice, not 8192; exit $rc)"

bpfmem syscalls -l >$T/list
expect "-l lists getppid as 110" "$(awk '$2 == "getppid" { print $1 }' $T/list)" 110
done_testing
