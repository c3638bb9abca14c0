#!/bin/sh
# Prints the kernel (a vmlinux or a raw BTF file such as /sys/kernel/btf/vmlinux) whose
# BTF vmlinux.h is generated from: $1 (meson's -Dvmlinux=), else $BPFMEM_VMLINUX, else
# nothing, and the build uses the committed skel/vmlinux/x86/vmlinux.h (Debian's 6.12
# cloud kernel; skel/update-vmlinux-h.sh). CO-RE relocates for every kernel either way.
if [ -n "$1" ]; then
	echo "$1"
else
	echo "${BPFMEM_VMLINUX:-}"
fi
