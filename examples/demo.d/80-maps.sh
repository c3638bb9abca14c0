# demo: per-map memory, elements, owners and the charged memcg (bpfmem maps)
maps-holder -c /sys/fs/cgroup/demo-maps >/tmp/mh.txt &
hpid=$!
i=0
while ! grep -q '^ready' /tmp/mh.txt && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2	# memory.stat is flushed every 2 s
bpfmem maps -p $hpid -s memlock
rc=$?
echo
bpfmem maps -p $hpid --prometheus | grep -E '^(# TYPE )?bpfmem_map_memlock_bytes' | head -n 4
kill $hpid
wait $hpid 2>/dev/null
rmdir /sys/fs/cgroup/demo-maps 2>/dev/null
exit $rc
