/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The base of the library (common.c): error lines (as JSON too under -j), the clock,
 * text helpers, the grow-array of every table the tools build. Uses only json.h.
 */
#ifndef BPFMEM_COMMON_H
#define BPFMEM_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Name of the subcommand running, used as the prefix of error lines. */
extern const char *bpfmem_cmd;
/*
 * One-line error to stderr, "bpfmem CMD: ...": the line of a failure, after which the
 * command exits non-zero. Under -j/--json (bpfmem_err_json(), which bpfmem_cli_parse()
 * calls) the first error of the process also goes to stdout as one JSON object,
 * {"error":"..."} (the message without the prefix, escaped by json.c), as bpftool -j
 * does; stderr keeps the plain line.
 */
void bpfmem_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that does not end the command (a note, a warning, events dropped, which only
 * make the exit status 3): to stderr as bpfmem_err(), never to stdout as JSON.
 */
void bpfmem_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Errors as JSON on stdout too (@on: the command was given -j/--json), from the next
 * bpfmem_err() on (the first since this call).
 */
void bpfmem_err_json(bool on);
/* CLOCK_MONOTONIC in seconds */
double bpfmem_mono_s(void);
/* Sleeps @s seconds through signals: a measurement's settling time (an interval
 * between reports is bpfmem_wait()'s, which Ctrl-C ends).
 */
void bpfmem_sleep(double s);
/* Value of the hex digit @c (either case), -1 if it is none. */
int bpfmem_hexval(char c);
/*
 * Exit status of the tracers (syscalls, flows) at the end: 1 after an error (@err
 * nonzero), else BPFMEM_EXIT_DROPPED when events were dropped (@dropped > 0: the
 * counts are incomplete), else 0.
 */
#define BPFMEM_EXIT_DROPPED 3
int bpfmem_tracer_status(int err, long long dropped);
/*
 * Grows the array *@pp (@pp: the address of any object pointer, e.g. &s->rows) of *@cap
 * elements of @elem bytes to hold at least @need: the capacity doubles from *@cap (from
 * 1 when 0, so a first call gets @need rounded up to a power of 2). 0 when it holds
 * them (nothing done if it already did), or -ENOMEM when the size overflows size_t or
 * realloc() fails: then *@pp and *@cap are left as they were, so a caller that goes
 * on never writes past its buffer.
 */
int bpfmem_grow(void *pp, size_t *cap, size_t need, size_t elem);
/*
 * The element of id @id in the array @rows of @n elements of @size bytes, sorted by the
 * unsigned int at byte @off of each (e.g. offsetof(struct bpfmem_map_row, info.id)),
 * by binary search; NULL if none has it.
 */
const void *bpfmem_find_id(const void *rows, size_t n, size_t size, size_t off,
			   unsigned int id);

#endif
