#!/bin/sh
# Prints the vmlinux whose BTF vmlinux.h is generated from: $BPFMEM_VMLINUX, else the
# patched base kernel built by kernel/build.sh (CO-RE relocates for every flavour).
if [ -n "$BPFMEM_VMLINUX" ]; then
	echo "$BPFMEM_VMLINUX"
else
	echo "${BPFMEM_CACHE:-/var/cache/bpfmem}/kernel/build-patched-base/vmlinux"
fi
