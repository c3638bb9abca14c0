# SPDX-License-Identifier: GPL-2.0
# bpfmem flows in the guest: exact per-flow payload bytes against flowgen's known
# traffic (loopback IPv4/IPv6, veth between two network namespaces), plausible packet
# counts, closed-flow records and an empty map afterwards, unconnected UDP receivers
# (one row per peer), churn, interval sums equal to the traffic (no flow counted
# twice), map-full and ring-buffer-full reporting, kprobe mode, filters, tcptop side
# by side, JSON, errors.
# usage: flows.sh FLAVOR   (needs --add /bin/ip --add /usr/sbin/tcptop)
. /tests/lib.sh
flavor=${1:-base}
MiB=1048576
NCONN=10
NDGRAM=1000
DGRAM=512
CHURN=${FLOWS_CHURN:-10000}	# TCG does ~200-400 conn/s: ~40 s
OW_N=1000 OW_SIZE=1234		# udp-oneway datagrams
SUMN=2000 SUMCONC=32 SUMHOLD=120	# interval sums: connections held across map reads
KPMISS=24			# calls blocked at once (kretprobe maxactive: max(10, 2 x CPUs))
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
# scaled down on debug (KASAN + lockdep) and on Debian's kernels (suite compat: four
# kernels in the gate; what they check is that the tool works on a kernel without
# the series, not how it holds up under volume, which base and rt check)
case "$flavor" in debug|deb*|distro*) CHURN=1000 NCONN=4 SUMN=500 ;; esac

# field KEY: value of "KEY": in a JSON line on stdin (numbers and strings)
AWKLIB='function g(k,   m) {
	if (!match($0, "\"" k "\":(\"[^\"]*\"|[-0-9]+)"))
		return ""
	m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	gsub(/"/, "", m)
	return m
}'

