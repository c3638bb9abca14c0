# SPDX-License-Identifier: GPL-2.0
# bpfmem exporter: scrapes (busybox wget, nc) parse (prom-check), a known map's
# memlock and elements equal its fdinfo, OpenMetrics on request, program stats on request
# only while running, malformed requests (bad method, '..' path, oversized header,
# garbage, slow client, 40 idle connections: the oldest evicted, scrapes still served)
# get their status and the exporter keeps serving, scrapes while ~100 maps are created
# and destroyed are all whole, a slow collection (3000 maps) does not hold up the index
# and concurrent scrapes share it and one rendered body, it serves them under the
# unit's limits (memory.max, cpu.max, pids.max) and capabilities, the default
# --interval and the data's age, SIGTERM ends it with exit 0, bad options are refused.
# usage: exporter.sh FLAVOR (base)
. /tests/lib.sh
flavor=${1:-base}
CG=/sys/fs/cgroup/bpfmem-exp
URL=http://127.0.0.1:9731
echo "# kernel $flavor"

# one request on a raw connection; the response (headers and body) on stdout
raw() {	# raw REQUEST_TEXT (printf format)
	printf "$1" | timeout 20 nc 127.0.0.1 9731
}
status_of() {	# status_of FILE: the status code of a raw response
	sed -n '1s/^HTTP\/1\.1 \([0-9]*\) .*/\1/p' "$1" | tr -d '\r'
}
scrape() {	# scrape FILE: GET /metrics into FILE
	timeout 20 wget -q -O "$1" $URL/metrics
}
scrapes_at_once() {	# scrapes_at_once PORT PREFIX N TIMEOUT: N scrapes into /tmp/PREFIXk.txt
	pids=""			# in the background, their pids in $pids
	_k=1
	while [ $_k -le "$3" ]; do
		timeout "$4" wget -q -O /tmp/$2$_k.txt http://127.0.0.1:$1/metrics &
		pids="$pids $!"
		_k=$((_k + 1))
	done
}
all_maps() {	# all_maps FILE: a scrape with all of mapscale's 3000 maps, and it parses
	[ "$(grep -c '^bpfmem_map_memlock_bytes{' "$1")" -ge 3000 ] && prom-check <"$1" >/dev/null
}
value() {	# value FILE SERIES_PREFIX: the value of the first sample starting with it
	awk -v p="$2" 'index($0, p) == 1 { print $NF; exit }' "$1"
}

