# demo: LRU hash maps with BPF_F_NO_PREALLOC (series patch 11): what the same LRU map costs
# preallocated and allocated on demand, at 1, 10 and 100% occupancy (bpfmem savings --lru)
bpfmem savings --lru -k 16 -V 64 -e 65536 -o 1,10,100 --fill user --no-churn \
	--csv-file /tmp/savlru.csv >/tmp/savlru.txt || exit 1
cat /tmp/savlru.txt
awk -F, '$2 == "user" { m[$1, $3] = $5 }
	END { printf "LRU dynamic/preallocated: %.1f%% at 1%%, %.1f%% at 10%%, %.1f%% when full " \
		"(exact-size slab objects charged without a per-object memcg pointer, patches 13 and 18)\n", 100 * m["dynamic", 1] / m["prealloc", 1],
		100 * m["dynamic", 10] / m["prealloc", 10], 100 * m["dynamic", 100] / m["prealloc", 100] }' \
	/tmp/savlru.csv
