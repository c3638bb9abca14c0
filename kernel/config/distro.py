#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Debian's kernel configuration, in the option families that matter to bpfmem.

  distro.py fragment FLAVOR [DEBIAN_CONFIG]   print the fragment distro-FLAVOR.config
  distro.py full FLAVOR [DEBIAN_CONFIG]       print Debian's whole config as ./run build distro
                                              builds it (kernel/build.sh --flavor
                                              distro|distro-rt): modules left out,
                                              FULL_OVERRIDES below
  distro.py check FLAVOR DOT_CONFIG [DEBIAN_CONFIG]
                                              compare a built .config with Debian's over
                                              the families; exit 1 on any difference
                                              not listed below with its reason

FLAVOR is base, rt or debug. base and debug follow Debian's cloud-amd64 config, rt its
rt_amd64 config (linux-config-6.12, /usr/src/linux-config-6.12). The families are
slab/mm, memcg, BPF/JIT, hardening, preemption/RCU and tracing; every option of theirs
that Debian sets is set the same way in our flavours, unless EXCEPTIONS says why not.
The committed fragments kernel/config/distro-{cloud,rt}.config are this script's
output (regenerate with `distro.py fragment base > distro-cloud.config`).
"""
import lzma
import re
import sys

DEBIAN = {
    'base': '/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz',
    'debug': '/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz',
    'rt': '/usr/src/linux-config-6.12/config.amd64_rt_amd64.xz',
    'distro': '/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz',
    'distro-rt': '/usr/src/linux-config-6.12/config.amd64_rt_amd64.xz',
}

# `full`: Debian's config as it is, but for these (option -> (value, reason)); every
# module (=m) is left out, since the guests load none (Debian's own binary boots in the
# harness without its modules too); CONFIG_MODULES itself stays, for bpf_testmod.ko
FULL_OVERRIDES = {
    'SYSTEM_TRUSTED_KEYS': ('""', 'Debian\'s UEFI certificates (debian/certs) are not in linux-source'),
    'SYSTEM_REVOCATION_KEYS': ('""', 'as SYSTEM_TRUSTED_KEYS'),
    'MODULE_SIG': ('n', 'no signing key here; the selftests\' bpf_testmod.ko is loaded unsigned'),
    'MODULE_SIG_ALL': ('n', 'follows MODULE_SIG'),
    'LOCALVERSION': ('"-bpfmem-distro"', 'names the build in uname -r'),
    'BUILD_SALT': ('"bpfmem"', 'not Debian\'s ABI name: this is not Debian\'s binary'),
}

FAMILIES = {
    'slab/mm': r'SLUB|SLUB_.*|SLAB_.*|RANDOM_KMALLOC_CACHES|SHUFFLE_PAGE_ALLOCATOR|NUMA|'
               r'TRANSPARENT_HUGEPAGE.*|INIT_ON_.*|KFENCE.*|SPARSEMEM.*|COMPACTION|MIGRATION|'
               r'PAGE_REPORTING|HUGETLBFS|ZONE_DMA|ZONE_DMA32|PER_VMA_LOCK|MEM_ALLOC_PROFILING.*',
    'memcg': r'MEMCG.*|CGROUPS|CGROUP_BPF|CGROUP_WRITEBACK|PAGE_COUNTER',
    'bpf/jit': r'BPF|BPF_.*|DEBUG_INFO_BTF.*|NET_SOCK_MSG',
    'hardening': r'HARDENED_USERCOPY.*|FORTIFY_SOURCE|STACKPROTECTOR.*|INIT_STACK_.*|'
                 r'ZERO_CALL_USED_REGS|LIST_HARDENED|BUG_ON_DATA_CORRUPTION|RANDOMIZE_.*|'
                 r'VMAP_STACK|STRICT_KERNEL_RWX|STRICT_MODULE_RWX|SECURITY|SECURITY_NETWORK|'
                 r'SECURITY_PATH|SECURITY_DMESG_RESTRICT|CPU_MITIGATIONS|MITIGATION_.*|'
                 r'X86_KERNEL_IBT|DEBUG_WX|SCHED_STACK_END_CHECK|SLAB_FREELIST_.*|RELOCATABLE',
    'preempt/rcu': r'PREEMPT.*|HZ|HZ_.*|NO_HZ.*|RCU_.*|TREE_RCU|TASKS_.*_RCU|'
                   r'IRQ_FORCED_THREADING|HIGH_RES_TIMERS|SCHED_CORE|EXPERT',
    'tracing': r'FTRACE|FTRACE_SYSCALLS|FUNCTION_TRACER|FUNCTION_GRAPH_TRACER|'
               r'DYNAMIC_FTRACE.*|KPROBES|KPROBE_EVENTS|KRETPROBES|UPROBES|UPROBE_EVENTS|'
               r'FPROBE|FPROBE_EVENTS|BPF_EVENTS|FUNCTION_ERROR_INJECTION|BPF_KPROBE_OVERRIDE|'
               r'PERF_EVENTS|STACK_TRACER|TRACEPOINTS|TRACING',
}

# option -> reason, for every flavour; FLAVOR_EXCEPTIONS adds per flavour
EXCEPTIONS = {
    'BPF_MEM_ALLOC_KUNIT_TEST': 'the series\' KUnit suite (series.config), not in any Debian kernel',
    'CGROUP_WRITEBACK': 'needs the block layer (BLK_CGROUP); the guests have no block device',
    'MITIGATION_VMSCAPE': 'a mitigation for KVM hosts (depends on KVM); the guests run no KVM',
    'PREEMPT_NOTIFIERS': 'selected by KVM only; the guests run no KVM',
    'BPF_JIT_ALWAYS_ON': 'unset in Debian too; listed for test_verifier\'s interpreter cases',
    'NUMA_BALANCING': 'the guests have one node',
    'NUMA_BALANCING_DEFAULT_ENABLED': 'the guests have one node',
    'FUNCTION_ERROR_INJECTION': 'upstream selftests config (selftests.config): bpf_override_return, fmod_ret',
    'BPF_KPROBE_OVERRIDE': 'upstream selftests config (selftests.config), follows FUNCTION_ERROR_INJECTION',
}
FLAVOR_EXCEPTIONS = {
    'debug': {
        'PREEMPTIRQ_TRACEPOINTS': 'selected by the irq-flag tracing of PROVE_LOCKING (debug only)',
        'SLUB_RCU_DEBUG': 'KASAN\'s check of objects freed by RCU (debug only)',
    },
    'rt': {
        'PREEMPT_LAZY': 'Debian\'s rt featureset carries the lazy preemption backport from the RT tree; '
                        'linux-source-6.12 ships without it (6.13 merged it)',
        'PREEMPT_DYNAMIC': 'with PREEMPT_RT only through the same backport',
        'PREEMPT_BUILD': 'selected by PREEMPT_DYNAMIC (the same backport)',
    },
    'base': {},
    'distro': {},
    'distro-rt': {},
}


def parse(path):
    opener = lzma.open if path.endswith('.xz') else open
    vals = {}
    with opener(path, 'rt') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'CONFIG_([A-Za-z0-9_]+)=(.*)$', line)
            if m:
                vals[m.group(1)] = m.group(2)
                continue
            m = re.match(r'# CONFIG_([A-Za-z0-9_]+) is not set$', line)
            if m:
                vals[m.group(1)] = 'n'
    return vals


def family(opt):
    for name, rx in FAMILIES.items():
        if re.fullmatch(rx, opt):
            return name
    return None


def exceptions(flavor):
    e = dict(EXCEPTIONS)
    e.update(FLAVOR_EXCEPTIONS.get(flavor, {}))
    return e


def main(argv):
    if len(argv) == 3 and argv[1] == 'debian-path' and argv[2] in DEBIAN:
        print(DEBIAN[argv[2]])
        return 0
    if len(argv) < 3 or argv[1] not in ('fragment', 'full', 'check') or argv[2] not in DEBIAN:
        sys.stderr.write('usage: distro.py fragment|full FLAVOR [DEBIAN_CONFIG] | '
                         'check FLAVOR DOT_CONFIG [DEBIAN_CONFIG]\n')
        return 2
    flavor = argv[2]
    if argv[1] == 'full':
        src = argv[3] if len(argv) > 3 else DEBIAN[flavor]
        print('# Debian\'s own config %s, as kernel/config/distro.py full prints it:'
              % src.rsplit('/', 1)[-1])
        print('# modules left out, FULL_OVERRIDES there applied')
        opener = lzma.open if src.endswith('.xz') else open
        seen = set()
        with opener(src, 'rt') as f:
            for line in f:
                line = line.rstrip('\n')
                m = re.match(r'CONFIG_([A-Za-z0-9_]+)=(.*)$', line) or \
                    re.match(r'# CONFIG_([A-Za-z0-9_]+) is not set$', line)
                opt = m.group(1) if m else None
                seen.add(opt)
                if opt in FULL_OVERRIDES:
                    v = FULL_OVERRIDES[opt][0]
                    line = '# CONFIG_%s is not set' % opt if v == 'n' else 'CONFIG_%s=%s' % (opt, v)
                elif m and line.endswith('=m'):
                    line = '# CONFIG_%s is not set' % opt
                print(line)
        # Debian's published configs leave out the strings its build fills in
        for opt, (v, _) in sorted(FULL_OVERRIDES.items()):
            if opt not in seen:
                print('# CONFIG_%s is not set' % opt if v == 'n' else 'CONFIG_%s=%s' % (opt, v))
        return 0
    if argv[1] == 'fragment':
        deb = parse(argv[3] if len(argv) > 3 else DEBIAN[flavor])
        exc = exceptions(flavor)
        print('# Debian 6.12 %s config (linux-config-6.12), families: %s.'
              % ('rt_amd64' if flavor == 'rt' else 'cloud-amd64', ', '.join(FAMILIES)))
        print('# Generated by kernel/config/distro.py; options it leaves out are listed there')
        print('# with their reasons. Modules (=m in Debian) are built in or left out here.')
        for fam in FAMILIES:
            print('# --- %s' % fam)
            for opt in sorted(o for o in deb if family(o) == fam and o not in exc):
                v = deb[opt]
                if v == 'm':
                    v = 'y'
                print('# CONFIG_%s is not set' % opt if v == 'n' else 'CONFIG_%s=%s' % (opt, v))
        return 0
    if len(argv) < 4:
        sys.stderr.write('distro.py check: FLAVOR DOT_CONFIG [DEBIAN_CONFIG]\n')
        return 2
    built = parse(argv[3])
    deb = parse(argv[4] if len(argv) > 4 else DEBIAN[flavor])
    exc = exceptions(flavor)
    bad = listed = same = 0
    for opt in sorted(set(deb) | set(built)):
        fam = family(opt)
        if not fam:
            continue
        d = deb.get(opt, 'n')
        b = built.get(opt, 'n')
        if d == 'm':
            # the whole-config flavours leave modules out; the others build them in
            d = 'n' if flavor.startswith('distro') else 'y'
        if d == b:
            same += 1
            continue
        if opt in exc:
            listed += 1
            print('listed  %-12s CONFIG_%s: debian %s, %s %s (%s)' % (fam, opt, d, flavor, b, exc[opt]))
            continue
        bad += 1
        print('DIFFERS %-12s CONFIG_%s: debian %s, %s %s' % (fam, opt, d, flavor, b))
    print('%s: %d options the same as Debian, %d listed differences, %d unlisted'
          % (flavor, same, listed, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
