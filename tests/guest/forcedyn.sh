# SPDX-License-Identifier: GPL-2.0
# kernel.bpf_force_dyn_alloc (series patch "bpf: add kernel.bpf_force_dyn_alloc ..."):
# run Debian's libbpf-tools syscount and tcptop, whose hash maps are preallocated, with
# the switch off and on, on the same workload: same output, their maps reported as
# forced-dynamic, less memlock and less memcg charge with the switch on.
# usage: forcedyn.sh FLAVOR   (needs --add /usr/sbin/syscount --add /usr/sbin/tcptop)
. /tests/lib.sh
flavor=${1:-base}
T=/tmp/fd
mkdir -p $T
S=/proc/sys/kernel/bpf_force_dyn_alloc
MiB=1048576
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

maps_of() {	# maps_of PID: "nmaps nhash nforced memlock" over the maps PID holds
	# (nhash: plain hash maps, the only type the switch forces)
	local f
	for f in /proc/$1/fdinfo/*; do
		grep -q '^map_type:' "$f" 2>/dev/null && cat "$f" && echo END
	done | awk '/^map_type:/ { n++; if ($2 == 1) h++ }
		/^forced_dynamic:/ { fo += $2 } /^memlock:/ { m += $2 }
		END { print n + 0, h + 0, fo + 0, m + 0 }'
}

col() {	# col FILE ROWNAME COLUMN
	awk -v r="$2" -v c="$3" '$1 == r { print $c; exit }' "$1"
}

[ -f $S ]; ok $? "sysctl kernel.bpf_force_dyn_alloc exists"
[ "$(cat $S)" = 0 ]; ok $? "it is off by default ($(cat $S))"
! echo 2 >$S 2>/dev/null && [ "$(cat $S)" = 0 ]
ok $? "values other than 0 and 1 are rejected"
dropcap sh -c "echo 1 >$S" 2>$T/dropcap.err
rc=$?
sed 's/^/#   /' $T/dropcap.err
[ $rc != 0 ] && grep -q 'not permitted' $T/dropcap.err && [ "$(cat $S)" = 0 ]
ok $? "root without CAP_SYS_ADMIN cannot turn it on (EPERM)"
dropcap cat $S >/dev/null
ok $? "... but can read it"

# the cost rule (kernel/ABI.md, sysctl section): with the switch on, a plain hash map
# is forced only where bpf_mem_alloc costs no more when full; per-CPU, small and LRU
# maps keep preallocation and say so (fdinfo force_kept, bpfmem maps prealloc-kept)
echo 1 >$S
maps-holder -f >$T/fr.txt 2>&1 &
hpid=$!
wait_for '^ready' $T/fr.txt $hpid
sed 's/^/#   /' $T/fr.txt
bpfmem maps -j >$T/fr.json 2>&1
kill $hpid
wait $hpid 2>/dev/null
echo 0 >$S
fr() { kv $T/fr.txt "$2" map "$1"; }
mode_of() {	# mode_of ID: "mode" of that map in bpfmem maps -j
	grep -o "{\"id\":$1,[^}]*" $T/fr.json | sed -n 's/.*"mode":"\([^"]*\)".*/\1/p'
}
[ "$(fr fr_forced forced_dynamic)" = 1 ] && [ "$(fr fr_forced force_kept)" = 0 ] &&
	[ "$(mode_of "$(fr fr_forced id)")" = forced-dynamic ]
ok $? "cost rule: hash 8/456 (512 B element, 512 B object) forced ($(mode_of "$(fr fr_forced id)"))"
for m in fr_kept_round fr_kept_pcpu fr_kept_small fr_kept_lru; do
	[ "$(fr $m forced_dynamic)" = 0 ] && [ "$(fr $m force_kept)" = 1 ] &&
		[ "$(mode_of "$(fr $m id)")" = prealloc-kept ]
	ok $? "cost rule: $m keeps preallocation (forced_dynamic $(fr $m forced_dynamic), force_kept $(fr $m force_kept), mode $(mode_of "$(fr $m id)"))"
done
[ "$(fr fr_dyn forced_dynamic)" = 0 ] && [ "$(fr fr_dyn force_kept)" = 0 ] &&
	[ "$(mode_of "$(fr fr_dyn id)")" = dynamic ]
ok $? "cost rule: a BPF_F_NO_PREALLOC map is neither ($(mode_of "$(fr fr_dyn id)"))"

echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
for mode in 0 1; do
	echo $mode >$S
	CG=/sys/fs/cgroup/fd-sc-$mode
	mkdir -p $CG
	syscall-workload -s >$T/wl.$mode 2>&1 &
	wpid=$!
	wait_for '^pid ' $T/wl.$mode $wpid
	sh -c "echo \$\$ >$CG/cgroup.procs && exec syscount -p $wpid -T 30" >$T/sc.$mode 2>&1 &
	spid=$!
	wait_for 'Ctrl' $T/sc.$mode $spid
	set -- $(maps_of $spid)
	eval "sc_maps_$mode=$1 sc_hash_$mode=$2 sc_forced_$mode=$3 sc_memlock_$mode=$4"
	eval "sc_cur_$mode=$(cat $CG/memory.current)"
	bpfmem maps -p $spid >$T/scmaps.$mode 2>&1
	kill -USR1 $wpid
	wait $wpid
	kill -INT $spid
	wait $spid
	sed 's/^/#   syscount: /' $T/sc.$mode
	sed 's/^/#   bpfmem maps: /' $T/scmaps.$mode
	rmdir $CG

	CG=/sys/fs/cgroup/fd-tt-$mode
	mkdir -p $CG
	sh -c "echo \$\$ >$CG/cgroup.procs && exec tcptop -C -S 120 1" >$T/tt.$mode 2>&1 &
	tpid=$!
	wait_attached $tpid 2
	set -- $(maps_of $tpid)
	eval "tt_maps_$mode=$1 tt_hash_$mode=$2 tt_forced_$mode=$3 tt_memlock_$mode=$4"
	eval "tt_cur_$mode=$(cat $CG/memory.current)"
	flowgen tcp 127.0.0.1 7000 3 $MiB >$T/gen.$mode
	sleep 1.5
	kill -INT $tpid
	wait $tpid
	sed 's/^/#   tcptop: /' $T/tt.$mode | head -n 8
	eval "tt_rx_$mode=$(awk '$2 == "flowgen" { s += $(NF - 1) } END { print s + 0 }' $T/tt.$mode)"
	eval "tt_tx_$mode=$(awk '$2 == "flowgen" { s += $NF } END { print s + 0 }' $T/tt.$mode)"
	rmdir $CG
done
echo 0 >$S

for s in getppid openat nanosleep; do
	a=$(col $T/sc.0 $s 2) b=$(col $T/sc.1 $s 2)
	[ -n "$a" ] && [ "$a" = "$b" ]
	ok $? "syscount: $s count the same with the switch off and on ($a, $b)"
done
[ "$(col $T/sc.1 getppid 2)" = 1000 ]; ok $? "syscount: getppid counted right (1000)"
[ "$sc_forced_0" = 0 ] && [ "$sc_hash_1" -gt 0 ] && [ "$sc_forced_1" = "$sc_hash_1" ]
ok $? "syscount: off: no map forced ($sc_forced_0); on: all $sc_hash_1 hash maps forced ($sc_forced_1)"
grep -q 'forced-dynamic' $T/scmaps.1 && ! grep -q 'forced-dynamic' $T/scmaps.0
ok $? "syscount: bpfmem maps reports its maps as forced-dynamic only with the switch on"
echo "# syscount memlock $sc_memlock_0 -> $sc_memlock_1, memcg $sc_cur_0 -> $sc_cur_1"
[ "$sc_memlock_1" -lt "$sc_memlock_0" ]
ok $? "syscount: memlock drops ($sc_memlock_0 -> $sc_memlock_1 bytes)"
[ "$sc_cur_1" -lt "$sc_cur_0" ]
ok $? "syscount: memcg charge drops ($sc_cur_0 -> $sc_cur_1 bytes)"

echo "# tcptop RX_KB $tt_rx_0 / $tt_rx_1, TX_KB $tt_tx_0 / $tt_tx_1"
[ "$tt_tx_0" -ge 6000 ] && [ "$tt_rx_0" -ge 6000 ]
ok $? "tcptop (off): saw the traffic (RX $tt_rx_0 KB, TX $tt_tx_0 KB, 2 x 3 MiB each way)"
d=$((tt_tx_1 - tt_tx_0)); [ $d -lt 0 ] && d=$((-d))
e=$((tt_rx_1 - tt_rx_0)); [ $e -lt 0 ] && e=$((-e))
[ $d -le 8 ] && [ $e -le 8 ]
ok $? "tcptop: the same bytes with the switch on (TX $tt_tx_0 vs $tt_tx_1, RX $tt_rx_0 vs $tt_rx_1 KB, +-8 KB rounding)"
[ "$tt_forced_0" = 0 ] && [ "$tt_hash_1" -gt 0 ] && [ "$tt_forced_1" = "$tt_hash_1" ]
ok $? "tcptop: off: no map forced ($tt_forced_0); on: all $tt_hash_1 hash maps forced ($tt_forced_1)"
echo "# tcptop memlock $tt_memlock_0 -> $tt_memlock_1, memcg $tt_cur_0 -> $tt_cur_1"
[ "$tt_memlock_1" -lt "$tt_memlock_0" ]
ok $? "tcptop: memlock drops ($tt_memlock_0 -> $tt_memlock_1 bytes)"
[ "$tt_cur_1" -lt "$tt_cur_0" ]
ok $? "tcptop: memcg charge drops ($tt_cur_0 -> $tt_cur_1 bytes)"
done_testing
