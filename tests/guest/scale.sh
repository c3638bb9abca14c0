# SPDX-License-Identifier: GPL-2.0
# Scale benchmark (issue 33; tests/bench/scale.sh boots it): for each size N, mapscale
# holds N BPF maps in N/10 memory cgroups (one holder process each) and N/20 loaded
# programs; then `bpfmem exporter` is scraped 5 times (wall time of each scrape, the
# exporter's CPU time over them, from /proc/PID/stat) and `bpfmem maps -j` run 3 times
# (wall and CPU); every map's bpfmem_map_memlock_bytes, bpfmem_map_elements and the
# memcg of its bpfmem_map_info in a scrape are compared with the holder's fdinfo and
# cgroup (all maps, or every STRIDE-th with SCALE_STRIDE). One "scale ..." line per
# size for the host; TAP for the checks. A benchmark: no time limits asserted here.
# usage: scale.sh FLAVOR [N...] (default 100 1000 10000)
. /tests/lib.sh
flavor=${1:-base}
shift
[ $# -gt 0 ] || set -- 100 1000 10000
DIR=/sys/fs/cgroup/bpfmem-scale
PORT=9733
URL=http://127.0.0.1:$PORT/metrics
echo "# kernel $flavor, $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)"
up() { cut -d' ' -f1 /proc/uptime; }
sw() {	# sw FILE FIELD: a field of the stopwatch line in FILE
	awk -v k="$2" '$1 == "stopwatch" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cleanup() {
	[ -n "$epid" ] && kill $epid 2>/dev/null && wait $epid 2>/dev/null
	[ -n "$mpid" ] && kill $mpid 2>/dev/null && wait $mpid 2>/dev/null
	epid="" mpid=""
	# the holders die with mapscale (PR_SET_PDEATHSIG); their cgroups empty as they go
	for d in $DIR/cg*; do
		[ -d "$d" ] || continue
		i=0
		while ! rmdir $d 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	done
	rmdir $DIR 2>/dev/null
}

for n in "$@"; do
	c=$((n / 10)) p=$((n / 20))
	[ $c -ge 1 ] || c=1
	stride=${SCALE_STRIDE:-1}
	echo "# --- $n maps, $c cgroups, $p programs"
	t0=$(up)
	mapscale -n $n -c $c -p $p >/tmp/ms.txt 2>/tmp/ms.err &
	mpid=$!
	i=0
	while ! grep -q '^ready' /tmp/ms.txt 2>/dev/null && kill -0 $mpid 2>/dev/null && [ $i -lt 6000 ]; do
		sleep 0.2; i=$((i + 1))
	done
	grep -q '^ready' /tmp/ms.txt
	ok $? "mapscale: $n maps in $c cgroups, $p programs ($(awk -v a=$t0 -v b=$(up) 'BEGIN { printf "%.1f", b - a }') s)$(sed 's/^/ -- /' /tmp/ms.err | head -3)"
	[ "$(grep -c '^map ' /tmp/ms.txt)" = $n ]; ok $? "mapscale printed $n map lines"
	echo "# memory: $(awk '/MemAvailable/ { print $2 / 1024 " MiB available" }' /proc/meminfo)"

	bpfmem exporter -l 127.0.0.1:$PORT --interval 0 >/dev/null 2>/tmp/exp.err &
	epid=$!
	wait_for 'listening on' /tmp/exp.err $epid; ok $? "exporter listens on $PORT"
	# one scrape first (page cache, the exporter's first collection), not counted
	timeout 900 wget -q -O /tmp/s0.txt $URL
	walls="" cpu=0
	for r in 1 2 3 4 5; do
		stopwatch -p $epid timeout 900 wget -q -O /tmp/s$r.txt $URL 2>/tmp/sw.txt
		[ "$(sw /tmp/sw.txt status)" = 0 ] || echo "# scrape $r failed: $(cat /tmp/sw.txt)"
		walls="$walls $(sw /tmp/sw.txt wall_us)"
		cpu=$((cpu + $(sw /tmp/sw.txt pid_cpu_us)))
	done
	med=$(echo $walls | tr ' ' '\n' | median)
	min=$(echo $walls | tr ' ' '\n' | sort -n | head -n1)
	max=$(echo $walls | tr ' ' '\n' | sort -n | tail -n1)
	coll=$(awk '/^bpfmem_exporter_scrape_duration_seconds / { print $2 }' /tmp/s5.txt)
	echo "# scrapes (us):$walls; exporter CPU over 5: $cpu us; last collection $coll s; $(wc -c </tmp/s5.txt) bytes, $(grep -c '^bpfmem_map_memlock_bytes{' /tmp/s5.txt) map series"
	grep '^bpfmem_exporter_read_errors_total' /tmp/s5.txt | sed 's/^/# /'

	# exactness: every map (or every STRIDE-th) of the scrape against its holder's fdinfo
	awk -v stride=$stride -v root=$DIR '
		function idof(s) { match(s, /\{id="[0-9]+"/); return substr(s, RSTART + 5, RLENGTH - 6) }
		FNR == NR {
			if (index($0, "bpfmem_map_memlock_bytes{id=") == 1) mem[idof($0)] = $NF
			else if (index($0, "bpfmem_map_elements{id=") == 1) el[idof($0)] = $NF
			else if (index($0, "bpfmem_map_info{id=") == 1 && match($0, /,memcg="[^"]*"/)) {
				m = substr($0, RSTART + 8, RLENGTH - 9)	# before idof() matches again
				cg[idof($0)] = m
			}
			next
		}
		$1 != "map" { next }
		{ k++ }
		(k - 1) % stride { next }
		{
			id = $2; f = "/proc/" $4 "/fdinfo/" $6; km = ""; ke = ""
			while ((getline l < f) > 0) {
				if (l ~ /^memlock:/) { sub(/^memlock:[ \t]*/, "", l); km = l }
				if (l ~ /^elements:/) { sub(/^elements:[ \t]*/, "", l); ke = l }
			}
			close(f)
			checked++
			if (!(id in mem)) { bad++; if (bad < 10) print "# map " id ": no memlock series"; next }
			if (mem[id] != km) { bad++; if (bad < 10) print "# map " id ": memlock " mem[id] " fdinfo " km }
			if (ke != "") {
				if (!(id in el)) { bad++; if (bad < 10) print "# map " id ": no elements series" }
				else { echk++; if (el[id] != ke) { bad++; if (bad < 10) print "# map " id ": elements " el[id] " fdinfo " ke } }
			}
			if (cg[id] != $8) { bad++; if (bad < 10) print "# map " id ": memcg " cg[id] " want " $8 }
			else cgchk++
		}
		END { printf "exact checked %d elements %d memcg %d bad %d\n", checked, echk, cgchk, bad + 0 }
	' /tmp/s1.txt /tmp/ms.txt >/tmp/exact.txt
	grep '^#' /tmp/exact.txt
	read -r _ _ checked _ echk _ cgchk _ bad <<EOF2
$(grep '^exact' /tmp/exact.txt)
EOF2
	want=$(( (n + stride - 1) / stride ))
	[ "$bad" = 0 ] && [ "$checked" = $want ]
	ok $? "scrape exact against fdinfo: $checked maps (memlock), $echk elements, $cgchk memcgs, $bad wrong"

	# bpfmem maps -j and, where the harness added it (tests/bench/scale.sh), the anchor
	# bpftool map show -j on the same maps: wall and CPU (user + system), 5 runs each,
	# interleaved (TCG timings drift: a ratio only from runs side by side)
	mw="" mc="" bw="" bc="" mu="" bu=""
	bt=$(command -v bpftool)
	for r in 1 2 3 4 5; do
		stopwatch bpfmem maps -j >/tmp/mj.json 2>/tmp/sw.txt
		[ "$(sw /tmp/sw.txt status)" = 0 ] || echo "# maps -j failed: $(grep -v '^stopwatch' /tmp/sw.txt | head -3)"
		mw="$mw $(sw /tmp/sw.txt wall_us)"
		mc="$mc $(($(sw /tmp/sw.txt user_us) + $(sw /tmp/sw.txt sys_us)))"
		mu="$mu $(sw /tmp/sw.txt user_us)"
		[ -n "$bt" ] || continue
		stopwatch bpftool map show -j >/tmp/bt.json 2>/tmp/sw.txt
		[ "$(sw /tmp/sw.txt status)" = 0 ] || echo "# bpftool map show -j failed: $(grep -v '^stopwatch' /tmp/sw.txt | head -3)"
		bw="$bw $(sw /tmp/sw.txt wall_us)"
		bc="$bc $(($(sw /tmp/sw.txt user_us) + $(sw /tmp/sw.txt sys_us)))"
		bu="$bu $(sw /tmp/sw.txt user_us)"
	done
	echo "# user CPU us: maps -j$mu; bpftool$bu"
	mjw=$(echo $mw | tr ' ' '\n' | median)
	mjc=$(echo $mc | tr ' ' '\n' | median)
	nj=$(grep -o '"id":[0-9]*,"name":"ms_' /tmp/mj.json | wc -l)
	[ "$nj" = $n ]; ok $? "maps -j lists the $n maps ($nj; runs us:$mw; CPU us:$mc)"
	btool=""
	if [ -n "$bt" ]; then
		nb=$(grep -o '"name":"ms_' /tmp/bt.json | wc -l)
		[ "$nb" = $n ]; ok $? "bpftool map show -j lists the $n maps ($nb; runs us:$bw; CPU us:$bc)"
		btool=" bpftool_us $(echo $bw | tr ' ' '\n' | median) bpftool_cpu_us $(echo $bc | tr ' ' '\n' | median)"
		# the ratio of each interleaved pair, bpfmem over bpftool (CPU): median and range
		set -- $bc
		rs=$(for m in $mc; do echo "$m $1"; shift; done |
			awk '$2 > 0 { printf "%.3f\n", $1 / $2 }' | sort -n)
		echo "# maps -j / bpftool CPU, each interleaved pair: $(echo $rs) (median $(echo "$rs" | median))"
	fi
	echo "scale maps $n cgroups $c progs $p scrape_med_us $med scrape_min_us $min scrape_max_us $max cpu_us_per_scrape $((cpu / 5)) collection_s $coll mapsj_us $mjw mapsj_cpu_us $mjc$btool checked $checked bad $bad"

	# the exporter with its defaults (collection interval 5 s, one body for every
	# waiting scrape) at SCALE_PAR_AT maps: a fresh exporter answers one scrape, another
	# fresh one 31 parallel scrapes; CPU (utime + stime, /proc/PID/stat) and peak RSS
	# (VmHWM) of each, every body complete
	kill $epid 2>/dev/null && wait $epid 2>/dev/null	# the --interval 0 one: its port
	epid=""
	[ "$n" = "${SCALE_PAR_AT:-3000}" ] && for par in 1 31; do
		bpfmem exporter -l 127.0.0.1:$PORT >/dev/null 2>/tmp/exp.err &
		epid=$!
		wait_for 'listening on' /tmp/exp.err $epid || { ok 1 "exporter (defaults) listens"; break; }
		c0=$(awk '{ print $14 + $15 }' /proc/$epid/stat)
		r0=$(awk '/^VmRSS/ { print $2 }' /proc/$epid/status)
		t0=$(up)
		j=0 pids=""
		while [ $j -lt $par ]; do
			j=$((j + 1))
			timeout 900 wget -q -O /tmp/par$j.txt $URL &
			pids="$pids $!"
		done
		fails=0
		for q in $pids; do wait $q || fails=$((fails + 1)); done
		t1=$(up)
		c1=$(awk '{ print $14 + $15 }' /proc/$epid/stat)
		hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$epid/status)
		full=0 j=0
		while [ $j -lt $par ]; do
			j=$((j + 1))
			[ "$(grep -c '^bpfmem_map_memlock_bytes{' /tmp/par$j.txt)" -ge $n ] && full=$((full + 1))
		done
		[ $fails = 0 ] && [ $full = $par ]
		ok $? "exporter defaults, $par parallel scrape(s) at $n maps: $full complete bodies, $fails failed"
		echo "scale par $par maps $n cpu_ms $(((c1 - c0) * 10)) wall_ms $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%d", (b - a) * 1000 }') rss_kb_before $r0 hwm_kb $hwm bytes $(wc -c </tmp/par1.txt)"
		kill $epid; wait $epid 2>/dev/null
		epid=""
		rm -f /tmp/par*.txt
	done
	cleanup
done
done_testing
