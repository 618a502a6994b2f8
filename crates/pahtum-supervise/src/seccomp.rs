//! The system-call filter of the sandbox: the kernel's riskiest interfaces,
//! closed to a bot, in a way no game bot notices.
//!
//! The namespaces already take the network, the host's files and the other
//! processes away. What is left to a bot is the kernel itself, and inside a
//! user namespace of its own a bot would hold every capability over it
//! (a red team created nf_tables tables, opened raw sockets and mounted file
//! systems that way). This filter, handed to bubblewrap (`--add-seccomp-fd FD`, applied just before the bot's program runs),
//! refuses with `EPERM`:
//!
//! * new namespaces: `unshare`, `setns`, and `clone` with any `CLONE_NEW*`
//!   flag (`clone3`, whose flags the filter cannot read, answers `ENOSYS`,
//!   which makes the C library fall back to `clone`, as Docker does);
//! * mounts: `mount`, `umount2`, `pivot_root` and the new mount API;
//! * `io_uring`, `userfaultfd`, the key rings (`keyctl`, `add_key`,
//!   `request_key`), `bpf`, `perf_event_open`;
//! * kernel modules, `kexec`, `reboot`, swap, accounting, quotas, the clock,
//!   `syslog`, I/O ports, file handles (`open_by_handle_at`);
//! * `ptrace` and `process_vm_readv`/`writev`: a bot needs to trace nothing,
//!   and the filter cannot tell a bot's own children from bubblewrap, which
//!   shares its PID namespace;
//! * old interfaces: `modify_ldt`, `uselib`, `_sysctl`, `ustat`, `sysfs`,
//!   `personality` other than the default or a query; calls through the
//!   32-bit ABI (another architecture) end the process, as seccompiler's
//!   architecture check does, and the x32 numbers of every call above are
//!   refused too;
//! * Unix sockets (`socket(AF_UNIX, …)`): a read-only bind does not stop a
//!   `connect` to a socket file, so a socket of the host in a folder the bot
//!   sees would be a way out of "no network". Socket pairs (`socketpair`),
//!   which runtimes use between their own threads and processes, stay.
//!
//! This follows Docker's default profile, under which Python, Node, the JVM,
//! Go and C++ programs run every day; every starter bot plays whole games
//! under it (the starter tests). The filter is built with seccompiler (from
//! Firecracker), once per process.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// The x32 ABI's bit in a system call's number (x86-64 only).
const X32_SYSCALL_BIT: i64 = 0x4000_0000;

/// Calls refused whatever their arguments.
const DENIED: &[(&str, i64)] = &[
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("clock_adjtime", libc::SYS_clock_adjtime),
    ("adjtimex", libc::SYS_adjtimex),
    ("syslog", libc::SYS_syslog),
    ("iopl", libc::SYS_iopl),
    ("ioperm", libc::SYS_ioperm),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("modify_ldt", libc::SYS_modify_ldt),
    ("uselib", libc::SYS_uselib),
    ("_sysctl", libc::SYS__sysctl),
    ("ustat", libc::SYS_ustat),
    ("sysfs", libc::SYS_sysfs),
    ("lookup_dcookie", libc::SYS_lookup_dcookie),
    ("vhangup", libc::SYS_vhangup),
    ("fanotify_init", libc::SYS_fanotify_init),
];

/// The namespace flags of `clone`: any one of them is refused.
const NAMESPACE_FLAGS: [i32; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

/// `personality` values a runtime may use: the default and the query.
const PERSONALITIES: [u64; 2] = [0, 0xffff_ffff];

/// The names of the calls the filter refuses, for the documents and tests.
pub fn denied_calls() -> impl Iterator<Item = &'static str> {
    DENIED.iter().map(|&(name, _)| name).chain([
        "clone (with a CLONE_NEW* flag)",
        "clone3 (ENOSYS)",
        "personality (other than 0 and 0xffffffff)",
        "socket (AF_UNIX)",
    ])
}