start_flows() {	# start_flows OUT ARGS... : bpfmem flows in the background, waits for it
	out=$1
	shift
	bpfmem flows "$@" >"$out" 2>"$out.err" &
	FPID=$!
	# ready when the programs are attached
	i=0
	while [ $i -lt 300 ] && ! grep -q '"type":"start"\|^Tracing' "$out" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
stop_flows() {	# SIGINT, returns its exit status
	kill -INT "$FPID"
	wait "$FPID"
}

# check_flow FILE PROTO LADDR LPORT RADDR RPORT TXB RXB PKTMIN_TX PKTMIN_RX PKTMAX
#   the closed record of that flow has exactly TXB/RXB payload bytes and packet
#   counts within [PKTMIN, PKTMAX]; prints its netns
check_flow() {
	awk -v proto="$2" -v la="$3" -v lp="$4" -v ra="$5" -v rp="$6" -v txb="$7" -v rxb="$8" \
	    -v mintx="$9" -v minrx="${10}" -v max="${11}" -v relax="$RELAX" "$AWKLIB"'
	/"type":"closed"/ && g("proto") == proto && g("laddr") == la && g("lport") == lp &&
	    g("raddr") == ra && g("rport") == rp {
		n++
		tb = g("tx_bytes"); rb = g("rx_bytes"); tp = g("tx_packets"); rpk = g("rx_packets")
		ns = g("netns")
	}
	END {
		if (relax && n == 0) {	# its teardown run was missed: still in the map
			print "missed"
			exit 0
		}
		if (n != 1) { printf "# %s %s:%s -> %s:%s: %d closed records\n", proto, la, lp, ra, rp, n; exit 1 }
		if (relax) {	# runs were missed: never more than the workload did
			if (tb + 0 > txb || rb + 0 > rxb || tp + 0 > max || rpk + 0 > max) {
				printf "# %s %s:%s -> %s:%s: bytes tx %s rx %s packets %s %s over %s %s %s\n",
				    proto, la, lp, ra, rp, tb, rb, tp, rpk, txb, rxb, max
				exit 1
			}
			print ns
			exit 0
		}
		if (tb != txb || rb != rxb) {
			printf "# %s %s:%s -> %s:%s: bytes tx %s rx %s, expected %s %s\n", proto, la, lp, ra, rp, tb, rb, txb, rxb
			exit 1
		}
		if (tp + 0 < mintx || rpk + 0 < minrx || tp + 0 > max || rpk + 0 > max) {
			printf "# %s %s:%s -> %s:%s: packets tx %s rx %s outside [%s|%s, %s]\n", proto, la, lp, ra, rp, tp, rpk, mintx, minrx, max
			exit 1
		}
		print ns
	}' "$1"
}

# check_gen FILE GENOUT MSS : every flow flowgen printed (client view) and its mirror
# (server view) have exact closed records; packet bounds: >= bytes/MSS (rounded up),
# <= (tx+rx bytes)/500 + 100 for TCP (data + ACKs), exactly NDGRAM for UDP
check_gen() {
	file=$1 gen=$2 mss=$3 bad=0 nflows=0
	while read -r tag proto la lp ra rp tx rx; do
		[ "$tag" = flow ] || continue
		nflows=$((nflows + 1))
		if [ "$proto" = udp ]; then
			n=$((tx / DGRAM))
			cns=$(check_flow "$file" udp "$la" "$lp" "$ra" "$rp" "$tx" "$rx" $n $n $n) || bad=1
			sns=$(check_flow "$file" udp "$ra" "$rp" "$la" "$lp" "$rx" "$tx" $n $n $n) || bad=1
		else
			mintx=$(((tx + mss - 1) / mss)) minrx=$(((rx + mss - 1) / mss))
			max=$(((tx + rx) / 500 + 100))
			cns=$(check_flow "$file" tcp "$la" "$lp" "$ra" "$rp" "$tx" "$rx" $mintx $minrx $max) || bad=1
			sns=$(check_flow "$file" tcp "$ra" "$rp" "$la" "$lp" "$rx" "$tx" $minrx $mintx $max) || bad=1
		fi
		echo "$cns $sns" >>"$file.netns"
		# check_flow's reasons ("# ..." lines) came with its output: show them
		printf '%s\n%s\n' "$cns" "$sns" | grep '^#'
	done <"$gen"
	[ "$nflows" -gt 0 ] || { echo "# no flows from flowgen"; bad=1; }
	return $bad
}

# check_oneway FILE GENOUT : flowgen udp-oneway (sender bound, unconnected; receiver
# bound, unconnected, reading without asking for the peer): the sender's flow exact;
# the receiver's socket has exactly one flow, keyed by the datagrams' source, with
# their bytes and packets together, owned by the receiving process
check_oneway() {
	file=$1 gen=$2 bad=0 nflows=0
	while read -r tag a1 a2 a3 a4 a5 a6 a7; do
		case $tag in
		flow) la=$a2 lp=$a3 ra=$a4 rp=$a5 tx=$a6; continue ;;
		receiver) rpid=$a1 ;;
		*) continue ;;
		esac
		nflows=$((nflows + 1))
		n=$((tx / OW_SIZE))
		check_flow "$file" udp "$la" "$lp" "$ra" "$rp" "$tx" 0 $n 0 $n >/dev/null || bad=1
		awk -v la="$la" -v lp="$lp" -v ra="$ra" -v rp="$rp" -v b="$tx" -v n=$n -v pid="$rpid" \
		    -v relax="$RELAX" "$AWKLIB"'
		/"type":"closed"/ && g("laddr") == ra && g("lport") == rp {
			k++
			row = sprintf("raddr %s rport %s pid %s tx %s/%s rx %s/%s", g("raddr"), g("rport"),
			    g("pid"), g("tx_bytes"), g("tx_packets"), g("rx_bytes"), g("rx_packets"))
			rows = rows "\n#   " row
			rxb = g("rx_bytes") + 0; rxp = g("rx_packets") + 0
			good = g("raddr") == la && g("rport") == lp && g("pid") == pid &&
			    g("rx_bytes") == b && g("rx_packets") == n && g("tx_bytes") == 0 &&
			    g("tx_packets") == 0
		}
		END {
			if (k == 1 && good)
				exit 0
			if (relax && k <= 1 && rxb <= b && rxp <= n)
				exit 0
			printf "# receiver %s:%s (pid %s, %d x from %s:%s): %d rows, expected 1 with rx %s/%s%s\n",
			    ra, rp, pid, n, la, lp, k, b, n, rows
			exit 1
		}' "$file" || bad=1
	done <"$gen"
	[ "$nflows" -gt 0 ] || { echo "# no flows from flowgen udp-oneway"; bad=1; }
	return $bad
}

