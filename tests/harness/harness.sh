#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side guest harness: build an initramfs (busybox-static, the static bpfmem
# tools, guest tests, extra files) and boot a bpfmem kernel in QEMU (TCG) to run one
# command; stream the serial console to stdout and a log; exit with the command's
# status. Verdicts come only through isa-debug-exit: QEMU exiting 0 (panic, poweroff)
# is "no verdict" and a failure, a kernel splat is a failure, a hang is killed.
#
#   harness.sh [--kernel base|rt|debug|vanilla|vanilla-rt|k61|deb612-cloud|deb612-rt|
#              deb61-cloud|deb61-rt|PATH] [--smp N] [--mem MB]
#              [--timeout S] [--log FILE] [--add HOST_PATH]... [--interactive]
#              [--accel ACCEL] [--tap NAME] [--net HOSTFWD] [--kunit] -- CMD [ARGS...]
#
# k61: vanilla 6.1 from Debian 12's linux-source-6.1 (kernel/build.sh --ksrc 6.1 --vanilla).
# deb612-cloud deb612-rt deb61-cloud deb61-rt: Debian 12's own kernel packages, booted
# as they are (tests/debian-kernels.sh fetches them; no modules, so no --net there).
# --accel: QEMU's -accel argument. Default tcg,thread=single: all vCPUs on one host
# thread. Multi-threaded TCG (--accel tcg, one host thread per vCPU) runs stale
# translated code after another vCPU live-patches kernel text: attaching fentry to
# x64_sys_call while a second vCPU makes syscalls Oopses on an int3 that is no longer
# in memory within seconds (workload attachloop; README "Guest harness"). Benchmarks
# that want parallel vCPUs pass --accel tcg and attach before their load starts.
# BPFMEM_QEMU_EXTRA: more QEMU arguments, split on spaces (./run bench --icount passes
# "-icount shift=0,sleep=off": guest time counts instructions).
#
# --kunit: run the kernel's built-in KUnit suites at boot (kunit.enable=0 otherwise:
# only tests/guest/kunit.sh reads them, and they cost every other boot 0.3-0.6 s on rt).
# --net tcp:127.0.0.1:HOSTPORT-:GUESTPORT: user-mode network on a virtio-net device
# with that one forward (loopback-bound only); without it the guest has no NIC.
#
# Environment: BPFMEM_MACHINE overrides QEMU's -machine (default microvm,acpi=off),
# BPFMEM_APPEND adds kernel command-line arguments (for experiments).
#
# Exit status: the command's (0..120); 121 no verdict; 122 timeout/hang;
# 123 harness error; 125 kernel splat.
#
# The verdict cannot be forged by QEMU failing or by a guest that never ran the
# command: every boot gets a fresh random nonce that only /init knows (it reads and
# deletes /etc/bpfmem/nonce before it runs the command, and keeps it in a shell
# variable the command does not inherit). After the command and the dmesg scan /init
# prints "@@bpfmem: verdict NONCE status RC" and exits through isa-debug-exit with
# 126 for a pass (QEMU exits 253), 125 for a splat, or the command's status 1..120.
# QEMU exits 1 on its own errors (a bad option, an unreadable kernel, no KVM), which is
# what isa-debug-exit 0 gives: /init never sends 0, and PASS needs both code 126 and
# the nonce line with status 0; any other code needs the nonce line that agrees.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${BPFMEM_CACHE:-/var/cache/bpfmem}
BUILDDIR=${BPFMEM_BUILDDIR:-$top/build}
kernel=base smp=2 mem=1024 timeout=600 log="" interactive=0 tap="" net="" accel=tcg,thread=single
kunit=0
adds=()
# a harness error (bad arguments, no kernel image, tools not built): a failing verdict
herr() { echo "harness: $*" >&2; echo "@@bpfmem: verdict: HARNESS ERROR: $*" >&2; exit 123; }

usage() { sed -n '3,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--interactive) interactive=1; shift ;;
	--kunit) kunit=1; shift ;;
	--tap) tap=$2; shift 2 ;;
	--net) net=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage >&2; herr "unknown argument '$1'" ;;
	esac
done
[ $# -gt 0 ] || [ "$interactive" = 1 ] || herr "no command given"
case "$smp" in ''|*[!0-9]*) herr "bad --smp '$smp'" ;; esac

case "$kernel" in
base|rt|debug|distro|distro-rt) bz=$CACHE/kernel/build-patched-$kernel/arch/x86/boot/bzImage ;;
vanilla) bz=$CACHE/kernel/vanilla/build-base/arch/x86/boot/bzImage ;;
vanilla-*) bz=$CACHE/kernel/vanilla/build-${kernel#vanilla-}/arch/x86/boot/bzImage ;;
k61) bz=$CACHE/kernel-6.1/vanilla/build-base/arch/x86/boot/bzImage ;;
deb*-*) bz=$("$top/tests/debian-kernels.sh" --path "$kernel" 2>&1) ||
	herr "no Debian kernel $kernel: $bz (fetch it: tests/debian-kernels.sh $kernel)" ;;
