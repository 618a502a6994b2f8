//! Places together, in the `arena` binary, the functions that a match runs, phase by phase
//! (`hot-text.ld`, made by `scripts/hot-text.sh` from callgrind profiles and `perf` samples).
//!
//! Why: the kernel maps a program's code into its memory many pages at a time around each page it runs
//! (fault-around, 64 KiB; or a large page-cache folio whole), and every page so mapped counts in its
//! resident memory. The 2.4 MB of functions that `arena match` runs lay spread over the binary's 18 MB of
//! code, from the runtime, serde and the report to every crate between them, so a match held 9 MB of
//! code. The process lets go of its code's pages where a phase ends (`src/resident.rs`: after the start,
//! after the games), and the script places each phase's functions in one stretch, so that the games hold
//! about the games' code, and the report the report's (docs/performance.md, "Lighter than fastchess").
//! The script names a function by its section without the hash of its mangled name where that places few
//! other bytes, so it still matches after small changes; a function it does not name keeps its usual
//! place, so a stale script costs memory, never correctness.
//!
//! Only on x86_64 Linux with glibc, where Rust links with lld, which (as GNU ld) reads a script of
//! `INSERT` commands as an addition to its own layout; and only in a release build, the one whose memory
//! is measured and shipped (the test builds link as they always did). Regenerate the script after
//! changes to the code a match runs or to the dependencies (`scripts/hot-text.sh`).

use std::path::Path;

fn main() {
    let script = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("hot-text.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-changed=build.rs");
    let release = std::env::var("PROFILE").is_ok_and(|profile| profile == "release");
    if release && std::env::var("TARGET").is_ok_and(|target| target == "x86_64-unknown-linux-gnu") && script.exists() {
        println!("cargo:rustc-link-arg-bin=arena=-Wl,-T,{}", script.display());
    }
}