# sum_bytes FILE PORT: "TX RX" summed over the rows of every interval (flows with
# PORT as local or remote port): each byte once, whenever its flow closed
sum_bytes() {
	awk -v port="$2" '/"type":"interval"/ {
		n = split($0, f, /\},\{/)
		for (i = 1; i <= n; i++) {
			if (f[i] !~ "\"lport\":" port "," && f[i] !~ "\"rport\":" port ",")
				continue
			if (match(f[i], /"tx_bytes":[0-9]+/))
				tx += substr(f[i], RSTART + 11, RLENGTH - 11)
			if (match(f[i], /"rx_bytes":[0-9]+/))
				rx += substr(f[i], RSTART + 11, RLENGTH - 11)
		}
	}
	END { print tx + 0, rx + 0 }' "$1"
}

# After a run: RELAX=1 when the kernel skipped runs of the programs and the tool
# reported them (PREEMPT_RT, see churn below; exit status 3): per-flow checks then
# accept counts short of the workload, or a flow whose teardown was missed, and
# still fail on anything over it. RC: the tool's exit status. fentry: with
# kernel.bpf_rt_nonpreempt 1 (the default: the tool's programs ask, series v17) or 2
# (PREEMPT_RT, series patch 20) an fentry run may not miss at all: the packet and
# teardown programs run non-preemptible, the others wait.
relax_if_missed() {	# relax_if_missed FILE RC DESC [fentry]
	_miss=$(missed_json "$1")
	RELAX=0
	if [ "$_miss" = 0 ]; then
		[ "$2" = 0 ]; ok $? "$3: exits 0 (got $2)"
	else
		_np=$(cat /proc/sys/kernel/bpf_rt_nonpreempt 2>/dev/null)
		if [ "${4:-}" = fentry ] && { [ "$_np" = 1 ] || [ "$_np" = 2 ]; }; then
			ok 1 "$3: $_miss missed runs, where none may be (PREEMPT_RT, kernel.bpf_rt_nonpreempt=$_np)"
		fi
		RELAX=1
		[ "$2" = 3 ]; ok $? "$3: $_miss missed runs reported, exit 3 (got $2); checks below allow counts short of the workload"
	fi
}
RELAX=0

last_interval() {	# last_interval FILE KEY
	grep '"type":"interval"' "$1" | tail -n1 | awk "$AWKLIB"' { print g("'"$2"'") }'
}

# ---- errors: one line, non-zero exit ----
ERR_TOOL=flows
err_case "bad -s" "invalid -s" bpfmem flows -s bogus
err_case "bad --proto" "invalid --proto" bpfmem flows --proto icmp
err_case "bad --ringbuf" "invalid --ringbuf" bpfmem flows --ringbuf 5000
err_case "bad -T" "invalid -T" bpfmem flows -T -1
err_case "bad -i" "invalid number of seconds" bpfmem flows -i 0
err_case "-4 with -6" "exclusive" bpfmem flows -4 -6
err_case "extra argument" "unexpected argument" bpfmem flows 1 2
err_case "nonexistent PID" "no such process" bpfmem flows -p 999999
err_case "nonexistent cgroup" "no such cgroup" bpfmem flows -c /sys/fs/cgroup/nonexistent
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
err_case "no privilege" "no privilege" su nobody -s /bin/sh -c 'bpfmem flows -d 1'
mount -t tmpfs none /sys/kernel/btf
err_case "no BTF" "BTF not found" bpfmem flows -d 1
umount /sys/kernel/btf

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

