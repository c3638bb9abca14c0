# demo: memory saved by BPF_F_NO_PREALLOC versus preallocation (bpfmem savings, flow-counter map shape)
# The CSV between the markers is what the host draws with tools/plot-savings.sh
# (./run demo: the plot path is printed after the guest ends).
bpfmem savings --csv-file /tmp/savings.csv >/tmp/savings.txt || exit 1
echo "@@bpfmem: savings csv begin"
cat /tmp/savings.csv
echo "@@bpfmem: savings csv end"
echo
cat /tmp/savings.txt
awk -F, '$2 == "bpf" && ($3 == 1 || $3 == 100) { m[$1, $3] = $5 }
	END { printf "dynamic/preallocated: %.1f%% at 1%% occupancy, %.1f%% at 100%%\n",
		100 * m["dynamic", 1] / m["prealloc", 1], 100 * m["dynamic", 100] / m["prealloc", 100] }' \
	/tmp/savings.csv
echo "plot: drawn on the host from the CSV above by tools/plot-savings.sh"