maps-holder -c $CG >/tmp/mh.txt 2>/tmp/mh.err &
hpid=$!
wait_for '^ready' /tmp/mh.txt $hpid; ok $? "maps-holder created its maps (pid $hpid)"
fdseries=no
cat /proc/$hpid/fdinfo/* 2>/dev/null | grep -q '^elements:' && fdseries=yes
echo "# fdinfo series lines: $fdseries"

# --interval 0: every scrape collects (the checks below want fresh data)
bpfmem exporter --bpf-stats --interval 0 >/tmp/exp.out 2>/tmp/exp.err &
epid=$!
wait_for 'listening on' /tmp/exp.err $epid; ok $? "exporter listens (default 127.0.0.1:9731)"
sed 's/^/# exporter: /' /tmp/exp.err
# --bpf-stats: an fd that keeps run-time stats on while held (the sysctl does not show it)
ls -l /proc/$epid/fd | grep -q 'anon_inode:bpf-stats'; ok $? "--bpf-stats: the exporter holds a BPF_ENABLE_STATS fd"

scrape /tmp/m.txt; ok $? "GET /metrics"
prom-check </tmp/m.txt >/tmp/pc.txt 2>&1; ok $? "scrape is valid text format 0.0.4 ($(cat /tmp/pc.txt))"
missing=""
for f in bpfmem_map_memlock_bytes bpfmem_map_elements bpfmem_map_max_entries \
	bpfmem_map_utilisation_ratio bpfmem_memcg_memory_current_bytes \
	bpfmem_memcg_slab_unreclaimable_bytes bpfmem_memcg_percpu_bytes \
	bpfmem_prog_run_time_seconds_total bpfmem_prog_runs_total \
	bpfmem_prog_recursion_misses_total bpfmem_prog_owner_processes \
	bpfmem_exporter_scrape_duration_seconds \
	bpfmem_exporter_read_errors_total bpfmem_build_info bpfmem_exporter_data_age_seconds \
	bpfmem_exporter_connections_evicted_total; do
	grep -q "^# HELP $f " /tmp/m.txt && grep -q "^# TYPE $f " /tmp/m.txt || missing="$missing $f"
done
[ -z "$missing" ]; ok $? "HELP and TYPE of every family${missing:+ -- missing:$missing}"
ver=$(bpfmem --version | awk '{ print $NF }')
grep -q "^bpfmem_build_info{version=\"$ver\",libbpf=\"[0-9]*\.[0-9]*\"} 1\$" /tmp/m.txt
ok $? "$(grep '^bpfmem_build_info' /tmp/m.txt) (bpfmem --version: $ver)"

# the holder's maps against their fdinfo
while read -r _ name _ id _ type _ key _ value _ max _ flags _ elems _ memlock; do
	bad=""
	fdi=$(map_fdinfo $hpid $id)
	kmem=$(echo "$fdi" | sed -n 's/^memlock:[[:space:]]*//p')
	kel=$(echo "$fdi" | sed -n 's/^elements:[[:space:]]*//p')
	[ -n "$kel" ] || kel=$elems	# without the series: what the holder put in
	labels="{id=\"$id\",name=\"$name\","
	got=$(value /tmp/m.txt "bpfmem_map_memlock_bytes$labels")
	[ "$got" = "$kmem" ] || bad="$bad memlock=$got (fdinfo $kmem)"
	got=$(value /tmp/m.txt "bpfmem_map_elements$labels")
	if [ $name = mh_queue ]; then
		[ -z "$got" ] || bad="$bad elements=$got (want no series)"
	else
		[ "$got" = "$kel" ] || bad="$bad elements=$got (fdinfo $kel)"
	fi
	got=$(value /tmp/m.txt "bpfmem_map_max_entries$labels")
	[ "$got" = "$max" ] || bad="$bad max_entries=$got"
	# identity labels only (stable over the map's life); memcg and owner in the info series
	grep -F "bpfmem_map_memlock_bytes$labels" /tmp/m.txt |
		grep -q '^bpfmem_map_memlock_bytes{id="[0-9]*",name="[a-z_]*",type="[a-z_]*",mode="[a-z-]*"} ' ||
		bad="$bad labels other than id,name,type,mode"
	grep -F "bpfmem_map_info$labels" /tmp/m.txt |
		grep -q "memcg=\"/bpfmem-exp\",memcg_source=\"objcg\",owner=\"maps-holder\",owner_pids=\"$hpid\"} 1\$" ||
		bad="$bad info series (memcg/owner)"
	[ -z "$bad" ]; ok $? "map $name (id $id): memlock $kmem, elements, max_entries, labels${bad:+ -- wrong:$bad}"
done <<EOF
$(grep '^map ' /tmp/mh.txt)
EOF
grep '^bpfmem_map_.*mh_hash_dyn' /tmp/m.txt | sed 's/^/# /'
n=$(grep '^bpfmem_map_[a-z_]*{' /tmp/m.txt | grep -v '^bpfmem_map_info{' | grep -c '[{,]\(memcg\|memcg_source\|owner\|owner_pids\)=')
[ "$n" = 0 ]; ok $? "no per-map value series carries memcg or owner labels ($n do)"
got=$(value /tmp/m.txt 'bpfmem_map_utilisation_ratio{id="'"$(awk '$2 == "mh_hash_dyn" { print $4 }' /tmp/mh.txt)"'"')
[ "$got" = 0.3 ]; ok $? "utilisation of mh_hash_dyn (300 of 1000) is 0.3 (got $got)"
grep -q '^bpfmem_memcg_memory_current_bytes{memcg="/bpfmem-exp"} [1-9]' /tmp/m.txt
ok $? "memory.current of the holder's memcg"
grep -q '^bpfmem_prog_runs_total{id="[0-9]*",name="dump_maps",type="tracing"} [1-9]' /tmp/m.txt
ok $? "program stats: the exporter's own map iterator has runs"
grep -q '^bpfmem_prog_stats_enabled{by="exporter"} 1$' /tmp/m.txt; ok $? "bpfmem_prog_stats_enabled{by=\"exporter\"} 1"

