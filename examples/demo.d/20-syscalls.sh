# demo: bpfmem syscalls: exact syscall counts, errors and latency of a known workload
# syscall-workload makes 1000 getppid, 500 openat of a missing path (ENOENT) and 20
# nanosleep of 5 ms; it waits for SIGUSR1 so the tracer is attached first.
syscall-workload -s >/tmp/demo-sc.wl &
wpid=$!
while ! grep -q '^pid ' /tmp/demo-sc.wl; do sleep 0.1; done
bpfmem syscalls -p $wpid -L -T 5 2>/tmp/demo-sc.err &
tpid=$!
while ! grep -q Tracing /tmp/demo-sc.err; do
	kill -0 $tpid 2>/dev/null || { cat /tmp/demo-sc.err; exit 1; }
	sleep 0.1
done
cat /tmp/demo-sc.err
kill -USR1 $wpid
wait $wpid
kill -INT $tpid
wait $tpid || exit 1
echo
echo "errors only, per process, system-wide for 2 s while a smaller run of the workload goes:"
bpfmem syscalls -x -P -d 2 -T 3 >/tmp/demo-sc.out 2>/tmp/demo-sc.err &
tpid=$!
while ! grep -q Tracing /tmp/demo-sc.err; do
	kill -0 $tpid 2>/dev/null || { cat /tmp/demo-sc.err; exit 1; }
	sleep 0.1
done
syscall-workload -g 100 -o 50 -n 2 >/dev/null
wait $tpid || exit 1
cat /tmp/demo-sc.out