# ---- one TCP socket connecting again (connect(AF_UNSPEC) between): each of its
# connections is a flow of its own, closed when the socket disconnects (the key
# changes there) or is destroyed ----
RDN=5
for hook in fentry kprobe; do
	start_flows /tmp/rd.json -j --closed -i 1 -T 0 --hook $hook
	flowgen redial 127.0.0.1 5002 $RDN 100000 >/tmp/rd.gen
	ok $? "flowgen redial ($hook): one socket, $RDN connections, disconnected between them"
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
	# intermittent with --hook kprobe on Debian's kernels, 2 vCPUs (2026-12-07): show them
	[ $rc = 0 ] || { sed 's/^/#   gen: /' /tmp/rd.gen
		grep '"type":"closed"' /tmp/rd.json | sed 's/"netns[^}]*"laddr"/"laddr"/; s/,"tx_bytes_total.*//; s/^/#   /'; }
	l=$(last_interval /tmp/rd.json live_flows)
	[ $RELAX = 1 ] || [ "$l" = 0 ]; ok $? "redial ($hook): map empty afterwards (live_flows $l)"
	w=$(grep '"type":"summary"' /tmp/rd.json | awk "$AWKLIB"' { print g("close_walks") }')
	[ "$w" = 0 ] || [ $hook = kprobe ]; ok $? "redial ($hook): no TCP close searched the map (close_walks $w)"
done

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

# ---- filters ----
start_flows /tmp/f4.json -j --closed -i 1 -4 --proto udp
{ flowgen tcp 127.0.0.1 5000 2 1000 && flowgen udp ::1 5001 10 100 &&
  flowgen udp 127.0.0.1 5001 10 100; } >/tmp/f4.gen
sleep 1.5
stop_flows
rc=$?
n=$(grep -c '"type":"closed"' /tmp/f4.json)
m=$(grep '"type":"closed"' /tmp/f4.json | grep -c '"family":"ipv4","proto":"udp"')
miss=$(missed_json /tmp/f4.json)
if [ $isrt = yes ] && [ "$miss" -gt 0 ]; then
	# PREEMPT_RT without the series: a missed run may lose a flow's record; the filter
	# still lets nothing else through, and the misses are reported (exit 3)
	[ $rc = 3 ] && [ "$n" = "$m" ] && [ "$n" -le 2 ] && [ $((n + miss)) -ge 2 ]
	ok $? "-4 --proto udp: only IPv4 UDP flows ($n records, $m matching, $miss missed runs reported, exit $rc)"
else
	[ "$n" = 2 ] && [ "$m" = 2 ]; ok $? "-4 --proto udp: only the 2 IPv4 UDP flows ($n records, $m matching, exit $rc)"