*) bz=$kernel ;;
esac
[ -f "$bz" ] && [ -r "$bz" ] || herr "no kernel image $bz (build it: ./run build $kernel)"
# a kernel whose config is known (Debian's: boot/config-* beside the vmlinuz; ours: the
# build's .config) must have virtio-mmio and virtio-net built in for --net: Debian's
# kernels have them as modules, and the guest loads none
kconfig=$(ls "$(dirname "$bz")"/config-* 2>/dev/null | head -n1)
[ -n "$kconfig" ] || kconfig=$(dirname "$bz")/../../../.config
if [ -n "$net" ] && [ -f "$kconfig" ] &&
	! { grep -q '^CONFIG_VIRTIO_MMIO=y' "$kconfig" && grep -q '^CONFIG_VIRTIO_NET=y' "$kconfig"; }; then
	herr "--net: kernel $kernel has virtio-mmio or virtio-net as a module ($kconfig), and the guest loads no modules"
fi
for t in tools/bpfmem tests/harness/guest-exit; do
	[ -x "$BUILDDIR/$t" ] || herr "$BUILDDIR/$t not built"
done

work=$(mktemp -d /tmp/bpfmem-guest.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/bpfmem,proc,sys,dev,tmp,root,tests,lib,lib64}
cp /bin/busybox "$root/bin/busybox"
cp "$here/init.sh" "$root/init"
chmod +x "$root/init"
cp "$here/splats.re" "$root/etc/bpfmem/splats.re"
nonce=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
[ ${#nonce} = 24 ] || herr "cannot read a nonce from /dev/urandom"
echo "$nonce" >"$root/etc/bpfmem/nonce"
# tools: the CLI, guest-exit and the test workloads
for f in "$BUILDDIR"/tools/bpfmem "$BUILDDIR"/tests/harness/guest-exit "$BUILDDIR"/tests/workloads/*; do
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/usr/bin/"
done
cp -r "$top"/tests/guest/. "$root/tests/" 2>/dev/null
cp -r "$top"/examples "$root/examples" 2>/dev/null
cp -r "$top"/tests/bench/guest "$root/bench" 2>/dev/null	# the benchmarks: /bench/NAME.sh
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"

# --add: host files (and their shared libraries, for dynamic ELF binaries)
add_file() {
	local src=$1 dst=$2
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
}
for a in "${adds[@]}"; do
	[ -e "$a" ] || herr "--add: no such file $a"
	abs=$(readlink -f "$a")
	if [ -d "$abs" ]; then
		mkdir -p "$root/usr/share/bpfmem"
		cp -r "$abs" "$root/usr/share/bpfmem/"
		continue
	fi
	case "$abs" in
	*/bin/*|*/sbin/*) add_file "$abs" "/usr/bin/$(basename "$a")" ;;
	*) add_file "$abs" "$abs" ;;
	esac
	if file -L "$abs" 2>/dev/null | grep -q 'dynamically linked'; then
		ldd "$abs" | awk '/=>/ { print $3 } /^\t\/.*ld-linux/ { print $1 }' |
			while read -r lib; do
				[ -f "$lib" ] && add_file "$lib" "$lib" && add_file "$lib" "/lib/$(basename "$lib")"
			done
	fi
done

if [ "$interactive" = 1 ]; then
	touch "$root/etc/bpfmem/interactive"
	echo "sh" >"$root/etc/bpfmem/cmd"
else
	{ printf 'cd /root\n'; printf '%q ' "$@"; printf '\n'; } >"$root/etc/bpfmem/cmd"
fi

(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"

[ -n "$log" ] || log=$CACHE/logs/guest-$(date +%Y%m%d-%H%M%S)-$$.log
mkdir -p "$(dirname "$log")"
# microvm: no PCI, no ACPI, no SeaBIOS; its firmware (qboot) boots the kernel at
# once and lists every vCPU in an MP table, so the kernels need no ACPI (issue 12:
# a fifth of a cold build). isa-serial, PIT, PIC and RTC are on by default;
# --net adds a virtio-net device on the virtio-mmio transport.
machine=${BPFMEM_MACHINE:-microvm,acpi=off}
# a kernel that finds CPUs through ACPI only (no CONFIG_X86_MPPARSE: Debian's cloud
# kernels) sees one CPU on microvm without ACPI: q35 (SeaBIOS, ACPI; /init about 3 s
# later) for more than one vCPU
if [ -z "${BPFMEM_MACHINE:-}" ] && [ "$smp" -gt 1 ] && [ -f "$kconfig" ] &&
	! grep -q '^CONFIG_X86_MPPARSE=y' "$kconfig"; then
	machine=q35
fi
# reboot=t: a panic (panic=-1) reboots by triple fault, which -no-reboot turns into
# QEMU exiting 0 (no verdict); microvm has no ACPI or keyboard-controller reset, and
# the kernel's default sequence of reboot methods never gets to the triple fault there.
append="${BPFMEM_APPEND:+$BPFMEM_APPEND }console=ttyS0 panic=-1 reboot=t quiet loglevel=4 rcupdate.rcu_cpu_stall_timeout=60 hung_task_timeout_secs=120"
[ "$kunit" = 1 ] || append="$append kunit.enable=0"
qemu=(qemu-system-x86_64 -accel "$accel" -machine "$machine" -cpu max -smp "$smp" -m "$mem"
	-kernel "$bz" -initrd "$work/initramfs.cpio" -append "$append"
	-nographic -no-reboot ${BPFMEM_QEMU_EXTRA:-})
# --net tcp:127.0.0.1:HOSTPORT-:GUESTPORT: QEMU user-mode networking (slirp: the guest
# is 10.0.2.15, the host 10.0.2.2) on a virtio-net device, with that host forward.
# Only forwards bound to 127.0.0.1 are accepted. Otherwise the guest has no NIC.
if [ -n "$net" ]; then
	case "$net" in
	tcp:127.0.0.1:[0-9]*-:[0-9]*) ;;
	*) herr "--net wants tcp:127.0.0.1:HOSTPORT-:GUESTPORT, not '$net'" ;;
	esac
	qemu+=(-netdev "user,id=n0,hostfwd=$net" -device virtio-net-device,netdev=n0)
else
	qemu+=(-nic none)
fi
qemu+=(
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)

start=$(date +%s.%N)
if [ "$interactive" = 1 ]; then
	"${qemu[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
else
	# with --tap, console lines that are not TAP become TAP comments
	filter=(cat)
	[ -n "$tap" ] && filter=(sed -u -E '/^(ok|not ok) [0-9]+ /!s/^/# /')
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log" | tr -d '\r' | "${filter[@]}"
	rc=${PIPESTATUS[0]}
fi
wall=$(echo "$(date +%s.%N) - $start" | bc)

# host-side scan as well: splats printed after the guest's own dmesg scan
splat=$(grep -E -f "$here/splats.re" "$log" | grep -v '^@@bpfmem' | head -n1)
# the guest's own word: the last verdict line with this boot's nonce
gline=$(tr -d '\r' <"$log" | grep -E "^@@bpfmem: verdict $nonce status [0-9]+\$" | tail -n1)
gstatus=${gline##* }

verdict() {
	printf '@@bpfmem: verdict: %s (kernel %s, %.1fs wall, log %s)\n' "$1" "$kernel" "$wall" "$log" >&2
	if [ -n "$tap" ]; then
		local n
		n=$(tr -d '\r' <"$log" | grep -cE '^(ok|not ok) [0-9]+ ')
		n=$((n + 1))
		if [ "$2" = 0 ]; then echo "ok $n - $tap: $1"; else echo "not ok $n - $tap: $1"; fi
		echo "1..$n"
	fi
}
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	verdict "TIMEOUT: guest hung, killed after ${timeout}s" 1; exit 122
elif [ "$rc" = 0 ]; then
	verdict "NO VERDICT: QEMU exited 0 (kernel panic or poweroff before the verdict)" 1; exit 121
elif [ "$rc" = 1 ]; then
	# QEMU's own failure (or isa-debug-exit 0, which /init never sends)
	verdict "NO VERDICT: QEMU exited 1 (QEMU failed to start or run the guest: see log)" 1; exit 121
elif [ $((rc & 1)) = 0 ] || [ "$rc" -gt 255 ]; then
	verdict "NO VERDICT: QEMU failed with status $rc" 1; exit 121
fi
code=$((rc >> 1))
if [ "$code" = 125 ] || [ -n "$splat" ]; then
	verdict "KERNEL SPLAT: ${splat:-see log}" 1; exit 125
elif [ -z "$gline" ]; then
	verdict "NO VERDICT: guest exit code $code without this boot's verdict line (the command never ran under /init)" 1
	exit 121
elif [ "$code" = 126 ] && [ "$gstatus" = 0 ]; then
	verdict "PASS" 0
	exit 0
elif [ "$code" -ge 1 ] && [ "$code" -le 120 ] &&
	{ [ "$gstatus" = "$code" ] || { [ "$code" = 120 ] && [ "$gstatus" -gt 120 ]; }; }; then
	verdict "FAIL: command exited with status $gstatus" 1; exit "$code"
fi
verdict "NO VERDICT: guest exit code $code disagrees with its verdict line (status $gstatus)" 1
exit 121
