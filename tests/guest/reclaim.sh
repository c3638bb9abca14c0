# SPDX-License-Identifier: GPL-2.0
# Syscall updates of BPF_F_NO_PREALLOC hash and LRU hash maps in a memory cgroup at its
# limit (series patches 2 and 11): workload reclaimfill fills a map from user space
# while a sibling task on the same CPU calls getpgid(MAGIC) and a kprobe counts them.
#  - memory.high just above the cgroup's usage: reclaim, no failed update (on
#    PREEMPT_RT the refills charged by the irq_work kthread are not reclaimed: the
#    memory.high events check is skipped there);
#  - memory.max just above it: updates fail with ENOMEM (counted in alloc_failures),
#    never the OOM killer, and the map stays consistent;
#  - in both, the reservation that may sleep in reclaim is taken before
#    bpf_prog_active is raised: the kprobe misses none of the sibling's calls
#    (on PREEMPT_RT a task preempted inside the update still makes the kprobe skip:
#    there counted + missed must equal the calls);
#  - no memcg reclaim of the fill runs with migration disabled by the map code
#    (series v17 patch 8: a task sleeping pinned holds up CPU hot-unplug), and CPU 1
#    goes offline during a fill at memory.max on it in bounded time (-o).
# usage: reclaim.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
n=40000
[ "$flavor" = debug ] && n=15000
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

for t in hash lru; do
	for m in high max; do
		out=/tmp/rf.$t.$m
		reclaimfill -n $n -t $t -m $m >$out 2>&1
		ok $? "$t $m: reclaimfill exits 0"
		sed 's/^/#   /' $out
		v() { kv $out "$1" reclaimfill $t $m; }
		okn=$(v ok) enomem=$(v enomem) other=$(v other) el=$(v elements) keys=$(v keys)
		bad=$(v bad) calls=$(v calls) counted=$(v counted) misses=$(v misses)
		evhigh=$(v ev_high) evmax=$(v ev_max) oom=$(v oom_kill) af=$(v alloc_failures)
		limit=$(v limit) peak=$(v peak)
		if [ $m = high ]; then
			[ "$okn" = $n ] && [ "$enomem" = 0 ] && [ "$other" = 0 ]
			ok $? "$t high: all $n updates succeed under memory.high ($okn ok, $enomem ENOMEM, $other other)"
			[ "${peak:-0}" -gt "${limit:-0}" ]
			ok $? "$t high: the fill went over memory.high (peak $peak > $limit)"
			if [ "$flavor" = rt ]; then
				skip "$t high: memory.high reclaim ran ($evhigh high events)" \
					"PREEMPT_RT: refills run in the irq_work kthread, whose over-high charges are never reclaimed (upstream memcg: high reclaim runs on return to user space)"
			else
				[ "${evhigh:-0}" -gt 0 ]
				ok $? "$t high: memory.high reclaim ran ($evhigh high events)"
			fi
		else
			[ "${enomem:-0}" -gt 0 ] && [ "$other" = 0 ] && [ "${okn:-0}" -gt 0 ]
			ok $? "$t max: updates fail with ENOMEM at memory.max ($okn ok, $enomem ENOMEM, $other other)"
			[ "$oom" = 0 ]
			ok $? "$t max: no OOM kill in the cgroup ($oom)"
			[ "${af:-0}" -ge "${enomem:-1}" ]
			ok $? "$t max: fdinfo alloc_failures ($af) counts the failed updates ($enomem)"
		fi
		[ "$el" = "$okn" ] && [ "$keys" = "$okn" ] && [ "$bad" = 0 ]
		ok $? "$t $m: map consistent: $okn written, fdinfo elements $el, iteration $keys, $bad not read back"
		[ "${calls:-0}" -gt 0 ]
		ok $? "$t $m: the sibling on the same CPU made $calls calls during the fill"
		rc=$(v reclaims) rcp=$(v reclaims_pinned)
		if [ $m = max ]; then
			[ "${rc:-0}" -gt 0 ]
			ok $? "$t max: the fill entered memcg reclaim ($rc times)"
		fi
		[ "$rcp" = 0 ]
		ok $? "$t $m: no reclaim with migration disabled by the update ($rcp of $rc pinned)"
		if [ "$flavor" = rt ]; then
			[ $((counted + misses)) = "$calls" ]
			ok $? "$t $m: counted $counted + missed $misses = $calls calls (PREEMPT_RT: preempted updates make the kprobe skip)"
		else
			[ "$counted" = "$calls" ] && [ "$misses" = 0 ]
			ok $? "$t $m: the kprobe counted all $calls calls ($counted, $misses missed)"
		fi
	done
done
# CPU hot-unplug while a fill sleeps in reclaim on the CPU that goes away
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	for t in hash lru; do
		out=/tmp/rf.$t.off
		reclaimfill -n $n -t $t -m max -o >$out 2>&1
		ok $? "$t max -o: reclaimfill exits 0"
		sed 's/^/#   /' $out
		off=$(kv $out offline_ms reclaimfill $t max)
		rcp=$(kv $out reclaims_pinned reclaimfill $t max)
		[ "${off:--2}" -ge 0 ] && [ "$off" -lt 10000 ]
		ok $? "$t max: CPU 1 went offline during the fill in bounded time ($off ms, < 10000; $rcp reclaims pinned)"
		[ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ]
		ok $? "$t max: CPU 1 is back online"
	done
else
	skip "CPU 1 offline during a fill" "no CPU 1 that can go offline"
fi
done_testing
