# SPDX-License-Identifier: GPL-2.0
# Allocation failures injected on purpose (debug kernel: CONFIG_FAILSLAB,
# CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS, CONFIG_DEBUG_KMEMLEAK), gate
# version: user-space updates of BPF_F_NO_PREALLOC hash, per-CPU hash and LRU hash
# (lazy LRU) maps and of a hash map forced dynamic by kernel.bpf_force_dyn_alloc,
# single and batch (mapfill -F: only the updating task gets failures, task-filter),
# with a share of its slab and page allocations failing. Checks:
#  - failures were injected, and every one surfaced: each failed update is an ENOMEM
#    returned to user space, nothing else;
#  - the map is consistent: fdinfo elements = the keys an iteration finds = the updates
#    reported successful, and each of those keys reads back with its value;
#  - after the maps are closed, the allocator registry holds none of theirs and its
#    cached + pending bytes return to the baseline;
#  - a kmemleak scan finds no leak (the harness fails any splat).
# Also bad input to the series' interfaces: out-of-range and malformed writes to
# kernel.bpf_force_dyn_alloc, and the debugfs registry read while maps come and go.
# Program side: an fentry and a kprobe program updating a BPF_F_NO_PREALLOC hash map,
# and BPF_PROG_TEST_RUN churn on every CPU (memshrink),
# while failslab fails a share of the allocator's refills (stack trace filter on
# alloc_bulk, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): every call counted, dropped
# (= the map's alloc_failures) or skipped; entries = keys read back.
# On kernels without fault injection (base, rt) the injection part says so and skips.
# usage: faults.sh FLAVOR
. /tests/lib.sh
flavor=${1:-debug}
D=/sys/kernel/debug
n=4000
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

# --- bad input to the series' interfaces ----------------------------------------------
sysctl=/proc/sys/kernel/bpf_force_dyn_alloc
if [ -f $sysctl ]; then
	for v in -1 2 99999999999999999999 abc 1x; do
		if echo "$v" >$sysctl 2>/dev/null; then r=accepted; else r=refused; fi
		[ $r = refused ] && [ "$(cat $sysctl)" = 0 ]
		ok $? "bpf_force_dyn_alloc: write of '$v' $r, value stays $(cat $sysctl)"
	done
fi
# the registry read while maps come and go: every read is whole and well formed
( while [ ! -f /tmp/churn.stop ]; do mapfill -n 64 -b 16 -t hash >/dev/null 2>&1; done ) &
churn=$!
reads=0 badreads=0
while [ $reads -lt 200 ]; do
	cat $D/bpf/mem_alloc >/tmp/reg.txt
	if [ "$(tail -n1 /tmp/reg.txt | cut -d' ' -f1)" != "total:" ] ||
		grep -qv '^owner=[^ ]* map_id=[0-9]* map_name=[^ ]* mode=\|^total: allocators=' /tmp/reg.txt; then
		badreads=$((badreads + 1))
	fi
	reads=$((reads + 1))
done
touch /tmp/churn.stop
wait $churn
[ $badreads = 0 ]
ok $? "registry read $reads times while maps are created and destroyed: $badreads malformed"

if [ ! -d $D/failslab ] || [ ! -d $D/fail_page_alloc ]; then
	skip "fault injection" "kernel without CONFIG_FAILSLAB/FAIL_PAGE_ALLOC debugfs ($flavor)"
	done_testing
fi

registry_total() {	# registry_total FIELD: of the "total:" line of the registry
	sed -n 's/^total: .*'"$1"'=\([0-9]*\).*/\1/p' $D/bpf/mem_alloc
}
settle() {	# settle [ALLOCATORS]: maps and allocators are freed from work items after
	# RCU (tasks trace) grace periods: wait until nothing is pending (and the
	# registry is back to ALLOCATORS), 20 s at most
	i=0
	while [ $i -lt 80 ]; do
		[ "$(registry_total pending_bytes)" = 0 ] &&
			{ [ -z "$1" ] || [ "$(registry_total allocators)" = "$1" ]; } && break
		sleep 0.25
		i=$((i + 1))
	done
}
has_kmemleak=0
[ -f $D/kmemleak ] && has_kmemleak=1 && echo clear >$D/kmemleak

