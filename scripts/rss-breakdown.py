#!/usr/bin/env python3
"""What a command's peak resident memory is made of.

    scripts/rss-breakdown.py COMMAND [ARGS...]

Runs COMMAND, reads its /proc/PID/smaps every 10 ms, and prints, at the sample
of highest Rss, the Rss by kind of mapping: the binary's code (`r-xp`), its
read-only data and relocated pointers (`r--p`; the relocated ones are
anonymous), the shared libraries, the main heap, the other anonymous mappings
(the other threads' malloc arenas and large allocations), the threads' stacks
(2 MiB mappings) and the main thread's. A sample misses the last 10 ms, so
compare its peak with `/usr/bin/time`'s maximum RSS of the same command
(docs/performance.md, "Lighter than fastchess").
"""
import collections
import os
import re
import subprocess
import sys
import time

MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")


def kind(size_kb, perm, name, exe):
    """The kind of a mapping, as the breakdown names it."""
    if name == exe:
        return f"the binary, {perm}"
    if name.startswith("/"):
        return f"shared libraries, {perm}"
    if name in ("[heap]", "[stack]", "[vdso]", "[vvar]"):
        return {"[heap]": "main heap", "[stack]": "main thread's stack"}.get(name, name)
    return "threads' stacks" if size_kb == 2048 else "other anonymous (arenas, large allocations)"


def breakdown(smaps, exe):
    """Rss and its anonymous part by kind, in kB."""
    rss, anonymous = collections.Counter(), collections.Counter()
    current = None
    for line in smaps.splitlines():
        mapping = MAPPING.match(line)
        if mapping:
            size = (int(mapping[2], 16) - int(mapping[1], 16)) // 1024
            current = kind(size, mapping[3], mapping[4], exe)
        elif line.startswith("Rss:"):
            rss[current] += int(line.split()[1])
        elif line.startswith("Anonymous:"):
            anonymous[current] += int(line.split()[1])
    return rss, anonymous


def main():
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, threads, exe = (collections.Counter(), collections.Counter()), 0, None
    while child.poll() is None:
        try:
            exe = exe or os.readlink(f"/proc/{child.pid}/exe")
            with open(f"/proc/{child.pid}/smaps") as smaps:
                sample = breakdown(smaps.read(), exe)
            count = len(os.listdir(f"/proc/{child.pid}/task"))
        except OSError:
            break
        if sum(sample[0].values()) > sum(peak[0].values()):
            peak, threads = sample, count
        time.sleep(0.01)
    rss, anonymous = peak
    total = sum(rss.values())
    print(f"peak Rss {total} kB ({total / 1024:.1f} MiB), {threads} threads")
    for name, kb in rss.most_common():
        if kb:
            print(f"  {kb:6d} kB  {name} (anonymous {anonymous[name]} kB)")
    sys.exit(child.wait())


main()
