#!/usr/bin/env python3
"""The functions of BINARY that ran, from callgrind profiles, as the linker script
that places them together, phase by phase (crates/arena/hot-text.ld; see
scripts/hot-text.sh).

    scripts/hot-text.py BINARY OUT PROFILE...

A profile is a file of `valgrind --tool=callgrind --dump-instr=yes
--dump-before=arena::resident::release_idle_pages`, where each instruction that
ran is named by its address, and each part (`FILE.PID.1`, `FILE.PID.2`, then
`FILE.PID`) is a phase of the run: the start, the games, the report. The process lets go of its
code's pages between phases (`crates/arena/src/resident.rs`), so a phase holds
only the pages of the functions it runs: each phase's functions are placed in
one stretch, in the order start only, start and games, games only, every phase,
games and report, report only, start and report, where the games' stretch (the
longest phase) and the report's (the largest heap) are unbroken.

A list of symbols (a `.txt` file, one a line: what `perf` found running natively,
where the runtime's timing takes paths that valgrind's does not) counts as the
games phase, or, for a file named `*bots.txt`, as the bots' (the built-in bots run
the same binary): a function that only the bots run is placed after all the
others. Each address is looked up in the
binary's symbol table (`nm -S`), and each function that holds one becomes a
pattern of its section's name, without the hash at its end (`17h...E` in Rust's
legacy mangling, and ThinLTO's `.llvm.N`) where that places few bytes that did
not run (see `main`), so that the script still matches after a rebuild with
other features or other dependencies' versions, where the hashes differ. A
function it does not match keeps its usual place: a stale script costs memory,
never correctness.
"""
import bisect
import collections
import re
import subprocess
import sys

HASH = re.compile(r"17h[0-9a-f]{16}E(\.llvm\.[0-9]+)?$")
LLVM = re.compile(r"\.llvm\.[0-9]+$")


def addresses(path, binary):
    """The addresses of the instructions of `binary` that ran, in one callgrind file."""
    names, current, last, found = {}, None, 0, set()
    with open(path) as lines:
        for line in lines:
            first = line[:1]
            if first in "0123456789+-*":
                if current is None:
                    continue
                token = line.split(None, 1)[0]
                if token.startswith("0x"):
                    last = int(token, 16)
                elif first in "+-":
                    last += int(token)
                found.add(last)
                continue
            named = re.match(r"(c?)ob=\((\d+)\)(?: (.*))?", line.strip())
            if named:
                if named[3]:
                    names[named[2]] = named[3]
                if not named[1]:
                    current = named[2] if names.get(named[2]) == binary else None
    return found


def functions(binary):
    """The binary's functions with a size, by address."""
    listed = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True)
    found = []
    for line in listed.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW" and int(parts[1], 16) > 0:
            found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return sorted(found)


# A function's phases, as bits: the match's own (start, games, report), and its bots' processes'.
START, GAMES, REPORT, BOTS = 1, 2, 4, 8
# The order of the stretches: each phase's functions lie together (the start's but for its end), and the
# functions that only the bots run after them all.
ORDER = [START, START | GAMES, GAMES, START | GAMES | REPORT, GAMES | REPORT, REPORT, START | REPORT, BOTS]
PART = re.compile(r"\.\d+\.(\d+)$")


def stretch_name(phases):
    """The name of a stretch of functions: the phases that run them."""
    names = {START: "start", GAMES: "games", REPORT: "report", BOTS: "bots only"}
    return "+".join(name for bit, name in names.items() if phases & bit)


def phase_of(path):
    """The phase of a profile: its callgrind part (`FILE.PID.1` the start, `FILE.PID.2` the games, `FILE.PID`,
    the last part, the report); a list of symbols, the games."""
    if path.endswith("bots.txt"):
        return BOTS
    if path.endswith(".txt"):
        return GAMES
    part = PART.search(path)
    return {1: START, 2: GAMES}[int(part[1])] if part else REPORT


