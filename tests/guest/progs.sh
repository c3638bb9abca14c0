# SPDX-License-Identifier: GPL-2.0
# bpfmem progs: a program run a known number of times (progrun, BPF_PROG_TEST_RUN
# with repeat) while bpfmem progs holds BPF_ENABLE_STATS: the runs summed over the
# intervals are exactly those, with run time, the map it uses and that map's memory,
# and its owner (also under the exporter unit's capabilities, and from /proc); bad
# arguments get one error line and a non-zero exit.
# usage: progs.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
RUNS=5000
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

ERR_TOOL=progs
err_case "bad -s" "invalid sort" bpfmem progs -s bogus
err_case "bad -i" "invalid" bpfmem progs -i abc
err_case "operand" "" bpfmem progs extra
err_case "-d with -n" "exclusive" bpfmem progs -d 1 -n 1
err_case "unknown --id" "no BPF program with id" bpfmem progs --id 4000000 -n 1

progrun -n $RUNS -m 70 >/tmp/pr.out 2>&1 &
ppid=$!
wait_for '^progrun ' /tmp/pr.out $ppid
pid=$(kv /tmp/pr.out prog_id progrun) mid=$(kv /tmp/pr.out map_id progrun)
[ -n "$pid" ] && [ -n "$mid" ]; ok $? "progrun loaded program $pid using map $mid"

bpfmem progs -j -i 0.5 --id "$pid" >/tmp/pj.json 2>/tmp/pj.err &
bp=$!
sleep 1.2
kill -USR1 $ppid
wait_for "^ran $RUNS" /tmp/pr.out $ppid
sleep 1.2
kill -INT $bp
wait $bp
rc=$?
sed 's/^/#   /' /tmp/pj.err
head -c 600 /tmp/pj.json | sed 's/^/#   /'
echo
[ $rc = 0 ]; ok $? "bpfmem progs -j exits 0 on SIGINT (got $rc)"
flowgen json /tmp/pj.json; ok $? "every line is strict JSON"
# sum the runs of program $pid over the intervals
sum() {	grep -o "{\"id\":$pid,[^]]*" /tmp/pj.json | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" |
	awk '{ s += $1 } END { print s + 0 }'; }
runs=$(sum runs) rt=$(sum run_time_ns)
n=$(grep -c '"type":"interval"' /tmp/pj.json)
[ "$runs" = $RUNS ]; ok $? "runs over $n intervals: $runs = $RUNS test runs"
[ "$rt" -gt 0 ]; ok $? "run time over the intervals: $rt ns"
grep -q "{\"id\":$pid,\"type\":\"sched_cls\",\"name\":\"progrun\"" /tmp/pj.json
ok $? "program $pid reported as sched_cls progrun"
grep -o "{\"id\":$pid,[^}]*" /tmp/pj.json | tail -n1 >/tmp/pj.last
grep -q "\"map_ids\":\[[0-9,]*\b$mid\b" /tmp/pj.last && grep -q '"map_memlock":[1-9]' /tmp/pj.last
ok $? "its map $mid listed, with memlock ($(grep -o '"map_memlock":[0-9]*' /tmp/pj.last))"
# a program using 70 maps (more than the verifier takes at load: bound afterwards):
# every map id listed, map_memlock the sum of all 70
many=$(kv /tmp/pr.out prog_id manymaps) mml=$(kv /tmp/pr.out memlock manymaps)
bpfmem progs -j -i 0.3 -n 1 --id "$many" >/tmp/pm.json 2>/tmp/pm.err
rc=$?
sed 's/^/#   /' /tmp/pm.err
nids=$(grep -o "{\"id\":$many,[^}]*" /tmp/pm.json | tail -n1 | sed -n 's/.*"map_ids":\[\([0-9,]*\)\].*/\1/p' |
	tr , '\n' | grep -c .)
gml=$(grep -o "{\"id\":$many,[^}]*" /tmp/pm.json | tail -n1 | sed -n 's/.*"map_memlock":\([0-9]*\).*/\1/p')
[ $rc = 0 ] && [ -n "$many" ] && [ "$nids" = 70 ] && [ -n "$mml" ] && [ "$gml" = "$mml" ]
ok $? "program $many with 70 maps: $nids map ids listed, map_memlock $gml = $mml (exit $rc)"
if bpfmem probe -j 2>/dev/null | grep -q '"series":true'; then
	grep -q '"map_cached_bytes":[0-9]' /tmp/pj.last
	ok $? "allocator cached bytes of its map ($(grep -o '"map_cached_bytes":[0-9a-z]*' /tmp/pj.last))"
