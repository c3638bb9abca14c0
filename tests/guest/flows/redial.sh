# SPDX-License-Identifier: GPL-2.0
# One TCP socket connecting again, fentry and kprobe. Sourced by /tests/flows.sh, whose
# helpers and settings it uses (FLOWS_PARTS="redial redial ..." repeats it).
# ---- one TCP socket connecting again (connect(AF_UNSPEC) between): each of its
# connections is a flow of its own, closed when the socket disconnects (the key
# changes there) or is destroyed ----
RDN=5
for hook in ${REDIAL_HOOKS:-fentry kprobe}; do
	start_flows /tmp/rd.json -j --closed -i 1 -T 0 --hook $hook
	t0=$(date +%s)
	flowgen redial 127.0.0.1 5002 $RDN 100000 >/tmp/rd.gen
	rc=$? t1=$(date +%s)
	ok $rc "flowgen redial ($hook): one socket, $RDN connections, disconnected between them"
	# the closed records (client and server side of each connection) come with the
	# next interval: wait for them (a loaded host delays the interval), 15 s at most
	for _i in $(seq 30); do
		[ "$(grep -c '"type":"closed"' /tmp/rd.json)" -ge $((2 * RDN)) ] && break
		sleep 0.5
	done
	sleep 1.5
	stop_flows
	relax_if_missed /tmp/rd.json $? "bpfmem flows --hook $hook (redial)" $hook
	check_gen /tmp/rd.json /tmp/rd.gen 65476
	rc=$?
	ok $rc "redial ($hook): every connection of the socket closed with exact bytes, and its server side"
	# on a failure, what the run saw (CI shows these lines: tests/summary.py)
	[ $rc = 0 ] || { echo "#   attached after $FSTART s; $(grep -c '"type":"interval"' /tmp/rd.json) intervals; stderr: $(head -c 200 /tmp/rd.json.err)"
		sed 's/^/#   gen: /' /tmp/rd.gen
		echo "#   flowgen ran from $t0 to $t1 (interval ts, live_flows, map_elements, flows:)"
		grep '"type":"interval"' /tmp/rd.json | awk "$AWKLIB"' { n = gsub(/"lport"/, "&")
			printf "#   %s %s %s %d\n", g("ts"), g("live_flows"), g("map_elements"), n }'
		grep '"type":"summary"' /tmp/rd.json | cut -c1-400 | sed 's/^/#   /'
		grep '"type":"closed"' /tmp/rd.json | sed 's/"netns[^}]*"laddr"/"laddr"/; s/,"tx_bytes_total.*//; s/^/#   /'; }
	l=$(last_interval /tmp/rd.json live_flows)
	[ $RELAX = 1 ] || [ "$l" = 0 ]; ok $? "redial ($hook): map empty afterwards (live_flows $l)"
	w=$(grep '"type":"summary"' /tmp/rd.json | awk "$AWKLIB"' { print g("close_walks") }')
	[ "$w" = 0 ] || [ $hook = kprobe ]; ok $? "redial ($hook): no TCP close searched the map (close_walks $w)"
done
