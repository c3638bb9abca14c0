# SPDX-License-Identifier: GPL-2.0
# RT demo (guest, rt kernel): tracing on PREEMPT_RT with sparse non-preallocated maps.
#   sh /examples/rt-demo.sh [SECONDS]     (./run demo --rt; needs cyclictest --add'ed)
# 1. the kernel is PREEMPT_RT and a kprobe and a fentry program using a
#    BPF_F_NO_PREALLOC hash map load and count (the check the seeds removed);
# 2. cyclictest under a syscall + network load, without tracers (baseline);
# 3. the same with `bpfmem syscalls` and `bpfmem flows` attached (their fentry/fexit
#    programs ask for non-preemptible runs, BPF_F_RT_NONPREEMPT, granted at
#    kernel.bpf_rt_nonpreempt=1, the default);
# 4. an fentry program's runs counted vs expected with tasks sharing a CPU (rtguard);
# 5. the same for a program hit with and without a lock held (pid_vnr from getsid
#    and fcntl(F_GETOWN)), with and without non-preemptible runs (rtguard's program
#    asks for them; kernel.bpf_rt_nonpreempt 0 refuses, 1 grants: series patch 20).
# TCG latencies are emulated time, not real-time figures: compare the runs only.
# Machine-readable lines start with "rtdemo:"; exit status 0 only if all steps worked.
secs=${1:-10}
rc=0
fail() { echo "rtdemo: FAIL $*"; rc=1; }

echo "--- kernel"
bpfmem probe | grep -E 'release|PREEMPT_RT|fentry|series|RT nonpreempt'
bpfmem probe | grep -q '^PREEMPT_RT: *yes' && echo "rtdemo: preempt_rt yes" || fail "kernel is not PREEMPT_RT"
# kernel.bpf_rt_nonpreempt (series patch 20): on_request by default
echo "rtdemo: rt_nonpreempt_mode $(bpfmem probe -j | sed -n 's/.*"rt_nonpreempt_mode":"\([a-z_]*\)".*/\1/p')"
for h in kprobe fentry; do
	if bpfmem probe --selftest --hook $h -n 200 -k 20; then
		echo "rtdemo: selftest $h ok"
	else
		fail "selftest $h"
	fi
done

command -v cyclictest >/dev/null || { fail "cyclictest not in the guest (--add /usr/bin/cyclictest)"; exit 1; }

load_start() {	# syscall + TCP/UDP load in the background until load_stop
	( while [ ! -e /tmp/load.stop ]; do syscall-workload -g 2000 -o 200 -n 0 >/dev/null; done ) &
	LOAD1=$!
	( while [ ! -e /tmp/load.stop ]; do flowgen tcp 127.0.0.1 7001 4 65536 >/dev/null; \
		flowgen udp ::1 7002 100 512 >/dev/null; done ) &
	LOAD2=$!
}
load_stop() {
	touch /tmp/load.stop
	wait $LOAD1 $LOAD2 2>/dev/null
	rm -f /tmp/load.stop
}
cyclic() {	# cyclic NAME : prints "rtdemo: cyclictest NAME min avg max" over all threads
	cyclictest -m -q -t 2 -a -p 80 -i 1000 -D "$secs" >/tmp/cyc.$1 2>&1
	cat /tmp/cyc.$1
	awk -v n="$1" '/^T:/ { for (i = 1; i <= NF; i++) { if ($i == "Min:") mn = (mn == "" || $(i+1) < mn) ? $(i+1) : mn;
		if ($i == "Avg:") { s += $(i+1); c++ } if ($i == "Max:") mx = ($(i+1) > mx) ? $(i+1) : mx;
		if ($i == "C:") cy += $(i+1) } }
		END { if (c) printf "rtdemo: cyclictest %s cycles %d min_us %d avg_us %d max_us %d\n", n, cy, mn, s / c, mx;
		else print "rtdemo: cyclictest " n " no result" }' /tmp/cyc.$1 | tee /tmp/cycsum.$1
}

echo "--- baseline: cyclictest ${secs}s under load, no tracer"
load_start
cyclic baseline
load_stop

echo "--- cyclictest ${secs}s under load, bpfmem syscalls + bpfmem flows attached"
bpfmem syscalls -L -T 0 -d $((secs + 4)) -j >/tmp/sc.json 2>/tmp/sc.err &
SC=$!
bpfmem flows -T 8 -d $((secs + 4)) >/tmp/fl.txt 2>/tmp/fl.err &
FL=$!
sleep 3
load_start
cyclic traced
load_stop
wait $SC; src=$?
wait $FL; frc=$?