settle
base_alloc=$(registry_total allocators)
base_cached=$(registry_total cached_bytes)
echo "# registry before: $base_alloc allocators, cached $base_cached B"

for f in failslab fail_page_alloc; do
	echo 10 >$D/$f/probability		# percent of the calls that are checked
	echo 1 >$D/$f/interval
	echo -1 >$D/$f/times
	echo 0 >$D/$f/space
	echo 0 >$D/$f/verbose
	echo Y >$D/$f/task-filter		# only tasks with make-it-fail set
	echo N >$D/$f/ignore-gfp-wait	# sleeping allocations fail too
done
echo N >$D/fail_page_alloc/ignore-gfp-highmem
echo 0 >$D/fail_page_alloc/min-order

# plain hash, per-CPU hash, lazy LRU (LRU + BPF_F_NO_PREALLOC), and a hash map that
# asked for preallocation but kernel.bpf_force_dyn_alloc forced onto bpf_mem_alloc
for t in hash percpu lru forced; do
	cnt=$n args="-t $t" sel=$t
	# fewer allocations of a percpu map fail in batches: more updates there
	[ $t = percpu ] && cnt=$((n * 2))
	[ $t = forced ] && args="-t hash -P" sel=hash-prealloc
	[ $t = forced ] && echo 1 >$sysctl
	# shellcheck disable=SC2086
	mapfill -n $cnt -b 100 $args -F >/tmp/ff.$t 2>&1
	ok $? "$t: mapfill with injected failures exits 0"
	[ $t = forced ] && echo 0 >$sysctl
	sed 's/^/#   /' /tmp/ff.$t
	for m in single batch; do
		f() { kv /tmp/ff.$t "$1" mapfill $sel $m; }
		okn=$(f ok) fail=$(f failures) enomem=$(f enomem) el=$(f elements) bad=$(f bad)
		if [ $t = forced ]; then
			[ "$(f forced)" = 1 ]
			ok $? "$t $m: the map was forced to bpf_mem_alloc (fdinfo forced_dynamic $(f forced))"
		fi
		[ "${fail:-0}" -gt 0 ]
		ok $? "$t $m: failures were injected ($fail of $cnt updates failed)"
		[ "$fail" = "$enomem" ]
		ok $? "$t $m: every failure is an ENOMEM to user space ($enomem of $fail)"
		[ "$el" = "$okn" ] && [ "$bad" = 0 ] && [ "${okn:-0}" -gt 0 ]
		ok $? "$t $m: consistent: $okn updates succeeded, $el keys iterated, $bad not read back"
	done
done
for f in failslab fail_page_alloc; do
	echo 0 >$D/$f/probability
	echo N >$D/$f/task-filter
done

