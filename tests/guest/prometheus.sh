# SPDX-License-Identifier: GPL-2.0
# A real Prometheus server on the host (tests/prometheus-host.sh) scrapes bpfmem
# exporter in this guest every second through QEMU's user-mode network forward; its
# HTTP API (PromQL, the host is 10.0.2.2 here) must return the holder's maps' memlock
# and elements equal to their fdinfo, the target must be up (Prometheus parsed every
# scrape: it asks for OpenMetrics first). The host runs promtool check metrics on a
# scrape it takes through the forward.
# usage: prometheus.sh FLAVOR PROMETHEUS_ADDR:PORT   (harness --net ...-:9731)
. /tests/lib.sh
CG=/sys/fs/cgroup/bpfmem-prom
API=http://${2:?usage: prometheus.sh FLAVOR PROMETHEUS_ADDR:PORT}/api/v1
echo "# kernel ${1:-base}, Prometheus at $API"

# PromQL instant query; prints the first sample's value ("" if none)
query() {	# query EXPR (URL-encoded)
	timeout 20 wget -q -O - "$API/query?query=$1" 2>/dev/null |
		sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
}
# until query EXPR returns VALUE, 120 s max
wait_value() {	# wait_value EXPR VALUE
	local i=0
	while [ "$(query "$1")" != "$2" ]; do
		i=$((i + 1))
		[ $i -gt 240 ] && return 1
		sleep 0.5
	done
}

# user-mode network (slirp): the guest is 10.0.2.15, the host 10.0.2.2
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2
ok $? "eth0 (virtio-net on virtio-mmio) up as 10.0.2.15"

maps-holder -c $CG >/tmp/mh.txt 2>/tmp/mh.err &
hpid=$!
wait_for '^ready' /tmp/mh.txt $hpid; ok $? "maps-holder created its maps (pid $hpid)"
# a non-loopback address, given explicitly (the default is 127.0.0.1:9731)
bpfmem exporter --listen 10.0.2.15:9731 --interval 1 >/tmp/exp.out 2>/tmp/exp.err &
epid=$!
wait_for 'listening on' /tmp/exp.err $epid; ok $? "exporter listens on 10.0.2.15:9731"

timeout 20 wget -q -O /tmp/m.txt http://10.0.2.15:9731/metrics
[ -s /tmp/m.txt ]; ok $? "a scrape in the guest: $(grep -vc '^#' /tmp/m.txt) samples"

t0=$(cut -d' ' -f1 /proc/uptime)
wait_value 'up%7Bjob%3D%22bpfmem%22%7D' 1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
ok $rc "the host's Prometheus scrapes the exporter: up{job=\"bpfmem\"} == 1 (after $(awk "BEGIN { print $t1 - $t0 }") s)"

# every map of the holder: what Prometheus stored equals the kernel's fdinfo
n=0
while read -r _ name _ id _ type _ key _ value _ max _ flags _ elems _ memlock; do
	fdi=$(map_fdinfo $hpid $id)
	kmem=$(echo "$fdi" | sed -n 's/^memlock:[[:space:]]*//p')
	kel=$(echo "$fdi" | sed -n 's/^elements:[[:space:]]*//p')
	sel="%7Bjob%3D%22bpfmem%22%2Cid%3D%22$id%22%7D"
	got=$(query "bpfmem_map_memlock_bytes$sel")
	gotel=$(query "bpfmem_map_elements$sel")
	bad=""
	[ -n "$kmem" ] && [ "$got" = "$kmem" ] || bad="$bad memlock=$got (fdinfo $kmem)"
	if [ -n "$kel" ]; then
		[ "$gotel" = "$kel" ] || bad="$bad elements=$gotel (fdinfo $kel)"
	fi
	[ -z "$bad" ]; ok $? "PromQL: map $name (id $id) memlock $got, elements ${gotel:-none}${bad:+ -- wrong:$bad}"
	n=$((n + 1))
done <<EOF
$(grep '^map ' /tmp/mh.txt)
EOF
[ $n -ge 3 ]; ok $? "compared $n maps"
# the info series (OpenMetrics info family) joins memlock to the memcg the map is charged to
id=$(sed -n 's/^map mh_hash_dyn id \([0-9]*\) .*/\1/p' /tmp/mh.txt)
got=$(query "sum%20by%20(memcg)%20(bpfmem_map_memlock_bytes%7Bjob%3D%22bpfmem%22%2Cid%3D%22$id%22%7D%20*%20on(id)%20group_left(memcg)%20bpfmem_map_info%7Bjob%3D%22bpfmem%22%2Cmemcg%3D%22%2Fbpfmem-prom%22%7D)")
kmem=$(map_fdinfo $hpid $id | sed -n 's/^memlock:[[:space:]]*//p')
[ -n "$got" ] && [ "$got" = "$kmem" ]
ok $? "PromQL: memlock of mh_hash_dyn joined with bpfmem_map_info on memcg /bpfmem-prom: $got (fdinfo $kmem)"

# the exporter collects every second (--interval 1): Prometheus must see it advance
s1=$(query 'sum(bpfmem_exporter_collections_total)')
sleep 4
s2=$(query 'sum(bpfmem_exporter_collections_total)')
[ -n "$s1" ] && [ -n "$s2" ] && awk "BEGIN { exit !($s2 > $s1) }"
ok $? "PromQL: bpfmem_exporter_collections_total advances ($s1 -> $s2)"
# the target's last scrape had no error, and every sample of a scrape was stored
timeout 20 wget -q -O /tmp/targets.json "$API/targets?state=active"
grep -q '"health":"up"' /tmp/targets.json && grep -q '"lastError":""' /tmp/targets.json
ok $? "Prometheus target health up, no scrape error ($(grep -o '"lastError":"[^"]*"' /tmp/targets.json | head -n1))"
n=$(query 'scrape_samples_scraped%7Bjob%3D%22bpfmem%22%7D')
m=$(grep -vc '^#' /tmp/m.txt)
[ -n "$n" ] && [ "$n" -ge $((m / 2)) ]
ok $? "Prometheus stored $n samples per scrape (our first scrape had $m)"

kill -TERM $epid
wait $epid
ok $? "exporter exits 0 on SIGTERM"
kill $hpid 2>/dev/null
wait $hpid 2>/dev/null
rmdir $CG 2>/dev/null
done_testing