fi
[ "$n" = 2 ] || grep '"type":"closed"\|"type":"summary"' /tmp/f4.json | cut -c1-400 | sed 's/^/#   /'
# -c includes descendant cgroups: sockets created in flowtest/child count too
mkdir -p /sys/fs/cgroup/flowtest/child
start_flows /tmp/cg.json -j --closed -i 1 -c /sys/fs/cgroup/flowtest
flowgen tcp 127.0.0.1 5000 1 1000 >/dev/null
sh -c 'echo $$ >/sys/fs/cgroup/flowtest/cgroup.procs; exec flowgen tcp 127.0.0.1 5002 2 3000' >/tmp/cg.gen
sh -c 'echo $$ >/sys/fs/cgroup/flowtest/child/cgroup.procs; exec flowgen tcp 127.0.0.1 5006 1 2000' >>/tmp/cg.gen
sleep 1.5
stop_flows
n=$(grep -c '"type":"closed"' /tmp/cg.json)
m=$(grep '"type":"closed"' /tmp/cg.json | grep -c '"tx_bytes":3000,"rx_bytes":3000')
c=$(grep '"type":"closed"' /tmp/cg.json | grep -c '"tx_bytes":2000,"rx_bytes":2000')
[ "$n" = 6 ] && [ "$m" = 4 ] && [ "$c" = 2 ]
ok $? "-c CGROUP: only the 4 sockets created in the cgroup and the 2 in its child ($n records, $m of 3000 B, $c of 2000 B)"
rmdir /sys/fs/cgroup/flowtest/child
flowgen udp-server 127.0.0.1 5003 20 100 /tmp/r4 &
spid=$!
start_flows /tmp/p.json -j --closed -i 1 -p $spid
flowgen udp-client 127.0.0.1 5003 20 100 >/dev/null
wait $spid
sleep 1.5
stop_flows
n=$(grep -c '"type":"closed"' /tmp/p.json)
m=$(grep '"type":"closed"' /tmp/p.json | grep -c "\"pid\":$spid,")
[ "$n" = 1 ] && [ "$m" = 1 ]; ok $? "-p PID: only the flow owned by $spid ($n records, $m matching)"

# ---- idle UDP flows are reported and evicted by userspace ----
# (the server starts after the tool: a recvfrom() already blocked when the fexit
# programs attach returns through the old code and is not counted)
start_flows /tmp/idle.json -j --closed -i 0.5 --idle 1
rm -f /tmp/r5
flowgen udp-server 127.0.0.1 5004 1000 100 /tmp/r5 >/dev/null &
spid=$!
while ! [ -e /tmp/r5 ]; do sleep 0.1; done
flowgen udp-client 127.0.0.1 5004 5 100 >/tmp/idle.gen
# evicted at the first interval after 1 s idle: wait for it (60 s at most; a loaded
# host slows a TCG guest, a fixed 3 s once missed it), then for two more intervals
wait_for '"reason":"udp_idle".*"lport":5004,' /tmp/idle.json $FPID
sleep 1
n=$(grep '"type":"closed","reason":"udp_idle"' /tmp/idle.json | grep -c '"lport":5004,.*"tx_bytes":500,"rx_bytes":500,')
m=$(grep -c '"type":"closed","reason":"udp_destroy"' /tmp/idle.json)
l=$(last_interval /tmp/idle.json live_flows)
kill $spid
wait $spid
stop_flows
frc=$?
miss=$(missed_json /tmp/idle.json)
if [ $isrt = yes ] && [ "$miss" -gt 0 ]; then
	# PREEMPT_RT without the series: a missed run may cost the server flow packets
	# (or its teardown); reported, exit 3, and no more records than flows
	n=$(grep '"type":"closed","reason":"udp_idle"' /tmp/idle.json | grep -c '"lport":5004,')
	[ $frc = 3 ] && [ "$n" -le 1 ] && [ "$m" -le 1 ]
	rc=$?
	ok $rc "--idle 1: server flow evicted as udp_idle ($n), the client's by udp_destroy ($m), $miss missed runs reported (exit $frc)"
else
	[ "$n" = 1 ] && [ "$m" = 1 ] && [ "$l" = 0 ]
	rc=$?
	ok $rc "--idle 1: the open but idle server flow evicted as udp_idle with its counts ($n), the client's by udp_destroy ($m), live $l"
fi
[ $rc = 0 ] || grep '"type":"closed"\|"type":"summary"' /tmp/idle.json | cut -c1-400 | sed 's/^/#   /'