else
	skip "allocator cached bytes" "kernel without the bpfmem series"
fi

# text mode: the program's row, then Ctrl-C before the first interval ends still prints
bpfmem progs -i 30 >/tmp/pt.txt 2>&1 &
bp=$!
sleep 1
kill -USR1 $ppid
sleep 1
kill -INT $bp
wait $bp
rc=$?
sed 's/^/#   /' /tmp/pt.txt | head -n 12
[ $rc = 0 ] && awk -v id=$pid -v r=$RUNS '$1 == id && $3 == "progrun" && $4 == r { f = 1 } END { exit !f }' /tmp/pt.txt
ok $? "text: Ctrl-C prints the interval so far, program $pid with its $RUNS runs (exit $rc)"
# no vmlinux BTF (hidden by a tmpfs) and uid 65534 with CAP_SYS_ADMIN only: progs
# needs neither BTF nor uid 0; without CAP_SYS_ADMIN one line naming it
mount -t tmpfs none /sys/kernel/btf
bpfmem progs -j -i 0.3 -n 1 --id "$pid" >/tmp/pn.json 2>/tmp/pn.err
rc=$?
umount /sys/kernel/btf
sed 's/^/#   /' /tmp/pn.err
[ $rc = 0 ] && grep -q "{\"id\":$pid,\"type\":\"sched_cls\",\"name\":\"progrun\"" /tmp/pn.json &&
	grep -q "\"map_ids\":\[[0-9,]*\b$mid\b" /tmp/pn.json
ok $? "no kernel BTF: progs runs (exit $rc), program $pid and its map listed"
capuser 65534 sys_admin bpfmem progs -j -i 0.3 -n 1 --id "$pid" >/tmp/pc.json 2>/tmp/pc.err
rc=$?
sed 's/^/#   /' /tmp/pc.err
[ $rc = 0 ] && grep -q "{\"id\":$pid,\"type\":\"sched_cls\"" /tmp/pc.json &&
	grep -q '"stats_enabled":true' /tmp/pc.json
ok $? "uid 65534 with CAP_SYS_ADMIN: progs runs with run-time stats (exit $rc)"
ERR_TOOL=progs
err_case "root without CAP_SYS_ADMIN" "needs CAP_SYS_ADMIN" dropcap bpfmem progs -n 1

# owners: progrun (root, every capability) holds its program; the task_file iterator
# finds it with all capabilities and under exactly bpfmem-exporter.service's (dropcap
# -u), where /proc/PID/fd (BPFMEM_OWNERS=proc) cannot
own="\"owners\":\[{\"pid\":$ppid,\"comm\":\"progrun\"}\]"
tail -n 1 /tmp/pj.json | grep -q "$own" &&
	grep -q '"owners_source":"iterator"' /tmp/pj.json
ok $? "its owner: pid $ppid (progrun), from the iterator"
dropcap -u bpfmem progs -j -i 0.3 -n 1 --id "$pid" >/tmp/pu.json 2>/tmp/pu.err
rc=$?
sed 's/^/#   /' /tmp/pu.err
[ $rc = 0 ] && grep -q '"owners_source":"iterator"' /tmp/pu.json && grep -q "$own" /tmp/pu.json
ok $? "the unit's capabilities: owner pid $ppid (progrun) from the iterator (exit $rc)"
BPFMEM_OWNERS=proc bpfmem progs -j -i 0.3 -n 1 --id "$pid" >/tmp/pp.json 2>/tmp/pp.err
rc=$?
[ $rc = 0 ] && grep -q '"owners_source":"proc"' /tmp/pp.json && grep -q "$own" /tmp/pp.json
ok $? "BPFMEM_OWNERS=proc: owner pid $ppid (progrun) from /proc/PID/fd (exit $rc)"
BPFMEM_OWNERS=proc dropcap -u bpfmem progs -j -i 0.3 -n 1 --id "$pid" >/tmp/pp.json 2>/tmp/pp.err
rc=$?
[ $rc = 0 ] && grep -q '"owners_source":"proc"' /tmp/pp.json && grep -q '"owners":\[\]' /tmp/pp.json
ok $? "BPFMEM_OWNERS=proc under the unit's capabilities: the holder is not seen (exit $rc)"

kill $ppid
wait $ppid
done_testing
