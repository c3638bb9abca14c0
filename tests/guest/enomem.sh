# SPDX-License-Identifier: GPL-2.0
# Syscall updates of BPF_F_NO_PREALLOC hash maps do not fail while memory is available
# (series patch "bpf: hashtab: get the element before the bucket lock on syscall
# updates"): fill fresh maps of 100k entries from user space, one update at a time and
# with BPF_MAP_UPDATE_BATCH, on hash and per-CPU hash maps; and a map filled past
# max_entries holds exactly max_entries. Meant for -smp 4.
# usage: enomem.sh FLAVOR
. /tests/lib.sh
flavor=${1:-base}
n=100000
np=20000	# per-CPU: values x CPUs
# debug (KASAN + lockdep): 232 s at 30000/10000 in the gate; 10000/4000 still fill
# several pages of buckets per CPU and run every refill path
[ "$flavor" = debug ] && n=10000 && np=4000
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

f() { kv "$1" "$4" mapfill "$2" "$3"; }	# f OUTFILE TYPE METHOD KEY

check_fill() {	# check_fill OUTFILE TYPE N [MAX_ENTRIES]: min(N, MAX) in, the rest E2BIG
	local m okn fail enomem el want=$3
	[ -n "$4" ] && [ "$4" -lt "$3" ] && want=$4
	for m in single batch; do
		okn=$(f "$1" "$2" $m ok) fail=$(f "$1" "$2" $m failures)
		enomem=$(f "$1" "$2" $m enomem) el=$(f "$1" "$2" $m elements)
		[ "$okn" = "$want" ] && [ "$fail" = $(($3 - want)) ] && [ "$enomem" = 0 ] &&
			[ "$el" = "$want" ]
		ok $? "$2 $m${4:+, max_entries $4}: $3 updates: $okn ok, $fail failures ($enomem ENOMEM), $el elements"
	done
}

for t in hash percpu; do
	cnt=$n
	[ $t = percpu ] && cnt=$np
	mapfill -n $cnt -t $t >/tmp/fill.$t 2>&1
	ok $? "$t: mapfill exits 0"
	sed 's/^/#   /' /tmp/fill.$t
	check_fill /tmp/fill.$t $t $cnt
done
# a full map: with max_entries 8192 (a per-CPU count whose shares fold at 256 on
# 4 CPUs), 9000 updates put exactly 8192 elements in and fail the other 808 with
# E2BIG (not ENOMEM), preallocated or not
for t in hash percpu prealloc; do
	tt=$t args="-t $t"
	[ $t = prealloc ] && tt=hash-prealloc args=-P
	mapfill -n 9000 -m 8192 $args >/tmp/full.$t 2>&1
	ok $? "$tt full: mapfill exits 0"
	sed 's/^/#   /' /tmp/full.$t
	check_fill /tmp/full.$t $tt 9000 8192
done
# the baseline: preallocated maps never fail
mapfill -n $n -P >/tmp/fill.pre 2>&1
ok $? "hash-prealloc: mapfill exits 0"
sed 's/^/#   /' /tmp/fill.pre
check_fill /tmp/fill.pre hash-prealloc $n
done_testing
