/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectors' privilege check (CAP_SYS_ADMIN) and their quiet libbpf logging
 * (caps.c).
 */
#ifndef BPFMEM_CAPS_H
#define BPFMEM_CAPS_H

#include <stdbool.h>

/*
 * The collectors (maps, progs, exporter): libbpf's lines only with @verbose (their
 * BPF part is optional, a failure gets one line of their own), and CAP_SYS_ADMIN, which
 * listing maps and programs by id takes (euid 0 neither needed nor enough). Prints the
 * reason and returns < 0 without it. @what: "maps" or "programs".
 */
void bpfmem_libbpf_logging_quiet(bool verbose);
int bpfmem_collector_init(bool verbose, const char *what);
/* CAP_* @cap is in the effective set of this process */
bool bpfmem_have_cap(int cap);

#endif
