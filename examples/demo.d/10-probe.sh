# demo: what this kernel offers (bpfmem probe) and a NO_PREALLOC map counting from fentry
bpfmem probe || exit 1
echo
bpfmem probe --selftest
