#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real Prometheus server on the HOST (Debian's prometheus, installed by ./run) scrapes
# bpfmem exporter in the guest through QEMU's user-mode network: the harness forwards
# 127.0.0.1:HOSTPORT (loopback only) to the exporter's port in the guest. The guest
# test (tests/guest/prometheus.sh) asks this Prometheus' HTTP API (PromQL, reached from
# the guest at 10.0.2.2) for every map's memlock and elements and compares them with
# the map's fdinfo read in the guest; here, on the host, `promtool check metrics` runs
# on a scrape fetched through the same forward. Prints TAP: the guest's results, then
# the host's.
# usage: prometheus-host.sh KERNEL [LOGFILE]
set -u
k=${1:-base}
log=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
h=$here/harness/harness.sh
tmp=$(mktemp -d /tmp/bpfmem-prom.XXXXXX)
ppid="" fpid=""
cleanup() {
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null && wait "$ppid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# a free TCP port on 127.0.0.1 (nothing answers a connect)
free_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + (RANDOM * 7 + $$ + i) % 40000))
		[ "$p" = "${1:-}" ] && continue
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}
hp=$(free_port) && pp=$(free_port "$hp") || { echo "Bail out! no free port on 127.0.0.1"; exit 1; }

command -v prometheus >/dev/null && command -v promtool >/dev/null ||
	{ echo "Bail out! prometheus/promtool not installed (./run installs Debian's prometheus)"; exit 1; }
cat >"$tmp/prom.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: bpfmem
    static_configs:
      - targets: ['127.0.0.1:$hp']
EOC
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$pp" >"$tmp/prom.log" 2>&1 &
ppid=$!

# on the host: fetch one scrape through the forward while the guest runs (a whole
# body only: written aside, renamed when wget succeeded)
(
	while :; do
		if wget -q -T 5 -O "$tmp/scrape.part" "http://127.0.0.1:$hp/metrics" 2>/dev/null &&
			[ -s "$tmp/scrape.part" ]; then
			mv "$tmp/scrape.part" "$tmp/scrape.txt"
			exit 0
		fi
		sleep 0.5
	done
) &
fpid=$!

largs=()
[ -n "$log" ] && largs=(--log "$log")
# the guest's TAP without its plan; numbering continues below
"$h" --kernel "$k" --timeout 600 --tap "guest verdict" "${largs[@]}" \
	--net "tcp:127.0.0.1:$hp-:9731" \
	-- sh /tests/prometheus.sh "$k" "10.0.2.2:$pp" | tee "$tmp/guest.tap" | grep -v '^1\.\.[0-9]*$'
rc=${PIPESTATUS[0]}
n=$(grep -cE '^(ok|not ok) [0-9]+ ' "$tmp/guest.tap")
fail=0
tap() {	# tap STATUS DESC
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; fail=1; fi
}

# the guest is gone: a fetch that has not succeeded by now never will
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
fpid=""
[ -s "$tmp/scrape.txt" ]
tap $? "the host fetched a scrape through the forward 127.0.0.1:$hp -> guest :9731"
if [ -s "$tmp/scrape.txt" ]; then
	promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1
	lrc=$?
	sed 's/^/# promtool: /' "$tmp/lint.txt" | head -n 20
	tap $lrc "promtool check metrics on it: clean (exit $lrc, $(grep -vc '^#' "$tmp/scrape.txt") samples)"
else
	tap 1 "promtool check metrics: no scrape to check"
fi
kill -0 "$ppid" 2>/dev/null
tap $? "the host's Prometheus (127.0.0.1:$pp) ran through the test"
[ "$fail" = 0 ] || tail -n 20 "$tmp/prom.log" | sed 's/^/# prometheus: /'
echo "1..$n"
[ "$rc" = 0 ] && [ "$fail" = 0 ]