# ---- churn: the map holds only live flows ----
# On PREEMPT_RT fentry/fexit programs run preemptible (migrate_disable only): when
# another task hits the same hook on that CPU while one run is preempted, the kernel
# skips it (the program's recursion guard) and counts a miss, which the tool reports
# ("missed", exit 3). Exact checks hold when nothing was missed; otherwise the counts
# may fall short by at most what was reported, and nothing is invented.
start_flows /tmp/churn.json -j --closed -i 0.25
flowgen churn 127.0.0.1 6000 $CHURN 4 >/tmp/churn.gen
ok $? "churn: $CHURN short TCP connections, 4 at a time ($(cat /tmp/churn.gen))"
sleep 1
stop_flows
rc=$?
miss=$(missed_json /tmp/churn.json)
maxlive=$(grep '"type":"interval"' /tmp/churn.json | awk "$AWKLIB"' { v = g("live_flows") + 0; if (v > m) m = v } END { print m + 0 }')
endlive=$(last_interval /tmp/churn.json live_flows)
n=$(grep -c '"type":"closed","reason":"tcp_close"' /tmp/churn.json)
echo "# churn: missed $miss, exit $rc, max live $maxlive, live at the end $endlive, closed $n"
if [ "$miss" = 0 ]; then
	# at most 4 client + 4 server sockets open at once; margin 4 (sampled every 0.25 s)
	[ "$maxlive" -le 12 ]; ok $? "churn: live flows never above 8 open sockets + 4 (max sampled $maxlive)"
	[ "$endlive" = 0 ]; ok $? "churn: back to 0 live flows"
	[ "$n" = $((2 * CHURN)) ]; ok $? "churn: $((2 * CHURN)) closed records ($n)"
	[ $rc = 0 ]; ok $? "churn: exit 0 (got $rc)"
else
	# a missed teardown leaves its flow in the map: every socket is either closed
	# or still there, and no more are left than runs were missed
	[ "$maxlive" -le $((12 + miss)) ]
	ok $? "churn: live flows never above 12 + $miss missed (max sampled $maxlive)"
	[ "$endlive" -le "$miss" ] && [ $((n + endlive)) = $((2 * CHURN)) ]
	ok $? "churn: $n closed + $endlive left (<= $miss missed) = $((2 * CHURN)) sockets"
	[ $rc = 3 ]; ok $? "churn: $miss missed runs reported, exit 3 (got $rc)"
fi
if [ "$(last_interval /tmp/churn.json map_elements)" != "" ]; then
	# the kernel's own count (bpfmem series: fdinfo elements)
	maxel=$(grep '"type":"interval"' /tmp/churn.json | awk "$AWKLIB"' { v = g("map_elements") + 0; if (v > m) m = v } END { print m + 0 }')
	[ "$maxel" -le $((12 + miss)) ] && [ "$(last_interval /tmp/churn.json map_elements)" = "$endlive" ]
	ok $? "churn: fdinfo elements never above 12 + $miss missed (max sampled $maxel), $endlive at the end"
else
	skip "churn: fdinfo elements" "kernel without the bpfmem series"
fi
grep '"type":"summary"' /tmp/churn.json | grep -q '"dropped":{"map_full":0,"alloc":0,"ringbuf":0'
ok $? "churn: nothing dropped"