# formats, index, HEAD
timeout 20 wget -q -S -O /tmp/om.txt --header 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	$URL/metrics 2>/tmp/om.hdr
rc=$?
[ $rc = 0 ] && grep -qi 'Content-Type: application/openmetrics-text; version=1.0.0' /tmp/om.hdr &&
	[ "$(tail -n1 /tmp/om.txt)" = '# EOF' ] && grep -q '^# TYPE bpfmem_prog_runs counter$' /tmp/om.txt &&
	grep -q '^bpfmem_prog_runs_total{' /tmp/om.txt
ok $? "OpenMetrics when Accept asks: content type, counter families, # EOF"
timeout 20 wget -q -S -O /dev/null $URL/metrics 2>/tmp/txt.hdr
grep -qi 'Content-Type: text/plain; version=0.0.4' /tmp/txt.hdr && ! grep -q '# EOF' /tmp/m.txt
ok $? "text format 0.0.4 by default, no # EOF"
timeout 20 wget -q -O /tmp/index.txt $URL/ && [ "$(wc -l </tmp/index.txt)" = 1 ] &&
	grep -q '/metrics' /tmp/index.txt
ok $? "GET /: one-line index ($(cat /tmp/index.txt))"
raw 'HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >/tmp/head.txt
len=$(sed -n 's/^Content-Length: \([0-9]*\).*/\1/p' /tmp/head.txt)
[ "$(status_of /tmp/head.txt)" = 200 ] && [ "${len:-0}" -gt 1000 ] &&
	[ "$(tail -c 2 /tmp/head.txt | od -An -c | tr -d ' ')" = '\r\n' ]
ok $? "HEAD /metrics: 200, Content-Length $len, no body"

# malformed requests
check_status() {	# check_status WANT DESC REQUEST
	raw "$3" >/tmp/r.txt
	got=$(status_of /tmp/r.txt)
	[ "$got" = "$1" ]; ok $? "$2: $1 (got ${got:-nothing})"
}
check_status 404 "unknown path" 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'
check_status 405 "POST" 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n'
grep -q '^Allow: GET, HEAD' /tmp/r.txt; ok $? "405 names the allowed methods"
check_status 405 "DELETE" 'DELETE / HTTP/1.1\r\nHost: x\r\n\r\n'
check_status 400 "'..' path" 'GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n'
check_status 400 "encoded '..' path" 'GET /metrics/%%2e%%2e/x HTTP/1.1\r\nHost: x\r\n\r\n'
check_status 400 "garbage request line" 'hello there\r\n\r\n'
check_status 400 "HTTP/1.1 without Host" 'GET /metrics HTTP/1.1\r\n\r\n'
check_status 400 "header without a colon" 'GET /metrics HTTP/1.1\r\nHost: x\r\nbogus\r\n\r\n'
check_status 505 "HTTP/2.0 request line" 'GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n'
big=$(head -c 9000 /dev/zero | tr '\0' a)
check_status 431 "9000-byte header" "GET /metrics HTTP/1.1\\r\\nHost: x\\r\\nX-Big: $big\\r\\n\\r\\n"
check_status 414 "9000-byte request line" "GET /$big HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
scrape /tmp/m2.txt && prom-check </tmp/m2.txt >/dev/null; ok $? "still serving after the malformed requests"

