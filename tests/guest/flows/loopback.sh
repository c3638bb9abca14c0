# SPDX-License-Identifier: GPL-2.0
# Loopback traffic, IPv4 and IPv6, TCP and UDP (fentry): exact bytes per flow,
# unconnected UDP receivers (one flow per peer). Sourced by
# /tests/flows.sh, whose helpers and settings it uses.
# ---- loopback, IPv4 and IPv6, TCP and UDP, fentry ----
start_flows /tmp/lo.json -j --closed -i 1 -T 0
{
	flowgen tcp 127.0.0.1 5000 $NCONN $MiB &&
	flowgen tcp ::1 5000 $NCONN $MiB &&
	flowgen udp 127.0.0.1 5001 $NDGRAM $DGRAM &&
	flowgen udp ::1 5001 $NDGRAM $DGRAM &&
	flowgen tcp ::ffff:127.0.0.1 5000 2 $MiB &&
	flowgen udp ::ffff:127.0.0.1 5001 100 $DGRAM
} >/tmp/lo.gen
ok $? "flowgen on loopback: $NCONN TCP x 1 MiB each way and $NDGRAM x $DGRAM B UDP, v4, v6 and v4-mapped v6"
sleep 1.5
stop_flows
relax_if_missed /tmp/lo.json $? "bpfmem flows -j on SIGINT" fentry
grep -c '^flow tcp' /tmp/lo.gen | grep -qx $((2 * NCONN + 2)); ok $? "flowgen reported $((2 * NCONN + 2)) TCP flows"
# lo MTU 65536: MSS 65483 (IPv4); IPv6 65476 - use the smaller for both
check_gen /tmp/lo.json /tmp/lo.gen 65476
ok $? "loopback: every flow and its mirror closed with exact bytes, packets in bounds"
for fam in ipv4 ipv6; do
	for p in tcp udp; do
		n=$(awk "$AWKLIB"' /"type":"closed"/ && g("family") == "'$fam'" && g("proto") == "'$p'" &&
		    g("tx_bytes") > 0 && g("rx_bytes") > 0 && g("tx_packets") > 0 && g("rx_packets") > 0 { n++ }
		    END { print n + 0 }' /tmp/lo.json)
		[ "$n" -gt 0 ]; ok $? "loopback: $fam $p flows with both directions ($n)"
	done
done
l=$(last_interval /tmp/lo.json live_flows)
n=$(grep -c '"type":"closed","reason":"tcp_close"' /tmp/lo.json)
if [ $RELAX = 0 ]; then
	[ "$l" = 0 ]; ok $? "map empty after the flows closed (live_flows 0)"
	[ "$n" = $((4 * NCONN + 4)) ]; ok $? "one tcp_close record per TCP socket ($n, expected $((4 * NCONN + 4)))"
else
	[ "$l" -le "$_miss" ]; ok $? "map holds at most the $_miss missed teardowns ($l)"
	[ $((n + l)) -ge $((4 * NCONN + 4)) ] && [ "$n" -le $((4 * NCONN + 4)) ]
	ok $? "one tcp_close record per TCP socket, or still in the map ($n + $l, expected $((4 * NCONN + 4)))"
fi
grep '"type":"summary"' /tmp/lo.json | grep -q '"dropped":{"map_full":0,"alloc":0,"ringbuf":0,"args":0,"missed":'"$_miss"'}'
ok $? "no dropped events (missed runs: $_miss)"
grep '"type":"summary"' /tmp/lo.json | grep -q '"maps":\[{"name":"flows".*"prealloc":false,"memlock":[0-9]'
ok $? "summary reports the flow map's memory"
sed -n 's/.*"type":"summary"/{"type":"summary"/p' /tmp/lo.json | cut -c1-300 | sed 's/^/# /'
check "JSON output parses (strict validator, $(wc -l </tmp/lo.json) lines)" flowgen json /tmp/lo.json
printf '{"a":1,}\n' | flowgen json >/dev/null 2>&1; [ $? != 0 ]; ok $? "the JSON validator rejects invalid JSON"
# IPv6 printed in compressed form
grep -q '"laddr":"::1"' /tmp/lo.json; ok $? "IPv6 addresses in compressed form (::1)"
grep -q '"family":"ipv6","proto":"udp","laddr":"::ffff:127.0.0.1"' /tmp/lo.json
ok $? "v4-mapped IPv6 sockets: one flow each (checked exact above: no double counting)"

# ---- unconnected UDP receivers: a datagram's bytes and packets on one flow ----
start_flows /tmp/ow.json -j --closed -i 1
{
	flowgen udp-oneway ::1 5010 $OW_N $OW_SIZE &&
	flowgen udp-oneway 127.0.0.1 5011 $OW_N $OW_SIZE &&
	flowgen udp-oneway ::ffff:127.0.0.1 5012 100 $OW_SIZE
} >/tmp/ow.gen
ok $? "flowgen udp-oneway: $OW_N x $OW_SIZE B to unconnected receivers (recv/read), v6, v4, v4-mapped"
sleep 1.5
stop_flows
relax_if_missed /tmp/ow.json $? "udp-oneway" fentry
check_oneway /tmp/ow.json /tmp/ow.gen
ok $? "unconnected UDP receivers: one flow per peer with bytes and packets, owned by the receiver"
