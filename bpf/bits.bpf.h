/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the BPF programs (cf. libbpf-tools' bits.bpf.h) */
#ifndef __BPFMEM_BITS_BPF_H
#define __BPFMEM_BITS_BPF_H

/* floor(log2(v)), 0 for v = 0: the slot of v in a log2 histogram */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1)
		r += 1;
	return r;
}

#endif
