# SPDX-License-Identifier: GPL-2.0
# A veth pair between two network namespaces: flows per namespace. Sourced by
# /tests/flows.sh, whose helpers and settings it uses.
# ---- veth between two network namespaces ----
# iproute2 (--add /bin/ip), by path: busybox sh runs its own applets before $PATH
IP=/usr/bin/ip
# Debian's own kernels (deb*) and the series on Debian's config (distro*) build veth
# as a module, and the guest loads none
if { [ "${flavor#deb}" != "$flavor" ] || [ "${flavor#distro}" != "$flavor" ]; } &&
	! grep -qw veth_newlink /proc/kallsyms; then
	skip "veth between network namespaces" "kernel $flavor has veth as a module (CONFIG_VETH=m), the guest loads no modules"
elif [ -x $IP ] && $IP netns add peer 2>/tmp/ip.err; then
	$IP link add vf0 type veth peer name vf1 &&
	$IP link set vf1 netns peer &&
	$IP addr add 10.99.0.1/24 dev vf0 &&
	$IP -6 addr add fd00:99::1/64 dev vf0 nodad &&
	$IP link set vf0 up &&
	$IP -n peer addr add 10.99.0.2/24 dev vf1 &&
	$IP -n peer -6 addr add fd00:99::2/64 dev vf1 nodad &&
	$IP -n peer link set vf1 up &&
	$IP -n peer link set lo up
	ok $? "veth pair vf0 <-> vf1 (netns peer) configured"
	start_flows /tmp/veth.json -j --closed -i 1
	rm -f /tmp/r1 /tmp/r2 /tmp/r3
	$IP netns exec peer flowgen tcp-server 10.99.0.2 5000 $NCONN $MiB /tmp/r1 &
	s1=$!
	$IP netns exec peer flowgen tcp-server fd00:99::2 5000 $NCONN $MiB /tmp/r2 &
	s2=$!
	$IP netns exec peer flowgen udp-server 10.99.0.2 5001 $NDGRAM $DGRAM /tmp/r3 &
	s3=$!
	i=0
	while [ $i -lt 100 ] && ! [ -e /tmp/r1 ] || ! [ -e /tmp/r2 ] || ! [ -e /tmp/r3 ]; do
		sleep 0.1; i=$((i + 1))
		[ $i -gt 200 ] && break
	done
	{
		flowgen tcp-client 10.99.0.2 5000 $NCONN $MiB &&
		flowgen tcp-client fd00:99::2 5000 $NCONN $MiB &&
		flowgen udp-client 10.99.0.2 5001 $NDGRAM $DGRAM
	} >/tmp/veth.gen
	rc=$?
	wait $s1 && wait $s2 && wait $s3
	ok $((rc | $?)) "flowgen over veth: TCP v4+v6 and UDP v4, client and servers exact"
	sleep 1.5
	stop_flows
	relax_if_missed /tmp/veth.json $? "veth: bpfmem flows" fentry
	# veth MTU 1500: MSS 1440 (IPv6, 1448 IPv4)
	check_gen /tmp/veth.json /tmp/veth.gen 1440
	ok $? "veth: every flow (both namespaces) closed with exact bytes, packets in bounds"
	sort -u /tmp/veth.json.netns | sed 's/^/# netns client server: /' | head -n3
	awk '/missed/ { next } $1 == $2 || $1 == "" { bad = 1 } END { exit bad }' /tmp/veth.json.netns
	ok $? "veth: client and server flows carry different network namespaces"
	l=$(last_interval /tmp/veth.json live_flows)
	[ "$l" = 0 ] || { [ $RELAX = 1 ] && [ "$l" -le "$_miss" ]; }
	ok $? "veth: map empty afterwards, or holding only missed teardowns ($l)"
	$IP link del vf0
	$IP netns del peer
else
	skip "veth between network namespaces" "iproute2 ip netns unavailable (--add /bin/ip): $(head -c 200 /tmp/ip.err 2>/dev/null)"
fi