# ---- UDP closes find their flows through socket storage (fentry) ----
# UDPN connected UDP sockets, one datagram each, closed one after the other; the
# receiver (one flow per peer) last. Every client socket has a udp_destroy record;
# the receiver has one per distinct client port (the kernel may give a port again
# to a later socket: that peer's flow has its bytes). With fentry a socket with one
# peer finds its flow through socket storage and only the receiver walks the map
# (close_walks 1; a margin of 1 for a UDP socket of the guest closing meanwhile);
# kprobe programs cannot use socket storage: every UDP close walks
UDPN=200
[ "$flavor" = debug ] && UDPN=50
for hook in fentry kprobe; do
	f=/tmp/uc.$hook.json
	start_flows $f -j --closed -i 60 --proto udp --hook $hook
	flowgen udp-churn 127.0.0.1 6005 $UDPN >/tmp/uc.gen
	ok $? "udp-churn ($hook): $(cat /tmp/uc.gen)"
	sleep 0.5
	stop_flows
	rc=$?
	miss=$(missed_json $f)
	grep '"type":"closed","reason":"udp_destroy"' $f >/tmp/uc.closed
	nc=$(grep -c '"rport":6005,' /tmp/uc.closed)
	ns=$(grep -c '"lport":6005,' /tmp/uc.closed)
	ports=$(grep '"rport":6005,' /tmp/uc.closed | sed 's/.*"lport":\([0-9]*\),.*/\1/' | sort -u | wc -l)
	rx=$(grep '"lport":6005,' /tmp/uc.closed | awk "$AWKLIB"' { s += g("rx_bytes_total") } END { print s + 0 }')
	w=$(grep '"type":"summary"' $f | awk "$AWKLIB"' { print g("close_walks") }')
	echo "# udp-churn $hook: client records $nc, receiver records $ns for $ports ports, rx $rx B, close_walks $w, missed $miss, exit $rc"
	if [ "$miss" = 0 ]; then
		[ "$nc" = $UDPN ] && [ "$ns" = "$ports" ] && [ "$rx" = $UDPN ] && [ $rc = 0 ]
	else
		[ "$nc" -le $UDPN ] && [ $((nc + miss)) -ge $UDPN ] && [ "$rx" -le $UDPN ] && [ $rc = 3 ]
	fi
	ok $? "udp-churn ($hook): $nc of $UDPN client sockets and the receiver's $ns flows ($ports peers, $rx of $UDPN B) closed with a record ($miss missed, exit $rc)"
	if [ $hook = fentry ]; then
		[ -n "$w" ] && [ "$w" -ge 1 ] && [ "$w" -le 2 ]
		ok $? "udp-churn (fentry): $UDPN one-peer sockets closed without a map walk (close_walks $w: the receiver)"
	else
		[ -n "$w" ] && [ "$w" -ge $((UDPN + 1 - miss)) ]
		ok $? "udp-churn (kprobe): every UDP close walks the map (close_walks $w >= $((UDPN + 1)) - $miss missed)"
	fi
done

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

