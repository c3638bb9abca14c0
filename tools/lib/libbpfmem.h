/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpfmem library (tools/lib), whole: the one include of the subcommands, the test
 * workloads and the unit tests that use several of its modules. Each module declares
 * its interface in the header beside its .c (tools/lib/meson.build lists them, each
 * using only those above it); a file of the library includes just the ones it uses.
 */
#ifndef BPFMEM_LIBBPFMEM_H
#define BPFMEM_LIBBPFMEM_H

/* the version of the exporter's index page: the project version (tests/unit/check-install.sh) */
#define BPFMEM_VERSION "0.1.0"

#include "json.h"
#include "common.h"
#include "interval.h"
#include "opts.h"
#include "cli.h"
#include "fileio.h"
#include "fdinfo.h"
#include "cpulist.h"
#include "alloc_listing.h"
#include "cgroup.h"
#include "cgroup_index.h"
#include "feature_probe.h"
#include "caps.h"
#include "bpfobj.h"
#include "text_safe.h"
#include "hist.h"
#include "map_mem.h"
#include "map_dump.h"
#include "buf.h"
#include "http.h"
#include "prom_text.h"

#endif
