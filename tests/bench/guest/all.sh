# SPDX-License-Identifier: GPL-2.0
# In-guest part of `./run bench`: map_perf-style loops (mapperf, mapperf -w) and the upstream
# selftests bench (htab-mem, hashmap) in preallocated and dynamic mode. Every data
# line is prefixed "bench: " for tests/bench/report.py.
#   sh /bench/all.sh [--quick]
quick=0
[ "${1:-}" = --quick ] && quick=1
echo "bench: kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo) series $(bpfmem probe | sed -n 's/^bpfmem series: *\([a-z]*\).*/\1/p')"
rc=0
if [ $quick = 1 ]; then
	mapperf -s 1 | sed 's/^/bench: /' || rc=1
	mapperf -w -s 1 | sed 's/^/bench: /' || rc=1
	sh /bench/htab.sh -w 1 -d 2 -q | sed 's/^/bench: /'
else
	mapperf -s 3 | sed 's/^/bench: /' || rc=1
	mapperf -w -s 3 | sed 's/^/bench: /' || rc=1
	sh /bench/htab.sh -w 1 -d 4 | sed 's/^/bench: /'
fi
grep -q FAILED /tmp/bench-htab.* 2>/dev/null && rc=1
exit $rc