for n in baseline traced; do
	grep -q 'cycles [1-9]' /tmp/cycsum.$n || fail "cyclictest $n did not complete"
done

echo "--- bpfmem syscalls (JSON, last interval)"
tail -n 1 /tmp/sc.json | cut -c1-600
[ $src = 0 ] || { cat /tmp/sc.err; fail "bpfmem syscalls exited $src"; }
if grep -q '"syscall":"getppid","count":[1-9]' /tmp/sc.json; then
	echo "rtdemo: syscalls counted getppid"
else
	fail "bpfmem syscalls counted no getppid"
fi
grep -o '"maps":\[[^]]*\]' /tmp/sc.json | tail -n1
# the hash maps (aggregate "counts", per-thread "inflight") must be non-preallocated
for m in counts inflight; do
	if tail -n1 /tmp/sc.json | grep -q "\"name\":\"$m\",[^}]*\"prealloc\":false"; then
		echo "rtdemo: syscalls map $m dynamic (BPF_F_NO_PREALLOC)"
	else
		fail "syscalls map $m is not dynamic"
	fi
done

echo "--- bpfmem flows"
grep -v '^map ' /tmp/fl.txt | tail -n 14
# exit 3 = counts incomplete; on PREEMPT_RT a tracer run preempted on the same CPU makes
# the kernel skip the next run there ("missed"), which is reported, not hidden
if [ $frc = 3 ] && ! grep -v 'events dropped (missed' /tmp/fl.err | grep -q 'events dropped'; then
	echo "rtdemo: flows reports $(sed -n 's/^bpfmem flows: \([0-9]*\) events dropped (missed.*/\1/p' /tmp/fl.err) runs skipped by the kernel (PREEMPT_RT preemption), nothing else dropped"
else
	[ $frc = 0 ] || { cat /tmp/fl.err; fail "bpfmem flows exited $frc"; }
fi
grep -qE 'tcp|TCP' /tmp/fl.txt && echo "rtdemo: flows counted tcp" || fail "bpfmem flows counted no TCP flow"
grep -E '^map ' /tmp/fl.txt
if grep -qE '^map flows .* dynamic' /tmp/fl.txt; then
	echo "rtdemo: flows map flows dynamic (BPF_F_NO_PREALLOC)"
else
	fail "flows map is not dynamic (or its memory line is missing)"
fi
echo "--- events counted vs expected: 3 tasks and a CPU hog on CPU 0, fentry on getppid"
# series patch 19: a run that finds its program busy on the CPU (another task
# preempted inside it) waits instead of being skipped; without it, many are missed
if rtguard -n 20000 -w 3 -H >/tmp/rtg.out; then
	cat /tmp/rtg.out
	awk '$2 == "guard" { for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
		printf "rtdemo: fentry expected %d counted %d missed %d\n", v["expected"], v["runs"], v["missed"] }' /tmp/rtg.out
else
	fail "rtguard"
fi
echo "--- events counted vs expected: the same, fentry hit with and without an rwlock held"
# series patch 20: a program that qualifies and asks (BPF_F_RT_NONPREEMPT, as
# rtguard's does) runs non-preemptible on PREEMPT_RT at kernel.bpf_rt_nonpreempt=1
# (the default); 0 refuses. A run with a lock held cannot wait for a preempted
# holder (patch 19), so without it runs are skipped there while another task is
# preempted inside the program.
np=/proc/sys/kernel/bpf_rt_nonpreempt
for v in 0 1; do
	if [ -w $np ] && echo $v >$np && rtguard -M -n 20000 -w 3 -H >/tmp/rtg.out; then
		cat /tmp/rtg.out
		awk -v v=$v '$2 == "guard" { for (i = 3; i < NF; i += 2) v2[$i] = $(i + 1)
			printf "rtdemo: locked nonpreempt %d expected %d counted %d missed %d\n", v,
			       v2["expected"], v2["runs"], v2["missed"] }' /tmp/rtg.out
	else
		fail "rtguard -M with kernel.bpf_rt_nonpreempt=$v"
	fi
done
[ -w $np ] && echo 1 >$np
echo "--- summary (TCG: emulated time, compare the two runs only)"
cat /tmp/cycsum.baseline /tmp/cycsum.traced
exit $rc
