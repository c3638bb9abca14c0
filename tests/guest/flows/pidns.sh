# SPDX-License-Identifier: GPL-2.0
# In a container's pid namespace (unshare -p -f --mount-proc): -p takes the pid there
# and the rows show it (bpf_get_ns_current_pid_tgid), as syscalls does. Sourced by
# /tests/flows.sh, whose helpers and settings it uses.
# ---- pid namespace ----
cat >/tmp/fns.sh <<'NS'
flowgen udp-server 127.0.0.1 5013 20 100 /tmp/rns &
spid=$!
bpfmem flows -j --closed -i 1 -p $spid >/tmp/fns.json 2>/tmp/fns.err &
f=$!
i=0
while [ $i -lt 300 ] && ! grep -q '"type":"start"' /tmp/fns.json 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
flowgen udp-client 127.0.0.1 5013 20 100 >/dev/null
wait $spid
sleep 1.5
kill -INT $f
wait $f
echo "fns server $spid rc $?"
NS
if unshare -p -f --mount-proc true 2>/dev/null; then
	unshare -p -f --mount-proc sh /tmp/fns.sh >/tmp/fns.out 2>&1
	sed 's/^/#   /' /tmp/fns.out /tmp/fns.err
	nspid=$(awk '$1 == "fns" { print $3 }' /tmp/fns.out)
	rc=$(awk '$1 == "fns" { print $5 }' /tmp/fns.out)
	n=$(grep -c '"type":"closed"' /tmp/fns.json)
	m=$(grep '"type":"closed"' /tmp/fns.json | grep -c "\"pid\":$nspid,")
	[ -n "$nspid" ] && [ "$nspid" -lt 100 ]
	ok $? "pid namespace: the server has a pid of the namespace ($nspid)"
	if [ "$rc" = 3 ] && [ "$(missed_json /tmp/fns.json)" -gt 0 ]; then
		# PREEMPT_RT without the series: a missed run may lose the flow's record
		[ "$n" = "$m" ] && [ "$n" -le 1 ]
		ok $? "pid namespace: -p $nspid lets only its flow through ($n records, $m with its pid; missed runs reported, exit 3)"
	else
		[ "$rc" = 0 ] && [ "$n" = 1 ] && [ "$m" = 1 ]
		ok $? "pid namespace: -p $nspid finds the flow it owns, labelled with that pid ($n records, $m matching, exit $rc)"
	fi
	[ "$n" = 1 ] || grep '"type":"closed"\|"type":"summary"' /tmp/fns.json | cut -c1-300 | sed 's/^/#   /'
else
	skip "pid namespace: -p" "unshare -p cannot make a pid namespace here"
fi