# --- program-side updates ---------------------------------------------------------------
# A tracing program's update takes an object from the per-CPU cache, which irq_work
# refills (hard irq: no task to filter on). failslab fails a share of the allocations
# whose stack holds the allocator's refill (alloc_bulk, through the stack trace filter),
# in any context and task; an update that then finds the cache empty fails: the program
# counts it as dropped, the map as an alloc_failure.
if [ -f $D/failslab/require-start ]; then
	range=$(sort /proc/kallsyms | awk '$3 == "alloc_bulk" { a = $1; next }
		a != "" { print a, $1; exit }')
	set -- $range
	if [ -n "$2" ] && [ "$1" != 0000000000000000 ]; then
		T=1000000
		echo "# alloc_bulk at 0x$1-0x$2"
		echo "0x$1" >$D/failslab/require-start
		echo "0x$2" >$D/failslab/require-end
		echo 32 >$D/failslab/stacktrace-depth
		for hook in fentry kprobe; do
			echo $T >$D/failslab/times
			echo 70 >$D/failslab/probability
			bpfmem probe --selftest --hook $hook -n 4 -k 512 >/tmp/fp.$hook 2>&1
			echo 0 >$D/failslab/probability
			inj=$((T - $(cat $D/failslab/times)))
			sed 's/^/#   /' /tmp/fp.$hook
			v() { kv /tmp/fp.$hook "$1" selftest-totals; }
			exp=$(v expected) cnt=$(v counted) drop=$(v dropped) skip=$(v skipped)
			[ "$inj" -gt 0 ] && [ "${drop:-0}" -gt 0 ]
			ok $? "$hook program: refill failures injected ($inj), updates dropped ($drop)"
			[ -n "$exp" ] && [ $((cnt + drop + skip)) = "$exp" ]
			ok $? "$hook program: every call accounted for: $cnt counted + $drop dropped + $skip skipped = $exp"
			[ "$(v alloc_failures)" = "$drop" ]
			ok $? "$hook program: the map's alloc_failures ($(v alloc_failures)) = updates dropped ($drop)"
			[ "$(v present)" = "$(v entries)" ]
			ok $? "$hook program: consistent: $(v entries) entries iterated, $(v present) keys read back"
		done
		# BPF_PROG_TEST_RUN on every CPU: 8 maps filled, emptied and refilled
		echo $T >$D/failslab/times
		echo 70 >$D/failslab/probability
		memshrink -m 8 -n 48 -r 2 -p none -t 2 >/tmp/fp.ms 2>&1
		rc=$?
		echo 0 >$D/failslab/probability
		inj=$((T - $(cat $D/failslab/times)))
		sed 's/^/#   /' /tmp/fp.ms
		fb=$(kv /tmp/fp.ms failures_before speed)
		[ $rc = 0 ] && [ "$inj" -gt 0 ] && [ "${fb:-0}" -gt 0 ]
		ok $? "test_run churn: refill failures injected ($inj), failed updates counted by the program ($fb), exit $rc"
		echo 0 >$D/failslab/require-start
		echo 0xffffffffffffffff >$D/failslab/require-end
		echo -1 >$D/failslab/times
	else
		ok 1 "alloc_bulk in /proc/kallsyms (kptr_restrict?): '$range'"
	fi
else
	skip "program-side injection" "kernel without CONFIG_FAULT_INJECTION_STACKTRACE_FILTER"
fi

settle "$base_alloc"
after_alloc=$(registry_total allocators)
after_cached=$(registry_total cached_bytes)
[ "$after_alloc" = "$base_alloc" ] && ! grep -q ' map_name=mapfill ' $D/bpf/mem_alloc
ok $? "maps closed: registry back to $after_alloc allocators (before $base_alloc), none of mapfill's"
[ "$after_cached" -le "$base_cached" ] && [ "$(registry_total pending_bytes)" = 0 ]
ok $? "allocator cached bytes back to the baseline ($after_cached <= $base_cached), nothing pending"

if [ $has_kmemleak = 1 ]; then
	echo scan >$D/kmemleak
	echo scan >$D/kmemleak
	cat $D/kmemleak >/tmp/kmemleak
	leaks=$(grep -c '^unreferenced object' /tmp/kmemleak)
	# the leaks this test is about: objects allocated on a BPF path (a kmemleak
	# report of something else, e.g. a boot-time object it lost track of, is shown
	# but not counted)
	bpfleaks=$(awk '/^unreferenced object/ { n += hit; hit = 0 }
		/bpf|htab_|memalloc|pcpu_freelist|alloc_bulk/ { hit = 1 }
		END { print n + hit }' /tmp/kmemleak)
	[ "$bpfleaks" = 0 ]
	ok $? "kmemleak: $bpfleaks unreferenced objects allocated on a BPF path after two scans ($leaks in all)"
	[ "$leaks" = 0 ] || head -n 80 /tmp/kmemleak | sed 's/^/#   /'
else
	skip "kmemleak" "kernel without CONFIG_DEBUG_KMEMLEAK"
fi
done_testing