# ---- side by side with libbpf-tools tcptop ----
if command -v tcptop >/dev/null; then
	tcptop -C -S 120 1 >/tmp/tcptop.txt 2>&1 &
	tpid=$!
	start_flows /tmp/tt.json -j --closed -i 1
	# tcptop attached: its 2 kprobes (perf events / bpf links) are open
	wait_attached $tpid 2
	echo "# tcptop attached: $_attached kprobe fds after $_waited x 0.1 s"
	sleep 0.5
	flowgen tcp 127.0.0.1 7000 3 $MiB >/tmp/tt.gen
	sleep 1
	kill -INT $tpid
	wait $tpid
	stop_flows
	sed 's/^/# tcptop: /' /tmp/tcptop.txt | head -n 12
	# tcptop keys flows by inet_num, which the kernel zeroes when a socket reaches
	# TIME_WAIT/CLOSE with data still unread: the client's last reads then land on a
	# "LADDR:0" row. So: server rows and client TX equal per connection, client RX
	# per connection <= ours, and the client's RX (with the :0 rows) equal in total.
	# A record may be missing only when the tool reported missed runs: on PREEMPT_RT a
	# close hook that found its program busy inside a lock section (issue 18); on any
	# kernel a teardown run from the socket's backlog (task context, softirqs enabled)
	# with a softirq on top reaching the same program, skipped by design (rare; see
	# rtloss.sh). The total is then not comparable, the connections we have still are.
	tmiss=$(missed_json /tmp/tt.json)
	bad=0 tt_crx=0 our_crx=0 lost=0
	while read -r tag proto la lp ra rp tx rx; do
		for dir in c s; do
			if [ $dir = c ]; then
				l=$la:$lp r=$ra:$rp
				set -- "$la" "$lp" "$ra" "$rp"
			else
				l=$ra:$rp r=$la:$lp
				set -- "$ra" "$rp" "$la" "$lp"
			fi
			t=$(awk -v l="$l" -v r="$r" '$3 == l && $4 == r { rx += $5; tx += $6; n++ } END { if (n) print rx, tx }' /tmp/tcptop.txt)
			o=$(awk -v la="$1" -v lp="$2" -v ra="$3" -v rp="$4" "$AWKLIB"'
			    /"type":"closed"/ && g("laddr") == la && g("lport") == lp && g("raddr") == ra && g("rport") == rp {
				print int(g("rx_bytes") / 1024), int(g("tx_bytes") / 1024) }' /tmp/tt.json)
			echo "# $l -> $r: tcptop RX_KB TX_KB '$t', bpfmem flows KB '$o'"
			if [ -n "$t" ] && [ -z "$o" ] && [ "${tmiss:-0}" -gt 0 ]; then
				lost=$((lost + 1))
				continue
			fi
			[ -n "$t" ] && [ -n "$o" ] || { bad=1; continue; }
			if [ $dir = s ]; then
				[ "$t" = "$o" ] || bad=1
			else
				set -- $t $o
				[ "$2" = "$4" ] && [ "$1" -le "$3" ] || bad=1
				our_crx=$((our_crx + $3))
			fi
		done
	done </tmp/tt.gen
	set -- $(awk '$4 == "127.0.0.1:7000" { rx += $5; n++ } END { print rx + 0, n + 0 }' /tmp/tcptop.txt)
	tt_crx=$1
	echo "# client RX total: tcptop $tt_crx KB in $2 rows (each rounded down), bpfmem flows $our_crx KB"
	echo "# bpfmem flows reported ${tmiss:-?} missed runs, $lost socket records missing"
	[ $lost -le "${tmiss:-0}" ] || bad=1
	[ $lost -gt 0 ] || { [ "$tt_crx" -le "$our_crx" ] && [ "$tt_crx" -gt $((our_crx - $2)) ]; } || bad=1
	ok $bad "tcptop and bpfmem flows agree per connection (KB; $lost records missing, $tmiss missed runs reported)"
else
	skip "tcptop side by side" "tcptop not in the guest (--add /usr/sbin/tcptop)"
fi

# ---- text output and Ctrl-C ----
start_flows /tmp/txt.out -i 10
flowgen tcp 127.0.0.1 5000 1 5000 >/dev/null
kill -INT $FPID
wait $FPID
rc=$?
# exit 3 = counts incomplete: only with missed runs reported (the only "dropped" line),
# on PREEMPT_RT (a close hook that found its program busy inside a lock section, issue
# 18) and, rarely, on any kernel (a program of flows skipped in a softirq on top of its
# own run in task context, by design: see rtloss.sh)
m=$(sed -n 's/^\([0-9][0-9]*\) events dropped (missed.*/\1/p' /tmp/txt.out | tail -n 1)
nd=$(grep -c '^[0-9][0-9]* events dropped' /tmp/txt.out)
[ $rc = 0 ] || { [ $rc = 3 ] && [ "${m:-0}" -gt 0 ] && [ "$nd" = 1 ]; }
ok $? "Ctrl-C in the middle of an interval exits 0 (rc $rc; 3 allowed with missed runs reported: ${m:-0})"
grep -q '^PID .*RX_BYTES' /tmp/txt.out && grep -q 'tcp *127.0.0.1:5000 ' /tmp/txt.out &&
	grep -q '^map flows .*dynamic' /tmp/txt.out
ok $? "text output: the last interval printed (with its flows) and the map memory"
sed 's/^/# /' /tmp/txt.out | tail -n 8
done_testing