def main():
    binary, out, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    table = functions(binary)
    by_name = {}
    for entry in table:
        by_name.setdefault(entry[2], []).append(entry)
    starts = [start for start, _, _ in table]
    aliases = collections.defaultdict(list)
    for entry in table:
        aliases[entry[0]].append(entry)
    phases = collections.Counter()
    instructions = 0
    # The profiles first: they know each function's phases. The samples, which cover the whole run, only add
    # the functions that no profile saw (the match's to its games, the bots' to theirs).
    for path in sorted(inputs, key=lambda path: path.endswith(".txt")):
        phase = phase_of(path)
        if path.endswith(".txt"):
            with open(path) as names:
                hot = [entry for line in names for entry in by_name.get(line.strip(), [])]
        else:
            ran = addresses(path, binary)
            instructions += len(ran)
            hot = []
            for address in ran:
                index = bisect.bisect_right(starts, address) - 1
                if index >= 0 and address < table[index][0] + table[index][1]:
                    hot.append(table[index])
        # Identical functions are folded into one, whose section is named after one of its names: each
        # name at the address is placed.
        profiled = set(phases) if path.endswith(".txt") else set()
        for entry in {alias for entry in hot for alias in aliases[entry[0]]} - profiled:
            phases[entry] |= phase
    # A function is named without its hash where that costs little: ThinLTO's suffix for a function it made
    # local changes with any change to its module, and the legacy hash with any change to a crate's metadata,
    # so such a pattern still matches after those. But a generic function's instances share that name
    # (legacy mangling names no type arguments), and some have hundreds (serde's `deserialize_struct`, 1.6 MB
    # of them): where the pattern would place more than twice the bytes that ran, or 16 KiB more, the
    # instances that ran are named whole.
    hashless = lambda name: HASH.sub("17h*", LLVM.sub(".llvm.*", name)) if HASH.search(name) else LLVM.sub(".llvm.*", name)
    every = collections.Counter()
    for _, length, name in table:
        every[hashless(name)] += length
    ran_of = collections.Counter()
    for _, length, name in phases:
        ran_of[hashless(name)] += length
    cheap = {pattern for pattern, ran in ran_of.items() if every[pattern] <= max(2 * ran, ran + 16384)}
    pattern_of = lambda name: hashless(name) if hashless(name) in cheap else LLVM.sub(".llvm.*", name)
    phase_of_pattern = collections.Counter()
    for entry, phase in phases.items():
        phase_of_pattern[pattern_of(entry[2])] |= phase
    # A function the match's process runs too lies with its phases.
    phase_of_pattern = {pattern: phase & ~BOTS if phase & ~BOTS else BOTS for pattern, phase in phase_of_pattern.items()}
    placed_bytes = collections.Counter()
    for start, length, name in table:
        pattern = pattern_of(name)
        if pattern in phase_of_pattern:
            placed_bytes[phase_of_pattern[pattern]] += length
    patterns = sorted(phase_of_pattern, key=lambda pattern: (ORDER.index(phase_of_pattern[pattern]), pattern))
    ran_bytes = sum(length for _, length, _ in phases)
    with open(out, "w") as script:
        script.write(
            "/* Generated by scripts/hot-text.sh: the functions that `arena match` runs, placed together by\n"
            f"   phase ({len(phases)} functions ran, {ran_bytes} bytes; {len(patterns)} patterns placing"
            f" {sum(placed_bytes.values())} bytes).\n   See crates/arena/build.rs. */\n"
            "SECTIONS {\n  .text : {\n"
        )
        stretch = None
        for pattern in patterns:
            if phase_of_pattern[pattern] != stretch:
                stretch = phase_of_pattern[pattern]
                script.write(f"    /* {stretch_name(stretch)}: {placed_bytes[stretch]} bytes */\n")
            # LLVM puts a function that it finds cold in `.text.unlikely.NAME`, even one that ran.
            script.write(f"    *(.text.{pattern} .text.unlikely.{pattern})\n")
        # The rest of the code after them, in the section every tool looks for code in (valgrind names no
        # function outside `.text`).
        script.write("    *(.text .text.*)\n  }\n}\nINSERT BEFORE .init;\n")
    stretches = ", ".join(f"{stretch_name(phase)} {placed_bytes[phase]}" for phase in ORDER)
    print(
        f"{instructions} instructions ran in {len(phases)} functions ({ran_bytes} bytes); "
        f"{len(patterns)} patterns; bytes placed by phase: {stretches}",
        file=sys.stderr,
    )


main()
