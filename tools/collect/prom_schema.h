/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one Prometheus schema of BPF map memory, written by `bpfmem maps --prometheus`
 * and `bpfmem exporter` alike (tools/collect/prom_schema.c; the exporter adds its program and
 * self families). Families and labels: the top of prom_schema.c.
 */
#ifndef BPFMEM_PROM_SCHEMA_H
#define BPFMEM_PROM_SCHEMA_H

#include "prom_text.h"
#include "map_sample.h"

/* bpfmem_build_info{version,libbpf} 1: this build's version and the libbpf it links */
void bpfmem_prom_build_info(struct bpfmem_prom *w);
/* every family of the sample: series, map totals, per-map, memcg, allocator */
void bpfmem_prom_maps(struct bpfmem_prom *w, const struct bpfmem_maps_sample *s);

#endif
