// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one test of the upstream test_maps' map_tests/ on its own: test_maps runs all
 * of them, with the core map tests, in about 10 minutes of TCG; the gate runs the
 * series' htab_mem_memcg test on every kernel flavour in seconds.
 * Built by tests/selftests-build.sh with -DMAP_TEST=<name> against the tree's
 * map_tests/<name>.c, its skeleton and the selftests' libbpf.a; output as test_maps':
 * "test_<name>:PASS" or a "FAIL" line (exit -1), then "<name>: OK, N SKIPPED".
 */
#include <stdio.h>

#define __TEST(name) test_##name
#define TEST(name) __TEST(name)
#define __STR(x) #x
#define STR(x) __STR(x)

int skips;

void TEST(MAP_TEST)(void);

int main(void)
{
	TEST(MAP_TEST)();
	printf("%s: OK, %d SKIPPED\n", STR(MAP_TEST), skips);
	return 0;
}
