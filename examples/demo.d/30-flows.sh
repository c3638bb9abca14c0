# demo: bpfmem flows: TCP/UDP bytes and packets per flow in a map holding only live flows
# loopback (IPv4 and IPv6) traffic from flowgen while bpfmem flows counts it; the closed
# flows are printed with their final counts (--closed), then the map memory.
bpfmem flows -i 2 -d 8 -T 10 --closed >/tmp/demo-flows.txt 2>&1 &
fpid=$!
sleep 2
flowgen tcp 127.0.0.1 5000 3 262144 && flowgen tcp ::1 5000 2 65536 &&
	flowgen udp 127.0.0.1 5001 100 512 || exit 1
wait $fpid
rc=$?
cat /tmp/demo-flows.txt
echo
echo "same traffic, one JSON line per interval (-j):"
bpfmem flows -j -i 1 -d 3 -T 2 >/tmp/demo-flows.json 2>&1 &
fpid=$!
sleep 1
flowgen tcp 127.0.0.1 5003 1 4096 >/dev/null
wait $fpid
grep '"type":"interval"' /tmp/demo-flows.json | head -n 1
exit $rc
