#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `bpfmem savings`: draw memory against occupancy for the
# preallocated and the non-preallocated (dynamic) map, with the floor
# (live elements x element size + bucket array) and the churn points, from the
# CSV the guest wrote (bpfmem savings --csv or --csv-file).
#
#   tools/plot-savings.sh SAVINGS.csv OUT_PREFIX
#
# Writes OUT_PREFIX.svg and OUT_PREFIX.png (gnuplot, Debian gnuplot-nox) and prints
# their paths. The CSV may contain guest console noise around it (\r, log lines):
# only the header line and the rows after it that look like data are used.
set -euo pipefail

[ $# = 2 ] || { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
csv=$1 out=$2
[ -r "$csv" ] || { echo "plot-savings: cannot read $csv" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plot-savings: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' <"$csv" | awk -F, -v d="$tmp" '
	/^mode,fill,occupancy_pct,elements,memory_bytes,/ { hdr = 1; next }
	hdr && NF >= 15 && ($1 == "prealloc" || $1 == "dynamic") {
		f = d "/" $1 "-" $2 ".dat"
		printf "%s %s %s\n", $3, $5 / 1024, $10 / 1024 >> f
		if ($1 == "dynamic" && $2 == "bpf") printf "%s %s\n", $3, $10 / 1024 >> (d "/floor.dat")
		shape = sprintf("key %s B, value %s B, max\\\\_entries %s (element %s B, buckets %s KiB)",
			$11, $12, $13, $14, $15 / 1024)
		n++
	}
	END { print shape > (d "/shape"); exit !(n > 0) }' ||
	{ echo "plot-savings: no bpfmem savings CSV rows in $csv" >&2; exit 1; }
for f in "$tmp"/*.dat; do sort -g -o "$f" "$f"; done
shape=$(cat "$tmp/shape")

plot="plot"
add() { plot="$plot $1,"; }
[ -s "$tmp/prealloc-bpf.dat" ] && add "'$tmp/prealloc-bpf.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#c0392b' title 'preallocated (BPF fill)'"
[ -s "$tmp/prealloc-user.dat" ] && add "'$tmp/prealloc-user.dat' using 1:2 with points pt 6 ps 1.6 lc rgb '#c0392b' title 'preallocated (userspace fill)'"
[ -s "$tmp/dynamic-bpf.dat" ] && add "'$tmp/dynamic-bpf.dat' using 1:2 with linespoints lw 2 pt 5 lc rgb '#2471a3' title 'BPF\\_F\\_NO\\_PREALLOC (BPF fill)'"
[ -s "$tmp/dynamic-user.dat" ] && add "'$tmp/dynamic-user.dat' using 1:2 with points pt 4 ps 1.6 lc rgb '#2471a3' title 'BPF\\_F\\_NO\\_PREALLOC (userspace fill)'"
[ -s "$tmp/floor.dat" ] && add "'$tmp/floor.dat' using 1:2 with lines dt 2 lw 2 lc rgb '#555555' title 'floor: elements x element + buckets'"
[ -s "$tmp/dynamic-churn-peak.dat" ] && add "'$tmp/dynamic-churn-peak.dat' using 1:2 with points pt 9 ps 2 lc rgb '#7d3c98' title 'dynamic, churn on all CPUs: peak'"
[ -s "$tmp/dynamic-churn-settled.dat" ] && add "'$tmp/dynamic-churn-settled.dat' using 1:2 with points pt 8 ps 2 lc rgb '#7d3c98' title 'dynamic, churn: settled'"
plot=${plot%,}

for term in svg png; do
	case $term in
	svg) t="set terminal svg size 900,560 dynamic font 'Helvetica,13' background '#ffffff'" ;;
	png) t="set terminal pngcairo size 900,560 font 'Helvetica,11'" ;;
	esac
	gnuplot <<EOF
$t
set output '$out.$term'
set title "bpfmem savings: memcg memory of one BPF hash map against occupancy\n{/*0.8 $shape}"
set xlabel 'occupancy (% of max\_entries, log scale)'
set ylabel 'memory.current of the map''s memcg (KiB)'
set logscale x
set xrange [0.05:150]
set yrange [0:*]
set grid
set key top left
$plot
EOF
	echo "$out.$term"
done
