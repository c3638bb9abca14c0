# SPDX-License-Identifier: GPL-2.0
# bpfmem maps against maps of known shape held by maps-holder (in its own memcg):
# every map listed with the right type, mode, sizes, flags, elements and memlock;
# memcg figures equal the cgroup files; JSON and Prometheus parse; filters, sort,
# watch mode, SIGINT and bad input; the memcg from the kernel when the holder moves;
# the same Prometheus schema as the exporter; no BTF (fallback); capabilities; owners
# from the kernel under the exporter unit's capabilities, and from /proc.
# usage: maps.sh FLAVOR (base|rt|vanilla|k61)
. /tests/lib.sh
flavor=${1:-base}
CG=/sys/fs/cgroup/bpfmem-mh
# the element count kfunc is 6.6+: without it (6.1) hash maps' keys are counted from
# user space ("iterated")
kfunc=no
grep -q ' bpf_map_sum_elem_count$' /proc/kallsyms && kfunc=yes

series=no
bpfmem probe | grep -q '^bpfmem series: *yes' && series=yes
echo "# kernel $flavor, bpfmem series: $series"

maps-holder -c $CG >/tmp/mh.txt 2>/tmp/mh.err &
hpid=$!
i=0
while ! grep -q '^ready' /tmp/mh.txt && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "^ready $hpid" /tmp/mh.txt; ok $? "maps-holder created its maps (pid $hpid)"
sed 's/^/# holder: /' /tmp/mh.txt /tmp/mh.err
# what this kernel really prints (ground truth, not BTF detection)
fdseries=no
cat /proc/$hpid/fdinfo/* 2>/dev/null | grep -q '^alloc_cached_bytes:' && fdseries=yes
listing=no
[ -r /sys/kernel/debug/bpf/mem_alloc ] && listing=yes
echo "# fdinfo series lines: $fdseries, allocator listing: $listing, element count kfunc: $kfunc"

bpfmem maps >/tmp/all.txt 2>&1; ok $? "bpfmem maps (all maps) runs"
bpfmem maps -p $hpid >/tmp/maps.txt 2>&1; ok $? "bpfmem maps -p PID runs"
sed 's/^/# /' /tmp/maps.txt
bpfmem maps -p $hpid -j >/tmp/maps.json 2>/tmp/err.txt; ok $? "bpfmem maps -j runs"
sed 's/^/# stderr: /' /tmp/err.txt
[ ! -s /tmp/err.txt ]; ok $? "nothing on stderr (no libbpf lines: the iterator loads on this kernel)"
json-flat </tmp/maps.json >/tmp/maps.flat 2>/tmp/err.txt; ok $? "JSON output parses (strict parser)"
cat /tmp/err.txt | sed 's/^/# /'

# field F of the map with id ID from the flattened JSON
jget() {	# jget ID FIELD
	local idx
	idx=$(sed -n "s/^\.maps\[\([0-9]*\)\]\.id=$1\$/\1/p" /tmp/maps.flat)
	[ -n "$idx" ] || { echo "__missing__"; return; }
	sed -n "s/^\.maps\[$idx\]\.$2=//p" /tmp/maps.flat
}

# the holder's own fdinfo of map ID (what the kernel prints for it)
holder_fdinfo() {
	local f
	for f in /proc/$hpid/fdinfo/*; do
		grep -q "^map_id:[[:space:]]*$1\$" $f 2>/dev/null && { cat $f; return; }
	done
}

n=$(grep -c '^map ' /tmp/mh.txt)
m=$(grep -c '^\.maps\[[0-9]*\]\.id=' /tmp/maps.flat)
[ "$n" = 6 ] && [ "$m" = "$n" ]; ok $? "-p PID lists exactly the holder's $n maps (got $m)"

while read -r _ name _ id _ type _ key _ value _ max _ flags _ elems _ memlock; do
	bad=""
	[ "$(jget $id name)" = "\"$name\"" ] || bad="$bad name=$(jget $id name)"
	[ "$(jget $id type_id)" = "$type" ] || bad="$bad type_id=$(jget $id type_id)"
	[ "$(jget $id key_size)" = "$key" ] || bad="$bad key_size=$(jget $id key_size)"
	[ "$(jget $id value_size)" = "$value" ] || bad="$bad value_size=$(jget $id value_size)"
	[ "$(jget $id max_entries)" = "$max" ] || bad="$bad max_entries=$(jget $id max_entries)"
	[ "$(jget $id flags)" = "$flags" ] || bad="$bad flags=$(jget $id flags)"
	[ "$(jget $id memlock)" = "$memlock" ] || bad="$bad memlock=$(jget $id memlock) (kernel $memlock)"
	case $name in
	mh_hash_dyn|mh_pcpu_dyn) want_mode=dynamic ;;
	mh_hash_pre|mh_lru) want_mode=prealloc ;;
	*) want_mode=- ;;
	esac
	# the series may turn a preallocated map dynamic (fdinfo "forced_dynamic: 1")
	holder_fdinfo $id | grep -q '^forced_dynamic:[[:space:]]*1$' && want_mode=forced-dynamic
	[ "$(jget $id mode)" = "\"$want_mode\"" ] || bad="$bad mode=$(jget $id mode)"
	case $name in
	mh_queue)	# no key iteration for queues: must be reported unknown, not 0
		[ "$(jget $id elements)" = null ] || bad="$bad elements=$(jget $id elements)"
		[ "$(jget $id elements_source)" = '"n/a"' ] || bad="$bad src=$(jget $id elements_source)" ;;
	mh_array)
		[ "$(jget $id elements)" = "$elems" ] || bad="$bad elements=$(jget $id elements)"
		[ "$(jget $id elements_source)" = '"array"' ] || bad="$bad src=$(jget $id elements_source)" ;;
	*)
		[ "$(jget $id elements)" = "$elems" ] || bad="$bad elements=$(jget $id elements) (want $elems)"
		src=$(jget $id elements_source)
		if [ $kfunc = yes ]; then
			[ "$src" = '"kfunc"' ] || [ "$src" = '"fdinfo"' ] || bad="$bad src=$src"
		else
			[ "$src" = '"iterated"' ] || [ "$src" = '"fdinfo"' ] || bad="$bad src=$src (no kfunc)"
		fi ;;
	esac
	grep -q "^\.maps\[[0-9]*\]\.owners\[[0-9]*\]\.pid=$hpid\$" /tmp/maps.flat || bad="$bad owner"
	[ "$(jget $id memcg)" = '"/bpfmem-mh"' ] || bad="$bad memcg=$(jget $id memcg)"
	[ "$(jget $id memcg_source)" = '"objcg"' ] || bad="$bad memcg_source=$(jget $id memcg_source)"
	if [ "$fdseries" = yes ]; then
		case $want_mode in dynamic)
			kc=$(holder_fdinfo $id | sed -n 's/^alloc_cached_bytes:[[:space:]]*//p')
			kp=$(holder_fdinfo $id | sed -n 's/^alloc_pending_bytes:[[:space:]]*//p')
			[ "$(jget $id cached_bytes)" = "$kc" ] || bad="$bad cached_bytes=$(jget $id cached_bytes) (fdinfo $kc)"
			[ "$(jget $id pending_bytes)" = "$kp" ] || bad="$bad pending_bytes=$(jget $id pending_bytes) (fdinfo $kp)" ;;
		esac
	else
		[ "$(jget $id cached_bytes)" = null ] || bad="$bad cached_bytes=$(jget $id cached_bytes)"
	fi
	[ -z "$bad" ]; ok $? "map $name (id $id): type, mode, sizes, flags, elements, memlock, owner, memcg${bad:+ -- wrong:$bad}"
