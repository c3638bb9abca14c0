# SPDX-License-Identifier: GPL-2.0
# The kprobe fallback, and no args entry left behind by a missed kretprobe. Sourced by
# /tests/flows.sh, whose helpers and settings it uses.
# ---- kprobe fallback ----
start_flows /tmp/kp.json -j --closed -i 1 --hook kprobe
{ flowgen tcp 127.0.0.1 5000 3 $MiB && flowgen udp ::1 5001 200 $DGRAM; } >/tmp/kp.gen
ok $? "flowgen under --hook kprobe"
sleep 1.5
stop_flows
relax_if_missed /tmp/kp.json $? "bpfmem flows --hook kprobe"
grep -q '"hook":"kprobe"' /tmp/kp.json; ok $? "kprobe mode reported"
check_gen /tmp/kp.json /tmp/kp.gen 65476
ok $? "kprobe: exact bytes, packets in bounds"
l=$(last_interval /tmp/kp.json live_flows)
[ "$l" = 0 ] || { [ $RELAX = 1 ] && [ "$l" -le "$_miss" ]; }
ok $? "kprobe: map empty afterwards, or holding only missed teardowns ($l)"
RELAX=0

# ---- kprobe mode: a missed kretprobe leaves no args entry behind ----
# more calls blocked at once (tcp_recvmsg) than the kretprobe has instances
# (maxactive): the returns of some are missed, their entries must go when their
# processes exit
start_flows /tmp/kpm.json -j -i 1 --hook kprobe
flowgen block 127.0.0.1 5100 $KPMISS 2 >/tmp/kpm.gen
ok $? "flowgen block: $(cat /tmp/kpm.gen)"
sleep 1.5
stop_flows
n=$(grep '"type":"summary"' /tmp/kpm.json | sed 's/.*"name":"args"//' | awk "$AWKLIB"' { print g("elements") }')
if [ -n "$n" ]; then
	[ "$n" = 0 ]; ok $? "kprobe: $KPMISS calls blocked at once, all killed: args map empty ($n entries)"
else
	skip "kprobe: args entries after missed kretprobes" "kernel without the bpfmem series (no fdinfo elements)"
fi