# slowloris: a client that sends half a request and waits does not block others
(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n'; sleep 9) | timeout 20 nc 127.0.0.1 9731 >/tmp/slow.txt &
spid=$!
sleep 1
t0=$(date +%s)
scrape /tmp/m3.txt && prom-check </tmp/m3.txt >/dev/null
rc=$?
t1=$(date +%s)
[ $rc = 0 ] && [ $((t1 - t0)) -le 3 ]; ok $? "a scrape during a slow client is served at once ($((t1 - t0)) s)"
wait $spid
[ "$(status_of /tmp/slow.txt)" = 408 ]; ok $? "the slow client gets 408 after the read timeout"

# connection cap: 40 idle connections; at the cap of 32 each new one evicts the oldest
# without a whole request (408), so a scrape among them is served at once
i=0
idle=""
while [ $i -lt 40 ]; do
	sleep 7 | timeout 20 nc 127.0.0.1 9731 >/tmp/idle.$i.txt &
	idle="$idle $!"
	i=$((i + 1))
done
sleep 2
t0=$(cut -d' ' -f1 /proc/uptime)
scrape /tmp/m4.txt && prom-check </tmp/m4.txt >/dev/null
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
el=$(awk "BEGIN { print $t1 - $t0 }")
[ $rc = 0 ] && awk "BEGIN { exit !($el <= 3) }"
ok $? "a scrape with 40 idle connections open is served at once ($el s)"
wait $idle
n503=$(cat /tmp/idle.*.txt | grep -c '^HTTP/1.1 503')
n408=$(cat /tmp/idle.*.txt | grep -c '^HTTP/1.1 408')
[ "$n503" = 0 ] && [ "$n408" = 40 ]
ok $? "the idle ones got 408, evicted or timed out ($n408 of 40), none 503 ($n503)"
scrape /tmp/m4b.txt && prom-check </tmp/m4b.txt >/dev/null; ok $? "still serving after the connection flood"
rm -f /tmp/idle.*.txt

# scrapes while ~100 maps are created and destroyed: every body is whole and parses
mkdir -p /tmp/churn
touch /tmp/churn.on
(
	k=0
	while [ -e /tmp/churn.on ]; do
		scrape /tmp/churn/$k.txt || echo "scrape $k failed" >>/tmp/churn/failed
		k=$((k + 1))
	done
) &
cpid=$!
j=0
while [ $j -lt 17 ]; do	# 17 x 6 maps
	: >/tmp/ch.txt	# not the previous holder's "ready" (wait_for in lib.sh)
	maps-holder >/tmp/ch.txt 2>&1 &
	p=$!
	wait_for '^ready' /tmp/ch.txt $p
	kill $p
	wait $p 2>/dev/null
	j=$((j + 1))
done
rm /tmp/churn.on
wait $cpid
n=0
bad=0
for f in /tmp/churn/*.txt; do
	n=$((n + 1))
	if ! prom-check <$f >/dev/null 2>/tmp/pc.err ||
	   [ "$(tail -n1 $f | cut -d' ' -f1)" != bpfmem_exporter_request_timeouts_total ]; then
		bad=$((bad + 1))
		sed "s|^|# $f: |" /tmp/pc.err
	fi
done
[ ! -e /tmp/churn/failed ]; ok $? "no scrape failed during the churn"
[ $n -ge 5 ] && [ $bad = 0 ]; ok $? "all $n scrapes during the churn are whole and parse ($bad bad)"
scrape /tmp/m5.txt
value /tmp/m5.txt 'bpfmem_exporter_read_errors_total{kind="map"}' | sed 's/^/# read errors (map): /'
[ "$(grep -c '^bpfmem_map_memlock_bytes{' /tmp/m5.txt)" = "$(grep -c '^bpfmem_map_memlock_bytes{' /tmp/m.txt)" ]
ok $? "after the churn: series only for the maps that exist"
for code in 400 404 405 408 414 431 505; do
	v=$(value /tmp/m5.txt "bpfmem_exporter_http_requests_total{code=\"$code\"}")
	[ "${v:-0}" -ge 1 ] || echo "# requests with $code: ${v:-none}"
done
[ "$(value /tmp/m5.txt 'bpfmem_exporter_http_requests_total{code="505"}')" -ge 1 ] &&
	[ "$(value /tmp/m5.txt 'bpfmem_exporter_http_requests_total{code="400"}')" -ge 5 ] &&
	[ "$(value /tmp/m5.txt 'bpfmem_exporter_connections_evicted_total')" -ge 8 ]
ok $? "the exporter counts the bad requests (505 as 505) and the evicted connections"

# a slow collection (3000 maps) runs in a thread of its own: the index is answered
# while it runs, and scrapes that arrive meanwhile share it
mapscale -n 3000 -c 30 -p 0 -d /sys/fs/cgroup/bpfmem-exp-scale >/tmp/ms.txt 2>/tmp/ms.err &
mspid=$!
wait_for '^ready' /tmp/ms.txt $mspid; ok $? "mapscale holds 3000 maps"
threads() { ls /proc/${1:-$epid}/task 2>/dev/null | wc -l; }	# threads [PID]
scrape /tmp/ms1.txt &
s1=$!
k=0
while [ "$(threads)" -lt 2 ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done
raw 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >/tmp/idx.txt
during=$(threads)
[ "$(status_of /tmp/idx.txt)" = 200 ] && [ "$during" = 2 ]
ok $? "the index is answered while a collection runs (exporter threads: $during)"
c0=$(value /tmp/m5.txt 'bpfmem_exporter_collections_total')
wait $s1
# three scrapes at once: one collection, or two when one arrives after the first ended
scrape /tmp/ms2.txt & a=$!
scrape /tmp/ms3.txt & b=$!
scrape /tmp/ms4.txt & c=$!
wait $a && wait $b && wait $c; ok $? "three scrapes at once all succeed"
for f in /tmp/ms1.txt /tmp/ms2.txt /tmp/ms3.txt /tmp/ms4.txt; do
	all_maps $f ||
		echo "# $f: $(grep -c '^bpfmem_map_memlock_bytes{' $f) maps"
done
all_maps /tmp/ms4.txt
ok $? "a shared scrape has all 3000 maps and parses"
c1=$(value /tmp/ms4.txt 'bpfmem_exporter_collections_total')
scrape /tmp/ms5.txt
c2=$(value /tmp/ms5.txt 'bpfmem_exporter_collections_total')
# after m5: m5's own, the slow scrape's, then <= 2 for the three, and ms5's own
[ $((c2 - c0)) -le 4 ] && [ $((c2 - c0)) -ge 3 ]
ok $? "concurrent scrapes share a collection ($((c2 - c0 - 2)) for three scrapes; collections $c0 -> $c1 -> $c2)"

# one rendered body for all the scrapes a collection answers: 8 scrapes at once of a
# fresh exporter (--interval 60) with the 3000 maps: one collection, the same body for
# all (but the exporter's request counts and data age, of a scrape that came after the
# collection), and the memory of one body, not 8: the growth of VmHWM is measured
# against that of one scrape of another fresh exporter (a collection and a body)
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$1/status; }
bpfmem exporter --listen 127.0.0.1:9736 --interval 0 2>/tmp/exp6.err &
e6=$!
wait_for 'listening on' /tmp/exp6.err $e6
g0=$(hwm $e6)
timeout 60 wget -q -O /dev/null http://127.0.0.1:9736/metrics
g1=$(($(hwm $e6) - g0))
kill -INT $e6
wait $e6
bpfmem exporter --listen 127.0.0.1:9734 --interval 60 2>/tmp/exp4.err &
e4=$!
wait_for 'listening on' /tmp/exp4.err $e4; ok $? "exporter --interval 60 on 9734"
h0=$(hwm $e4)
scrapes_at_once 9734 b 8 60
fail=0
for p in $pids; do wait $p || fail=1; done
h1=$(hwm $e4)
kb=$(($(wc -c </tmp/b1.txt) / 1024))
same=0
differ=0
colls=""
for k in 1 2 3 4 5 6 7 8; do
	cmp -s /tmp/b1.txt /tmp/b$k.txt && same=$((same + 1))
	grep -v '^bpfmem_exporter_\(http_requests_total\|data_age_seconds\)' /tmp/b$k.txt >/tmp/bf$k.txt
	cmp -s /tmp/bf1.txt /tmp/bf$k.txt || differ=$((differ + 1))
	colls="$colls $(value /tmp/b$k.txt bpfmem_exporter_collections_total)"
done
echo "# 8 scrapes: body $kb KiB, $same byte for byte the same as the first; VmHWM $h0 -> $h1 kB (one scrape: +$g1 kB)"
[ $fail = 0 ] && [ "$(grep -c '^bpfmem_map_memlock_bytes{' /tmp/b1.txt)" -ge 3000 ] &&
	[ "$colls" = " 1 1 1 1 1 1 1 1" ] && [ $differ = 0 ]
ok $? "8 scrapes at once: one collection (collections_total:$colls), the same body ($differ differ)"
# each response with a copy of its own would be 7 bodies more than one scrape
[ $((h1 - h0)) -lt $((g1 + 4 * kb)) ]
ok $? "8 scrapes at once: memory grew by $((h1 - h0)) kB, less than one scrape's $g1 kB and 4 more bodies ($((4 * kb)) kB)"
kill -INT $e4
wait $e4

# under the unit's limits (tools/dist/bpfmem-exporter.service.in: MemoryMax=256M,
# CPUQuota=50%, TasksMax=4, which tests/unit/check-install.sh holds it to) and with
# its capabilities (dropcap -u), as systemd would run it: 8 scrapes at once and 2 more
# of the 3000 maps are whole, nothing is OOM-killed, the exporter never has more than
# 4 tasks. The gate's kernels have no cpu or pids controller (tinyconfig); Debian's do.
UCG=/sys/fs/cgroup/bpfmem-exp-unit
for c in memory cpu pids; do
	grep -qw $c /sys/fs/cgroup/cgroup.controllers && echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control
done
mkdir -p $UCG
echo 256M >$UCG/memory.max
[ -f $UCG/cpu.max ] && echo "50000 100000" >$UCG/cpu.max
[ -f $UCG/pids.max ] && echo 4 >$UCG/pids.max
sh -c "echo \$\$ >$UCG/cgroup.procs && exec dropcap -u bpfmem exporter --listen 127.0.0.1:9738 --interval 0" \
	2>/tmp/expu.err &
eu=$!
wait_for 'listening on' /tmp/expu.err $eu
ok $? "exporter in a cgroup with the unit's limits ($(tr '\n' ' ' <$UCG/cgroup.controllers 2>/dev/null| sed 's/ $//')), its capabilities"
scrapes_at_once 9738 u 8 120
maxt=0
while :; do
	t=$(threads $eu)
	[ "$t" -gt $maxt ] && maxt=$t
	alive=0
	for p in $pids; do kill -0 $p 2>/dev/null && alive=1; done
	[ $alive = 0 ] && break
	sleep 0.05
done
fail=0
for p in $pids; do wait $p || fail=1; done
timeout 120 wget -q -O /tmp/u9.txt http://127.0.0.1:9738/metrics || fail=1
timeout 120 wget -q -O /tmp/u10.txt http://127.0.0.1:9738/metrics || fail=1
whole=0
for k in 1 2 3 4 5 6 7 8 9 10; do
	all_maps /tmp/u$k.txt && whole=$((whole + 1))
done
[ $fail = 0 ] && [ $whole = 10 ]; ok $? "under the unit's limits: 10 scrapes of 3000 maps whole ($whole)"
oomk=$(sed -n 's/^oom_kill //p' $UCG/memory.events)
hits=$(sed -n 's/^max //p' $UCG/memory.events)
peak=$(cat $UCG/memory.peak 2>/dev/null || echo n/a)
kill -0 $eu && [ "$oomk" = 0 ]
ok $? "under MemoryMax=256M: alive, no OOM kill (memory.peak $peak B, memory.max reached $hits times)"
[ $maxt -ge 1 ] && [ $maxt -le 4 ]; ok $? "at most TasksMax=4 tasks during the scrapes (most seen: $maxt)"
if [ -f $UCG/pids.events ]; then
	[ "$(sed -n 's/^max //p' $UCG/pids.events)" = 0 ]; ok $? "pids.max 4 never hit"
	echo "# cpu.max 50000 100000: $(grep -E '^(usage_usec|nr_throttled|throttled_usec) ' $UCG/cpu.stat | tr '\n' ' ')"
else
	skip "pids.max 4 never hit" "no pids controller in this kernel"
fi
kill -INT $eu
wait $eu
ok $? "SIGINT: exit 0 under the unit's limits"
rmdir $UCG 2>/dev/null
kill $mspid
wait $mspid 2>/dev/null

# bad options, port in use
bpfmem exporter --listen bogus >/dev/null 2>/tmp/err.txt
[ $? = 2 ] && [ "$(wc -l </tmp/err.txt)" = 1 ] && grep -q 'invalid listen address' /tmp/err.txt
ok $? "bad --listen: one-line error, exit 2"
bpfmem exporter --listen 127.0.0.1:70000 >/dev/null 2>/tmp/err.txt
[ $? = 2 ]; ok $? "port out of range: exit 2"
bpfmem exporter --interval -1 >/dev/null 2>/tmp/err.txt
[ $? = 2 ] && grep -q 'invalid number of seconds' /tmp/err.txt; ok $? "bad --interval: exit 2"
timeout 20 bpfmem exporter >/dev/null 2>/tmp/err.txt
[ $? = 1 ] && grep -q 'cannot listen on 127.0.0.1:9731' /tmp/err.txt; ok $? "port in use: one-line error, exit 1"

# SIGTERM
kill -TERM $epid
( sleep 30; kill -KILL $epid 2>/dev/null ) &
dog=$!
wait $epid
rc=$?
kill $dog 2>/dev/null
[ $rc = 0 ]; ok $? "SIGTERM: exit 0 (rc $rc)"
# --interval: a collection is reused within the interval
bpfmem exporter --listen 127.0.0.1:9732 --interval 60 2>/tmp/exp2.err &
e2=$!
wait_for 'listening on' /tmp/exp2.err $e2
timeout 20 wget -q -O /tmp/i1.txt http://127.0.0.1:9732/metrics
timeout 20 wget -q -O /tmp/i2.txt http://127.0.0.1:9732/metrics
[ "$(value /tmp/i1.txt bpfmem_exporter_collections_total)" = 1 ] &&
	[ "$(value /tmp/i2.txt bpfmem_exporter_collections_total)" = 1 ]
ok $? "--interval 60: two scrapes, one collection"
sleep 2
timeout 20 wget -q -O /tmp/i3.txt http://127.0.0.1:9732/metrics
age=$(value /tmp/i3.txt bpfmem_exporter_data_age_seconds)
[ "$(value /tmp/i3.txt bpfmem_exporter_collections_total)" = 1 ] &&
	awk "BEGIN { exit !($age >= 2 && $age < 60) }"
ok $? "--interval 60: 2 s later the same collection, bpfmem_exporter_data_age_seconds $age"
kill -INT $e2
wait $e2
ok $? "SIGINT: exit 0"

# Without --bpf-stats the exporter turns no stats on (every BPF program on the host
# would pay a clock read per run): no BPF_ENABLE_STATS fd, and run time and runs are
# left out, unless the operator has kernel.bpf_stats_enabled at 1
echo 0 >/proc/sys/kernel/bpf_stats_enabled
# the default --interval (5 s): two scrapes in a row, one collection
bpfmem exporter --listen 127.0.0.1:9735 2>/tmp/exp5.err &
e5=$!
wait_for 'listening on' /tmp/exp5.err $e5
timeout 20 wget -q -O /tmp/d1.txt http://127.0.0.1:9735/metrics
timeout 20 wget -q -O /tmp/d2.txt http://127.0.0.1:9735/metrics
[ "$(value /tmp/d1.txt bpfmem_exporter_collections_total)" = 1 ] &&
	[ "$(value /tmp/d2.txt bpfmem_exporter_collections_total)" = 1 ]
ok $? "default --interval: two scrapes in a row, one collection"
kill -INT $e5
wait $e5
bpfmem exporter --listen 127.0.0.1:9733 --interval 0 2>/tmp/exp3.err &
e3=$!
wait_for 'listening on' /tmp/exp3.err $e3; ok $? "exporter without --bpf-stats listens"
! ls -l /proc/$e3/fd | grep -q 'anon_inode:bpf-stats'; ok $? "without --bpf-stats: no BPF_ENABLE_STATS fd"
timeout 20 wget -q -O /tmp/s0.txt http://127.0.0.1:9733/metrics
grep -q '^bpfmem_prog_stats_enabled{by="none"} 0$' /tmp/s0.txt &&
	! grep -q '^bpfmem_prog_run_time_seconds_total{' /tmp/s0.txt &&
	! grep -q '^bpfmem_prog_runs_total{' /tmp/s0.txt &&
	grep -q '^bpfmem_prog_recursion_misses_total{' /tmp/s0.txt && prom-check </tmp/s0.txt >/dev/null
ok $? "stats off: bpfmem_prog_stats_enabled{by=\"none\"} 0, no run time or runs, misses still"
echo 1 >/proc/sys/kernel/bpf_stats_enabled
timeout 20 wget -q -O /tmp/s1.txt http://127.0.0.1:9733/metrics
timeout 20 wget -q -O /tmp/s2.txt http://127.0.0.1:9733/metrics
echo 0 >/proc/sys/kernel/bpf_stats_enabled
grep -q '^bpfmem_prog_stats_enabled{by="sysctl"} 1$' /tmp/s2.txt &&
	grep -q '^bpfmem_prog_runs_total{id="[0-9]*",name="dump_maps",type="tracing"} [1-9]' /tmp/s2.txt &&
	prom-check </tmp/s2.txt >/dev/null
ok $? "kernel.bpf_stats_enabled 1: by=\"sysctl\", the exporter's own map iterator has runs"
kill -INT $e3
wait $e3
ok $? "SIGINT: exit 0"

kill $hpid
wait $hpid 2>/dev/null
rmdir $CG 2>/dev/null
done_testing
