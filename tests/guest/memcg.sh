# SPDX-License-Identifier: GPL-2.0
# Guest test: the series' selftest map_tests/htab_mem_memcg.c (patch 7) on its own
# (tests/selftests-build.sh builds it as the runner htab_mem_memcg): a hash map's fdinfo
# (memlock + alloc_cached_bytes + alloc_pending_bytes) against its own cgroup's
# memory.stat "kernel", within one page per CPU plus one page; a per-CPU hash map's within the
# range the uncharged first percpu chunk leaves. Around it: the test leaves the root
# cgroup.subtree_control as it found it and no cgroup behind.
#   sh /tests/memcg.sh FLAVOUR
. /tests/lib.sh
flavour=${1:-base}
dir=/usr/share/bpfmem/selftests-bpf
cg=/sys/fs/cgroup

if [ ! -x "$dir/htab_mem_memcg" ]; then
	ok 1 "htab_mem_memcg staged in $dir (run tests/selftests-build.sh, --add its stage dir)"
	done_testing
fi
# the test enables the memory controller if it has to, and must turn it off again:
# start without it where the guest allows (no child cgroup uses it)
echo -memory >$cg/cgroup.subtree_control 2>/dev/null
ctl0=$(cat $cg/cgroup.subtree_control)
echo "# root cgroup.subtree_control before: '$ctl0'"
"$dir/htab_mem_memcg" >/tmp/memcg.log 2>&1
rc=$?
sed 's/^/# /' /tmp/memcg.log
ok $((rc != 0)) "htab_mem_memcg exits 0 ($flavour): $(grep -m1 -E ':FAIL:|:PASS|:SKIP' /tmp/memcg.log)"
grep -q '^test_htab_mem_memcg:PASS$\|^test_htab_mem_memcg:SKIP: slab objects carry' /tmp/memcg.log
ok $? "the test ran to its end (PASS, or the byte comparison skipped for slab debug metadata)"
# both maps filled from BPF on every CPU, elements = keys found (checked by the test)
[ "$(grep -c '^test_htab_mem_memcg: map [01] holds' /tmp/memcg.log)" = 2 ]
ok $? "both maps hold the keys the program added"
if grep -q ':SKIP: slab objects carry' /tmp/memcg.log; then
	# debug: KASAN's metadata is part of every slab object
	[ "$flavour" = debug ]
	ok $? "byte comparison skipped only on the debug kernel ($flavour)"
else
	grep -q '^test_htab_mem_memcg: htab: memcg +[0-9]* fdinfo +[0-9]* .* want [0-9]* tol [0-9]*$' \
		/tmp/memcg.log
	ok $? "hash map: memory.stat \"kernel\" compared with fdinfo (exact-size objects, no memcg pointer)"
	grep -q '^test_htab_mem_memcg: pcpu: memcg +[0-9]* fdinfo +[0-9]* .* want [0-9]*-[0-9]*$' \
		/tmp/memcg.log
	ok $? "per-CPU hash map: memory.stat within the explained range"
fi
[ "$(cat $cg/cgroup.subtree_control)" = "$ctl0" ]
ok $? "root cgroup.subtree_control restored ('$ctl0')"
left=$(ls -d $cg/htab_mem_memcg.* 2>/dev/null)
[ -z "$left" ]
ok $? "no test cgroup left behind${left:+: $left}"
echo +memory >$cg/cgroup.subtree_control 2>/dev/null
# exact-size slab caches (series patch 13) are created with SLAB_NO_MERGE: map
# elements (data user space and programs control) never share a slab cache with
# other kernel objects. With SLUB's sysfs a merged cache is a symlink to the shared
# cache (and the shared one counts aliases); an unmerged one is a directory of its own.
# (/sys/kernel/slab needs SLUB without SLUB_TINY: the debug kernel; base and rt are
# tinyconfig builds)
if [ ! -d /sys/kernel/slab ]; then
	echo "# no /sys/kernel/slab on this kernel (SLUB_TINY): the merge check runs on debug"
	done_testing
fi
maps-holder >/tmp/holder.out 2>&1 &
hpid=$!
wait_for '^ready' /tmp/holder.out $hpid
caches=$(ls -d /sys/kernel/slab/bpf_ma-* 2>/dev/null)
if bpfmem probe 2>/dev/null | grep -q '^bpfmem series: *yes'; then
	[ -n "$caches" ]; ok $? "maps-holder's dynamic maps use exact-size caches: $(echo $caches | tr '\n' ' ')"
fi
bad=""
for c in $caches; do
	if [ -L "$c" ] || [ "$(cat "$c/aliases" 2>/dev/null)" != 0 ]; then
		bad="$bad $(basename "$c")->$(readlink "$c")"
	fi
done
[ -z "$bad" ]; ok $? "no exact-size cache merged with another slab cache:${bad:- none}"
kill $hpid; wait $hpid 2>/dev/null
done_testing