done <<EOF
$(grep '^map ' /tmp/mh.txt)
EOF

n=$(grep -c '^\.maps\[[0-9]*\]\.owners\[0\]\.cgroup="/bpfmem-mh"$' /tmp/maps.flat)
[ "$n" = 6 ]; ok $? "owners' own cgroup (/proc/PID/cgroup) reported for all 6 maps"

# the text table has the same rows
for name in mh_hash_dyn mh_hash_pre mh_array mh_lru mh_pcpu_dyn mh_queue; do
	grep -q " $name " /tmp/maps.txt || echo "# table misses $name"
done
[ "$(grep -c ' mh_' /tmp/maps.txt)" = 6 ] && grep -q ' TOTAL ' /tmp/maps.txt
ok $? "text table: 6 map rows and a TOTAL row"
if [ "$listing" = yes ]; then
	grep -q 'ALL-ALLOCATORS' /tmp/maps.txt; ok $? "series: allocator totals row"
	sed 's/^/# /' /sys/kernel/debug/bpf/mem_alloc | head -n 20
	# unowned rows = allocators with map_id=0 in the listing, per owner
	want=$(grep -c ' map_id=0 ' /sys/kernel/debug/bpf/mem_alloc)
	got=$(bpfmem maps -j | json-flat | sed -n 's/^\.allocators\.unowned\[[0-9]*\]\.allocators=//p' |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$want" = "$got" ]; ok $? "series: unowned allocators in JSON ($got) = map_id=0 lines in debugfs ($want)"
elif [ "$series" = yes ]; then
	grep -q 'allocator caches: n/a: ' /tmp/maps.txt; ok $? "series without allocator listing: reported n/a"
else
	grep -q 'n/a: kernel without the series' /tmp/maps.txt; ok $? "no series: allocator caches reported n/a"
fi

# memcg figures are the cgroup files' values (the holder sleeps: stable)
cur=$(cat $CG/memory.current)
jcur=$(sed -n 's/^\.memcgs\[[0-9]*\]\.path="\/bpfmem-mh"$/X/p' /tmp/maps.flat)
idx=$(sed -n 's/^\.memcgs\[\([0-9]*\)\]\.path="\/bpfmem-mh"$/\1/p' /tmp/maps.flat)
jcur=$(sed -n "s/^\.memcgs\[$idx\]\.memory_current=//p" /tmp/maps.flat)
bpfmem maps -p $hpid -j | json-flat >/tmp/maps2.flat
jcur2=$(sed -n "s/^\.memcgs\[$idx\]\.memory_current=//p" /tmp/maps2.flat)
cur2=$(cat $CG/memory.current)
echo "# memory.current: file $cur / $cur2, bpfmem $jcur / $jcur2"
[ -n "$jcur" ] && { [ "$jcur" = "$cur" ] || [ "$jcur2" = "$cur2" ]; }
ok $? "memcg memory_current equals $CG/memory.current"
kern=$(sed -n 's/^kernel //p' $CG/memory.stat)
jk=$(sed -n "s/^\.memcgs\[$idx\]\.kernel=//p" /tmp/maps2.flat)
[ -n "$jk" ] && [ "$jk" = "$(sed -n 's/^kernel //p' $CG/memory.stat)" ]
ok $? "memcg kernel equals memory.stat kernel ($jk)"

# Prometheus
bpfmem maps -p $hpid --prometheus >/tmp/prom.txt 2>&1; ok $? "--prometheus runs"
prom-check </tmp/prom.txt >/tmp/pc.txt 2>&1; ok $? "Prometheus exposition format is valid: $(cat /tmp/pc.txt)"
id=$(sed -n 's/^map mh_hash_dyn id \([0-9]*\) .* memlock \([0-9]*\)$/\1/p' /tmp/mh.txt)
ml=$(sed -n 's/^map mh_hash_dyn id [0-9]* .* memlock \([0-9]*\)$/\1/p' /tmp/mh.txt)
grep -q "^bpfmem_map_memlock_bytes{id=\"$id\",name=\"mh_hash_dyn\",type=\"hash\",mode=\"dynamic\"} $ml\$" /tmp/prom.txt
ok $? "Prometheus memlock sample of mh_hash_dyn is $ml (labels id, name, type, mode only)"
grep -q "^bpfmem_map_info{id=\"$id\",name=\"mh_hash_dyn\",type=\"hash\",mode=\"dynamic\",memcg=\"/bpfmem-mh\",memcg_source=\"objcg\",owner=\"maps-holder\",owner_pids=\"$hpid\"} 1\$" /tmp/prom.txt
ok $? "Prometheus bpfmem_map_info of mh_hash_dyn: memcg, its source and the owner"
# the exporter writes the same schema (tools/collect/prom_schema.c): same families, same labels
bpfmem exporter --listen 127.0.0.1:9741 --interval 0 2>/tmp/exp.err &
epid=$!
wait_for 'listening on' /tmp/exp.err $epid
timeout 20 wget -q -O /tmp/exp.txt http://127.0.0.1:9741/metrics
kill -TERM $epid
wait $epid
fams() { sed -n 's/^# TYPE \(bpfmem_[a-z_]*\) .*/\1/p' "$1" | grep -v '^bpfmem_\(prog\|exporter\)_' | sort; }
keys() { grep "{id=\"$id\"," "$1" | sed 's/ [^ ]*$//' | sort; }
fams /tmp/prom.txt >/tmp/f1; fams /tmp/exp.txt >/tmp/f2
keys /tmp/prom.txt >/tmp/k1; keys /tmp/exp.txt >/tmp/k2
# the info series and 8 value series; the series' fdinfo lines add bpfmem_map_alloc_*
nk=9
[ "$fdseries" = yes ] && nk=10
cmp -s /tmp/f1 /tmp/f2 && cmp -s /tmp/k1 /tmp/k2 && [ "$(wc -l </tmp/k1)" -ge $nk ]
ok $? "maps --prometheus and the exporter: the same $(wc -l </tmp/f1) map families, the same $(wc -l </tmp/k1) series of mh_hash_dyn"
diff /tmp/f1 /tmp/f2 | sed 's/^/# /'; diff /tmp/k1 /tmp/k2 | sed 's/^/# /'
grep -q "^bpfmem_map_elements{id=\"$id\",.*} 300\$" /tmp/prom.txt; ok $? "Prometheus elements of mh_hash_dyn is 300"
grep -q '^# TYPE bpfmem_memcg_memory_current_bytes gauge$' /tmp/prom.txt &&
	grep -q '^bpfmem_memcg_memory_current_bytes{memcg="/bpfmem-mh"} [0-9]' /tmp/prom.txt
ok $? "Prometheus memcg memory.current of /bpfmem-mh"

# filters and sorting
bpfmem maps --id $id -j | json-flat >/tmp/one.flat
[ "$(grep -c '^\.maps\[[0-9]*\]\.id=' /tmp/one.flat)" = 1 ] && grep -q "^\.maps\[0\]\.id=$id\$" /tmp/one.flat
ok $? "--id ID lists only that map"
bpfmem maps --name mh_lru -j | json-flat >/tmp/one.flat
[ "$(grep -c '^\.maps\[[0-9]*\]\.id=' /tmp/one.flat)" = 1 ] && grep -q '^\.maps\[0\]\.name="mh_lru"$' /tmp/one.flat
ok $? "--name NAME lists only that map"
bpfmem maps -p $hpid -s memlock -j | json-flat | sed -n 's/^\.maps\[[0-9]*\]\.memlock=//p' >/tmp/ml.txt
sort -n -r /tmp/ml.txt | cmp -s - /tmp/ml.txt && [ "$(wc -l </tmp/ml.txt)" = 6 ]
ok $? "-s memlock sorts largest first"

# memcg from the kernel, not guessed: the holder moves to another cgroup after making
# its maps; they stay charged to /bpfmem-mh (map->objcg), the owner's cgroup changes
mkdir -p /sys/fs/cgroup/bpfmem-mh2
echo $hpid >/sys/fs/cgroup/bpfmem-mh2/cgroup.procs
bpfmem maps --id $id -j 2>/tmp/err.txt | json-flat >/tmp/mv.flat
grep -q '^\.maps\[0\]\.memcg="/bpfmem-mh"$' /tmp/mv.flat &&
	grep -q '^\.maps\[0\]\.memcg_source="objcg"$' /tmp/mv.flat &&
	grep -q '^\.maps\[0\]\.owners\[0\]\.cgroup="/bpfmem-mh2"$' /tmp/mv.flat
ok $? "holder moved to /bpfmem-mh2: memcg still /bpfmem-mh from the kernel, owner's cgroup /bpfmem-mh2"

# no vmlinux BTF (hidden by a tmpfs): the fallback runs, says so in one line; the
# memcg is then the owner's cgroup (memcg_source owner), elements by key iteration
mount -t tmpfs none /sys/kernel/btf
bpfmem maps -p $hpid -j >/tmp/nobtf.json 2>/tmp/err.txt
rc=$?
umount /sys/kernel/btf
sed 's/^/# stderr: /' /tmp/err.txt
json-flat </tmp/nobtf.json >/tmp/nobtf.flat 2>/dev/null
dyn=$(sed -n 's/^map mh_hash_dyn id \([0-9]*\) .*/\1/p' /tmp/mh.txt)
idx=$(sed -n "s/^\.maps\[\([0-9]*\)\]\.id=$dyn\$/\1/p" /tmp/nobtf.flat)
[ $rc = 0 ] && [ "$(wc -l </tmp/err.txt)" = 1 ] && grep -q 'no kernel BTF' /tmp/err.txt &&
	[ "$(grep -c '^\.maps\[[0-9]*\]\.id=' /tmp/nobtf.flat)" = 6 ] &&
	grep -q "^\.maps\[$idx\]\.elements=300\$" /tmp/nobtf.flat &&
	grep -q "^\.maps\[$idx\]\.memcg_source=\"owner\"\$" /tmp/nobtf.flat &&
	grep -q "^\.maps\[$idx\]\.memcg=\"/bpfmem-mh2\"\$" /tmp/nobtf.flat &&
	grep -q '^\.owners_source="proc"$' /tmp/nobtf.flat
ok $? "no kernel BTF: exit $rc, a one-line note, 6 maps, elements 300, memcg from the owner, owners from /proc"
echo $hpid >/sys/fs/cgroup/bpfmem-mh/cgroup.procs
rmdir /sys/fs/cgroup/bpfmem-mh2

# capabilities, not uid 0: uid 65534 with CAP_SYS_ADMIN lists maps (owners of other
# users' processes are not readable then), root without it is refused in one line
capuser 65534 sys_admin bpfmem maps --id $id -j >/tmp/cap.json 2>/tmp/err.txt
rc=$?
sed 's/^/# stderr: /' /tmp/err.txt
json-flat </tmp/cap.json >/tmp/cap.flat 2>/dev/null
[ $rc = 0 ] && grep -q "^\.maps\[0\]\.id=$id\$" /tmp/cap.flat &&
	grep -q '^\.maps\[0\]\.memcg="/bpfmem-mh"$' /tmp/cap.flat
ok $? "uid 65534 with CAP_SYS_ADMIN: maps listed, memcg from the iterator (exit $rc)"
dropcap bpfmem maps >/dev/null 2>/tmp/err.txt
rc=$?
sed 's/^/# stderr: /' /tmp/err.txt
[ $rc = 1 ] && [ "$(wc -l </tmp/err.txt)" = 1 ] && grep -q 'needs CAP_SYS_ADMIN' /tmp/err.txt
ok $? "root without CAP_SYS_ADMIN: one line naming CAP_SYS_ADMIN, exit $rc"

# owners from the kernel: under exactly the capabilities of bpfmem-exporter.service
# (dropcap -u: its CapabilityBoundingSet line, read from the unit at build time) the
# holder, root with every capability, cannot be ptraced, yet the task_file iterator
# attributes its maps (pid, comm, and the cgroup from /proc/PID/cgroup)
caps=$(dropcap -u cat /proc/self/status | sed -n 's/^CapEff:[[:space:]]*//p')
dropcap -u bpfmem maps -p $hpid -j >/tmp/unit.json 2>/tmp/err.txt
rc=$?
sed 's/^/# stderr: /' /tmp/err.txt
json-flat </tmp/unit.json >/tmp/unit.flat 2>/dev/null
np=$(grep -c "^\.maps\[[0-9]*\]\.owners\[0\]\.pid=$hpid\$" /tmp/unit.flat)
nc=$(grep -c '^\.maps\[[0-9]*\]\.owners\[0\]\.comm="maps-holder"$' /tmp/unit.flat)
ng=$(grep -c '^\.maps\[[0-9]*\]\.owners\[0\]\.cgroup="/bpfmem-mh"$' /tmp/unit.flat)
[ $rc = 0 ] && [ ! -s /tmp/err.txt ] && grep -q '^\.owners_source="iterator"$' /tmp/unit.flat &&
	[ "$np" = 6 ] && [ "$nc" = 6 ] && [ "$ng" = 6 ]
ok $? "the unit's capabilities (CapEff $caps): the holder's 6 maps owned by $hpid (maps-holder, /bpfmem-mh), from the iterator (exit $rc; pid $np, comm $nc, cgroup $ng)"
# the fallback, forced: /proc/PID/fd sees the holder with every capability, not with
# the unit's (ptrace access to a process with more capabilities needs CAP_SYS_PTRACE)
BPFMEM_OWNERS=proc bpfmem maps -p $hpid -j 2>/tmp/err.txt | json-flat >/tmp/proc.flat
np=$(grep -c "^\.maps\[[0-9]*\]\.owners\[0\]\.pid=$hpid\$" /tmp/proc.flat)
nc=$(grep -c '^\.maps\[[0-9]*\]\.owners\[0\]\.comm="maps-holder"$' /tmp/proc.flat)
[ ! -s /tmp/err.txt ] && grep -q '^\.owners_source="proc"$' /tmp/proc.flat && [ "$np" = 6 ] && [ "$nc" = 6 ]
ok $? "BPFMEM_OWNERS=proc: owners from /proc/PID/fd, the holder's 6 maps owned by $hpid (maps-holder)"
BPFMEM_OWNERS=proc dropcap -u bpfmem maps --id $id -j 2>/tmp/err.txt | json-flat >/tmp/proc.flat
grep -q '^\.owners_source="proc"$' /tmp/proc.flat && grep -q "^\.maps\[0\]\.id=$id\$" /tmp/proc.flat &&
	! grep -q '^\.maps\[0\]\.owners\[' /tmp/proc.flat
ok $? "BPFMEM_OWNERS=proc under the unit's capabilities: the holder is not seen (what the iterator fixes)"

# a memcg path longer than 255 bytes (Kubernetes in docker reaches ~320): six levels
# of 50 bytes, so that a cut at 255 bytes is exactly the parent's path; a sibling
# holder makes the parent's memory.current differ from the leaf's. The full path is
# reported, as memcg and as the owners' cgroup, with the leaf's own memory.current.
long=""
for l in 1 2 3 4 5 6; do
	echo +memory >/sys/fs/cgroup$long/cgroup.subtree_control 2>/dev/null
	long="$long/$(printf 'bpfmem-level%d-%036d' $l 0)"
	mkdir -p /sys/fs/cgroup$long
done
parent=${long%/*}
maps-holder -c /sys/fs/cgroup$parent/sib >/tmp/mhs.txt 2>&1 &
spid=$!
maps-holder -c /sys/fs/cgroup$long >/tmp/mhl.txt 2>&1 &
lpid=$!
i=0
while ! { grep -q '^ready' /tmp/mhl.txt && grep -q '^ready' /tmp/mhs.txt; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
bpfmem maps -p $lpid -j 2>/tmp/err.txt | json-flat >/tmp/long.flat
sed 's/^/# stderr: /' /tmp/err.txt
nm=$(grep -c "^\.maps\[[0-9]*\]\.memcg=\"$long\"\$" /tmp/long.flat)
no=$(grep -c "^\.maps\[[0-9]*\]\.owners\[0\]\.cgroup=\"$long\"\$" /tmp/long.flat)
[ ${#long} -gt 300 ] && [ "$nm" = 6 ] && [ "$no" = 6 ]
ok $? "memcg path of ${#long} bytes: full path as memcg ($nm of 6) and owners' cgroup ($no of 6)"
idx=$(grep -n '^\.memcgs\[[0-9]*\]\.path=' /tmp/long.flat | grep -F "=\"$long\"" |
	sed -n 's/^[0-9]*:\.memcgs\[\([0-9]*\)\].*/\1/p')
jcur=$(sed -n "s/^\.memcgs\[$idx\]\.memory_current=//p" /tmp/long.flat)
cur=$(cat /sys/fs/cgroup$long/memory.current)
pcur=$(cat /sys/fs/cgroup$parent/memory.current)
echo "# memory.current: leaf $cur, parent $pcur, bpfmem $jcur; memcgs:"
grep '^\.memcgs\[[0-9]*\]\.path=' /tmp/long.flat | cut -c1-120 | sed 's/^/#   /'
[ -n "$idx" ] && [ "$jcur" = "$cur" ] && [ "$cur" != "$pcur" ]
ok $? "its memory_current is the leaf's ($cur), not the parent's ($pcur)"
kill $lpid $spid
wait $lpid $spid 2>/dev/null
rmdir /sys/fs/cgroup$parent/sib /sys/fs/cgroup$long 2>/dev/null
d=$parent
while [ -n "$d" ]; do
	rmdir /sys/fs/cgroup$d 2>/dev/null
	d=${d%/*}
done

# watch mode: -i/-n, and SIGINT prints the final interval and exits 0
bpfmem maps -p $hpid -j -i 0.3 -n 3 >/tmp/watch.json 2>&1
[ $? = 0 ] && [ "$(wc -l </tmp/watch.json)" = 3 ] && json-flat -q </tmp/watch.json
ok $? "-i 0.3 -n 3 prints 3 JSON intervals"
bpfmem maps -p $hpid -i 5 >/tmp/watch.txt 2>&1 &
wpid=$!
i=0	# SIGINT once the first interval is out (startup can take a while in TCG)
while ! grep -q ' TOTAL ' /tmp/watch.txt && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $wpid
( sleep 30; kill -KILL $wpid 2>/dev/null ) &	# a hang fails the test, not the suite
dog=$!
wait $wpid
rc=$?
kill $dog 2>/dev/null
[ $rc = 0 ] && [ "$(grep -c ' TOTAL ' /tmp/watch.txt)" = 2 ]
ok $? "SIGINT in watch mode: final interval printed, exit 0 (rc $rc)"

# bad input
bpfmem maps --id 999999 >/dev/null 2>/tmp/err.txt
[ $? != 0 ] && grep -q 'no such map id: 999999' /tmp/err.txt; ok $? "nonexistent map id: clear error"
bpfmem maps -p 999999 >/dev/null 2>/tmp/err.txt
[ $? != 0 ] && grep -q 'no such process: 999999' /tmp/err.txt; ok $? "nonexistent PID: clear error"
bpfmem maps -s bogus >/dev/null 2>/tmp/err.txt
[ $? = 2 ] && grep -q 'invalid sort key' /tmp/err.txt; ok $? "bad sort key refused"
bpfmem maps -i 0 >/dev/null 2>/tmp/err.txt
[ $? = 2 ] && grep -q 'invalid number of seconds' /tmp/err.txt; ok $? "bad interval refused"
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
if su -s /bin/sh nobody -c true 2>/dev/null; then
	su -s /bin/sh nobody -c 'bpfmem maps' >/dev/null 2>/tmp/err.txt
	rc=$?
	sed 's/^/# /' /tmp/err.txt
	[ $rc != 0 ] && grep -q 'no privilege' /tmp/err.txt; ok $? "unprivileged user: clear error, exit $rc"
else
	skip "unprivileged user" "no su in this guest"
fi

kill $hpid
wait $hpid 2>/dev/null
rmdir $CG 2>/dev/null
done_testing
