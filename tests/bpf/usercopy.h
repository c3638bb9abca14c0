/* SPDX-License-Identifier: GPL-2.0 */
/* The value of tests/bpf/usercopy.bpf.c's maps, shared with tests/workloads/usercopy.c */
#ifndef USERCOPY_H
#define USERCOPY_H
#define PATH_LEN 200
#define RAW_LEN 64

struct val {
	__u64 n;
	char path[PATH_LEN];
	char raw[RAW_LEN];
	char from_user[RAW_LEN];
};
#endif
