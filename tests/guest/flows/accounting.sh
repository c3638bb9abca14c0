# SPDX-License-Identifier: GPL-2.0
# What is counted: -H size histograms, interval sums (every byte once), map full and
# ring buffer full reported. Sourced by /tests/flows.sh, whose helpers and settings it
# uses.
# ---- -H: payload bytes per send and receive call ----
# 200 datagrams of 1234 B from a connected client, each echoed by the server: 400
# sends and 400 receives, all in slot 10 (1024-2047 B)
start_flows /tmp/h.json -j -i 60 -H --proto udp
flowgen udp 127.0.0.1 5007 200 1234 >/dev/null
ok $? "flowgen udp: 200 x 1234 B echoed"
sleep 0.5
stop_flows
rc=$?
miss=$(missed_json /tmp/h.json)
ht=$(grep '"type":"interval"' /tmp/h.json | tail -n1 | sed -n 's/.*"size_hist_log2":{"tx":\(\[[0-9,]*\]\).*/\1/p')
hr=$(grep '"type":"interval"' /tmp/h.json | tail -n1 | sed -n 's/.*"size_hist_log2":{[^}]*"rx":\(\[[0-9,]*\]\).*/\1/p')
want='[0,0,0,0,0,0,0,0,0,0,400]'
if [ "$miss" = 0 ]; then
	[ "$ht" = "$want" ] && [ "$hr" = "$want" ] && [ $rc = 0 ]
else
	echo "$ht $hr" | grep -q '^\[0,0,0,0,0,0,0,0,0,0,[0-9]*\] \[0,0,0,0,0,0,0,0,0,0,[0-9]*\]$' && [ $rc = 3 ]
fi
ok $? "-H: send sizes $ht, receive sizes $hr (expected $want; $miss missed, exit $rc)"
bpfmem flows -H -d 1 --proto udp >/tmp/h.txt 2>&1
grep -q 'payload bytes per send call' /tmp/h.txt && grep -q 'payload bytes per receive call' /tmp/h.txt
ok $? "-H in text: both histograms printed"

# ---- interval sums: every byte counted once ----
# Connections held open across map reads (-i 0.1, HOLD ms): many flows that were in
# the last interval's read close right around the next one; the bytes summed over all
# interval rows must be exactly what the workload sent (1 byte each way, 2 sockets);
# with missed runs (see churn), short by at most 1 byte per miss, never over
start_flows /tmp/sum.json -j -i 0.1 -T 0 --proto tcp
flowgen churn 127.0.0.1 6003 $SUMN $SUMCONC $SUMHOLD >/tmp/sum.gen
ok $? "churn: $SUMN connections, $SUMCONC at a time, held $SUMHOLD ms ($(cat /tmp/sum.gen))"
sleep 1
stop_flows
rc=$?
set -- $(sum_bytes /tmp/sum.json 6003)
miss=$(missed_json /tmp/sum.json)
d=$(grep '"type":"summary"' /tmp/sum.json | grep -c '"dropped":{"map_full":0,"alloc":0,"ringbuf":0,"args":0')
exp=$((2 * SUMN))
if [ "$miss" = 0 ]; then
	[ "$1" = $exp ] && [ "$2" = $exp ] && [ "$d" = 1 ] && [ $rc = 0 ]
	ok $? "interval rows sum to the traffic: tx $1 rx $2 bytes, expected $exp each (nothing dropped: $d, exit $rc)"
else
	[ "$1" -le $exp ] && [ "$2" -le $exp ] && [ $(($1 + miss)) -ge $exp ] &&
		[ $(($2 + miss)) -ge $exp ] && [ "$d" = 1 ] && [ $rc = 3 ]
	ok $? "interval rows sum to the traffic: tx $1 rx $2 bytes, expected $exp each, short by at most the $miss missed runs reported (exit $rc)"
fi

# ---- map full and ring buffer full are reported ----
start_flows /tmp/full.txt --max-entries 4 -i 1 --closed
flowgen churn 127.0.0.1 6001 64 16 >/dev/null
sleep 1.5
stop_flows
rc=$?
sed 's/^/# /' /tmp/full.txt.err
[ $rc = 3 ] && grep -q 'events dropped (map full)' /tmp/full.txt &&
	grep -q '^bpfmem flows: .*dropped (map full)' /tmp/full.txt.err
ok $? "--max-entries 4 with 32 concurrent sockets: map full reported, exit 3 (got $rc)"
# a ring of 4096 B holds 30 closed records: 400 closes in one 60 s interval are all
# delivered because the programs wake the tool up when the ring is half full (before
# that wakeup, records past the first 30 were dropped). Paced, each connection held
# 10 ms: 15 records (half the ring) take ~80 ms to arrive, time for the woken tool to
# run even in a loaded TCG guest (unpaced, a gate run with two guests per host CPU
# dropped 90 of 400)
start_flows /tmp/rbw.json -j --closed -i 60 --ringbuf 4096
flowgen churn 127.0.0.1 6004 200 1 10 >/dev/null
sleep 1
stop_flows
rc=$?
d=$(grep '"type":"summary"' /tmp/rbw.json | awk "$AWKLIB"' { print g("ringbuf") }')
n=$(grep -c '"type":"closed"' /tmp/rbw.json)
miss=$(missed_json /tmp/rbw.json)
if [ "$miss" = 0 ]; then
	[ $rc = 0 ] && [ "${d:-x}" = 0 ] && [ "$n" = 400 ]
else	# a missed teardown has no record (see churn)
	[ $rc = 3 ] && [ "${d:-x}" = 0 ] && [ "$n" -le 400 ] && [ $((n + miss)) -ge 400 ]
fi
ok $? "--ringbuf 4096, 400 closes in one interval: $n delivered (woken at half full), $d dropped, $miss missed (exit $rc)"
# the tool stopped (SIGSTOP) while the sockets close: the ring fills, what does not fit
# is counted as dropped
start_flows /tmp/rb.json -j --closed -i 60 --ringbuf 4096
kill -STOP "$FPID"
flowgen churn 127.0.0.1 6002 200 >/dev/null
kill -CONT "$FPID"
sleep 1
stop_flows
rc=$?
d=$(grep '"type":"summary"' /tmp/rb.json | awk "$AWKLIB"' { print g("ringbuf") }')
n=$(grep -c '"type":"closed"' /tmp/rb.json)
miss=$(missed_json /tmp/rb.json)
[ $rc = 3 ] && [ "${d:-0}" -gt 0 ] && [ "$n" -le 30 ] && [ $((n + d)) -le 400 ] &&
	[ $((n + d + miss)) -ge 400 ]
ok $? "--ringbuf 4096, 400 closes while the tool is stopped: $d records dropped and counted, $n delivered, $miss missed (exit $rc)"
[ "$(last_interval /tmp/rb.json live_flows)" = 0 ]; ok $? "ring buffer full: entries still evicted"