/// The filters as bubblewrap reads them (`--add-seccomp-fd`, one each):
/// BPF programs as the kernel's `struct sock_filter` arrays, in native byte
/// order. Two, because one filter has one answer for what it matches:
/// `EPERM` for the refused calls, `ENOSYS` for `clone3`. The kernel runs
/// both on every call. Built once; empty on an architecture seccompiler
/// does not know.
pub(crate) fn programs() -> &'static [Vec<u8>] {
    static PROGRAMS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    PROGRAMS.get_or_init(build)
}

fn build() -> Vec<Vec<u8>> {
    let Ok(arch) = TargetArch::try_from(std::env::consts::ARCH) else {
        return Vec::new();
    };
    // clone3's flags lie behind a pointer: "not implemented" sends the C
    // library back to clone, whose flags the filter reads.
    let clone3 = BTreeMap::from([(libc::SYS_clone3, Vec::new())]);
    [
        filter(arch, refused_rules(arch), libc::EPERM),
        filter(arch, clone3, libc::ENOSYS),
    ]
    .iter()
    .map(|program| {
        program
            .iter()
            .flat_map(|instruction| {
                let mut bytes = Vec::with_capacity(8);
                bytes.extend(instruction.code.to_ne_bytes());
                bytes.push(instruction.jt);
                bytes.push(instruction.jf);
                bytes.extend(instruction.k.to_ne_bytes());
                bytes
            })
            .collect()
    })
    .collect()
}

/// One BPF program that answers `errno` to the calls of `rules` and lets
/// every other call through.
fn filter(arch: TargetArch, rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> BpfProgram {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch)
        .expect("the sandbox's seccomp rules are valid");
    BpfProgram::try_from(filter).expect("the sandbox's seccomp filter compiles")
}

fn refused_rules(arch: TargetArch) -> BTreeMap<i64, Vec<SeccompRule>> {
    let condition = |arg, op, value| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).expect("a valid seccomp condition")
    };
    let rule = |conditions| SeccompRule::new(conditions).expect("a rule with conditions");
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = DENIED.iter().map(|&(_, number)| (number, Vec::new())).collect();
    rules.insert(
        libc::SYS_clone,
        NAMESPACE_FLAGS
            .iter()
            .map(|&flag| {
                let flag = flag as u64;
                rule(vec![condition(0, SeccompCmpOp::MaskedEq(flag), flag)])
            })
            .collect(),
    );
    rules.insert(
        libc::SYS_personality,
        vec![rule(
            PERSONALITIES
                .iter()
                .map(|&allowed| condition(0, SeccompCmpOp::Ne, allowed))
                .collect(),
        )],
    );
    rules.insert(
        libc::SYS_socket,
        vec![rule(vec![condition(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)])],
    );
    if matches!(arch, TargetArch::x86_64) {
        let x32: Vec<_> = rules
            .iter()
            .map(|(&number, rules)| (number | X32_SYSCALL_BIT, rules.clone()))
            .collect();
        rules.extend(x32);
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The program is whole instructions, and small enough for the kernel
    /// (4096 instructions at most).
    #[test]
    fn the_filters_compile_to_whole_instructions() {
        assert_eq!(programs().len(), 2);
        for program in programs() {
            assert_eq!(program.len() % 8, 0);
            assert!(program.len() / 8 < 4096, "{} instructions", program.len() / 8);
        }
    }

    /// Every refused call is named in the list the documents show.
    #[test]
    fn every_refused_call_is_listed() {
        let listed: Vec<_> = denied_calls().collect();
        for name in [
            "unshare",
            "mount",
            "io_uring_setup",
            "userfaultfd",
            "keyctl",
            "bpf",
            "ptrace",
        ] {
            assert!(listed.contains(&name), "{name}");
        }
        assert!(listed.iter().any(|call| call.starts_with("socket (AF_UNIX)")));
    }
}
