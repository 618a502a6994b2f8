//! What the machine must allow for the sandbox, in words an operator can act
//! on, when bubblewrap cannot build an empty sandbox.
//!
//! bubblewrap's own errors name the system call that failed ("No permissions
//! to creating new namespace", "setting up uid map: Permission denied",
//! "Can't mount proc on /newroot/proc: Operation not permitted"), not the
//! switch that forbids it, and there are several: user namespaces turned off
//! (`user.max_user_namespaces`), or forbidden to unprivileged users
//! (`kernel.unprivileged_userns_clone` on older Debian,
//! `kernel.apparmor_restrict_unprivileged_userns` on Ubuntu from 23.10), and
//! in a container the runtime's seccomp and AppArmor profiles (Docker's
//! default seccomp profile refuses `unshare` and `clone` with a new user
//! namespace, its AppArmor profile refuses `mount`) or its masked `/proc`
//! (the kernel refuses a new `/proc` while parts of the old one are covered).
//! Sandboxed bots run as `nobody` when the arena runs as root, so the limits
//! on unprivileged users hold for them even then.
//!
//! [`Host::read`] gathers those facts; [`advice`] is a pure function of them
//! and of bubblewrap's error, so that each case is tested without the machine.

use std::path::Path;

/// The container runtime the arena runs in, as far as it can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    Docker,
    Podman,
    Kubernetes,
    /// Another runtime (LXC, systemd-nspawn, containerd alone), or one it cannot name.
    Other,
}

/// The facts of this machine that decide whether bubblewrap may make its namespaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Host {
    /// The container the arena runs in, if any.
    pub(crate) container: Option<Container>,
    /// `/proc/sys/user/max_user_namespaces`.
    pub(crate) max_user_namespaces: Option<u64>,
    /// `/proc/sys/kernel/unprivileged_userns_clone` (Debian's older kernels only).
    pub(crate) unprivileged_userns_clone: Option<u64>,
    /// `/proc/sys/kernel/apparmor_restrict_unprivileged_userns` (Ubuntu from 23.10).
    pub(crate) apparmor_restrict_unprivileged_userns: Option<u64>,
    /// Whether the arena runs as root (its bots then run as `nobody`).
    pub(crate) root: bool,
}

impl Host {
    /// The facts of this machine; a file that cannot be read is a fact unknown.
    pub(crate) fn read() -> Host {
        let number = |path: &str| std::fs::read_to_string(path).ok()?.trim().parse().ok();
        Host {
            container: container_of(
                Path::new("/.dockerenv").exists(),
                Path::new("/run/.containerenv").exists(),
                std::env::var_os("KUBERNETES_SERVICE_HOST").is_some(),
                &std::fs::read("/proc/1/environ").unwrap_or_default(),
                &std::fs::read_to_string("/proc/1/cgroup").unwrap_or_default(),
            ),
            max_user_namespaces: number("/proc/sys/user/max_user_namespaces"),
            unprivileged_userns_clone: number("/proc/sys/kernel/unprivileged_userns_clone"),
            apparmor_restrict_unprivileged_userns: number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
            // SAFETY: geteuid has no preconditions.
            root: unsafe { libc::geteuid() } == 0,
        }
    }
}

/// The container from its traces: Docker's `/.dockerenv`, Podman's
/// `/run/.containerenv`, the variable Kubernetes gives every pod, the
/// `container` variable of process 1 (systemd's convention), or a runtime's
/// name in process 1's cgroup (not there with cgroup namespaces).
fn container_of(
    dockerenv: bool,
    containerenv: bool,
    kubernetes: bool,
    environ: &[u8],
    cgroup: &str,
) -> Option<Container> {
    let variable = environ
        .split(|&byte| byte == 0)
        .find_map(|entry| entry.strip_prefix(b"container="));
    if kubernetes || cgroup.contains("kubepods") {
        Some(Container::Kubernetes)
    } else if containerenv || variable == Some(b"podman") || cgroup.contains("libpod") {
        Some(Container::Podman)
    } else if dockerenv || variable == Some(b"docker") || cgroup.contains("/docker") {
        Some(Container::Docker)
    } else if variable.is_some_and(|name| !name.is_empty()) || cgroup.contains("/lxc") {
        Some(Container::Other)
    } else {
        None
    }
}

/// What to change so that bubblewrap can build its sandbox here, given its
/// error `bwrap_error` and the facts of `host`: each switch found off, with
/// the command that turns it on, and in a container the runtime's settings
/// that allow namespaces (and an unmasked `/proc` where bubblewrap could not
/// mount one). Sentences, to follow bubblewrap's error.
pub(crate) fn advice(bwrap_error: &str, host: &Host) -> String {
    let mut said = Vec::new();
    if host.root {
        said.push(
            "The arena runs as root, so bubblewrap runs as the unprivileged `nobody` and needs user namespaces \
             that unprivileged users may create."
                .to_owned(),
        );
    }
    let where_ = if host.container.is_some() {
        " (on the host: a container shares the host's kernel)"
    } else {
        ""
    };
    if host.max_user_namespaces == Some(0) {
        said.push(format!(
            "User namespaces are turned off (user.max_user_namespaces is 0): \
             `sysctl -w user.max_user_namespaces=10000`{where_}."
        ));
    }
    if host.unprivileged_userns_clone == Some(0) {
        said.push(format!(
            "Unprivileged user namespaces are forbidden (kernel.unprivileged_userns_clone is 0): \
             `sysctl -w kernel.unprivileged_userns_clone=1`{where_}."
        ));
    }
    if host.apparmor_restrict_unprivileged_userns == Some(1) {
        said.push(format!(
            "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1): \
             `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`{where_}, or an AppArmor profile for \
             bwrap's path that allows `userns`."
        ));
    }
    if let Some(container) = host.container {
        let proc_masked = bwrap_error.contains("mount proc");
        said.push(in_container(container, proc_masked));
    }
    if said.is_empty() || (said.len() == 1 && host.root) {
        said.push(
            "No switch against user namespaces is set here (user.max_user_namespaces, \
             kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns); check that \
             `unshare --user --map-root-user true` works for an unprivileged user, and that bwrap is 0.7 or later."
                .to_owned(),
        );
    }
    said.join(" ")
}

/// What a container of `container` needs: a seccomp and an AppArmor profile
/// that allow namespaces and mounts, and, where bubblewrap could not mount
/// `/proc` (`proc_masked`), an unmasked `/proc`; or, bluntly, privileges.
fn in_container(container: Container, proc_masked: bool) -> String {
    let docker = format!(
        "`docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined{}`",
        if proc_masked {
            " --security-opt systempaths=unconfined"
        } else {
            ""
        }
    );
    let podman = format!(
        "`podman run --security-opt seccomp=unconfined --security-opt apparmor=unconfined{}`",
        if proc_masked { " --security-opt unmask=ALL" } else { "" }
    );
    let kubernetes = format!(
        "the container's `securityContext` with `seccompProfile: {{type: Unconfined}}` and \
         `appArmorProfile: {{type: Unconfined}}`{}",
        if proc_masked {
            ", and `procMount: Unmasked` (with the pod's `hostUsers: false`)"
        } else {
            ""
        }
    );
    let (name, settings, blunt) = match container {
        Container::Docker => ("Docker", docker, "`docker run --privileged`"),
        Container::Podman => ("Podman", podman, "`podman run --privileged`"),
        Container::Kubernetes => ("Kubernetes", kubernetes, "`privileged: true`"),
        Container::Other => (
            "a container",
            format!("{docker}, {podman} or, in Kubernetes, {kubernetes}"),
            "a privileged container",
        ),
    };
    let why = if proc_masked {
        "the runtime's masks over `/proc` keep bubblewrap from mounting a fresh one, and its default seccomp \
         and AppArmor profiles forbid namespaces and mounts"
    } else {
        "the runtime's default seccomp and AppArmor profiles forbid the namespaces and mounts bubblewrap needs"
    };
    format!(
        "The arena runs in {name}, and {why}: run it with {settings}; {blunt} also works, but gives the \
         arena's container every capability and the host's devices."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_PERMISSION: &str = "bwrap: No permissions to creating new namespace, likely because the kernel does \
                                 not allow non-privileged user namespaces.";
    const UID_MAP: &str = "bwrap: setting up uid map: Permission denied";
    const PROC: &str = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted";

    fn host() -> Host {
        Host {
            container: None,
            max_user_namespaces: Some(63_000),
            unprivileged_userns_clone: None,
            apparmor_restrict_unprivileged_userns: None,
            root: false,
        }
    }

    #[test]
    fn each_switch_and_container_gets_its_remedy() {
        let cases: [(&str, Host, &[&str], &[&str]); 9] = [
            (
                NO_PERMISSION,
                Host {
                    max_user_namespaces: Some(0),
                    ..host()
                },
                &["sysctl -w user.max_user_namespaces=10000`."],
                &["unprivileged_userns_clone=1", "docker", "No switch"],
            ),
            (
                NO_PERMISSION,
                Host {
                    unprivileged_userns_clone: Some(0),
                    ..host()
                },
                &["sysctl -w kernel.unprivileged_userns_clone=1"],
                &["max_user_namespaces=10000", "apparmor_restrict_unprivileged_userns=0"],
            ),
            (
                UID_MAP,
                Host {
                    apparmor_restrict_unprivileged_userns: Some(1),
                    root: true,
                    ..host()
                },
                &[
                    "runs as root, so bubblewrap runs as the unprivileged `nobody`",
                    "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
                    "AppArmor profile for bwrap",
                ],
                &["No switch", "docker"],
            ),
            (
                NO_PERMISSION,
                Host {
                    container: Some(Container::Docker),
                    ..host()
                },
                &[
                    "in Docker",
                    "`docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined`",
                    "`docker run --privileged`",
                ],
                &["systempaths", "podman", "sysctl", "No switch"],
            ),
            (
                PROC,
                Host {
                    container: Some(Container::Docker),
                    ..host()
                },
                &["masks over `/proc`", "--security-opt systempaths=unconfined`"],
                &["podman"],
            ),
            (
                UID_MAP,
                Host {
                    container: Some(Container::Podman),
                    max_user_namespaces: Some(0),
                    ..host()
                },
                &[
                    "`sysctl -w user.max_user_namespaces=10000` (on the host",
                    "`podman run --security-opt seccomp=unconfined --security-opt apparmor=unconfined`",
                ],
                &["unmask", "docker"],
            ),
            (
                PROC,
                Host {
                    container: Some(Container::Kubernetes),
                    ..host()
                },
                &[
                    "in Kubernetes",
                    "`seccompProfile: {type: Unconfined}`",
                    "`appArmorProfile: {type: Unconfined}`",
                    "`procMount: Unmasked` (with the pod's `hostUsers: false`)",
                    "`privileged: true`",
                ],
                &["docker run", "podman run"],
            ),
            (
                NO_PERMISSION,
                Host {
                    container: Some(Container::Other),
                    ..host()
                },
                &[
                    "in a container",
                    "docker run --security-opt",
                    "podman run --security-opt",
                    "in Kubernetes",
                ],
                &["procMount"],
            ),
            (
                NO_PERMISSION,
                Host { root: true, ..host() },
                &["runs as root", "No switch against user namespaces", "unshare --user"],
                &["docker", "sysctl -w"],
            ),
        ];
        for (error, host, present, absent) in cases {
            let advice = advice(error, &host);
            for text in present {
                assert!(advice.contains(text), "{host:?}: no {text:?} in {advice}");
            }
            for text in absent {
                assert!(!advice.contains(text), "{host:?}: {text:?} in {advice}");
            }
        }
    }

    #[test]
    fn containers_are_told_by_their_traces() {
        let none = |environ: &[u8], cgroup: &str| container_of(false, false, false, environ, cgroup);
        assert_eq!(none(b"PATH=/bin\0HOME=/root\0", "0::/init.scope\n"), None);
        assert_eq!(container_of(true, false, false, b"", "0::/\n"), Some(Container::Docker));
        assert_eq!(container_of(false, true, false, b"", "0::/\n"), Some(Container::Podman));
        assert_eq!(
            container_of(true, false, true, b"", "0::/\n"),
            Some(Container::Kubernetes)
        );
        assert_eq!(none(b"HOME=/\0container=podman\0", ""), Some(Container::Podman));
        assert_eq!(none(b"container=lxc\0", ""), Some(Container::Other));
        assert_eq!(none(b"", "12:pids:/docker/0123abcd\n"), Some(Container::Docker));
        assert_eq!(
            none(
                b"",
                "0::/kubepods.slice/kubepods-burstable.slice/cri-containerd-1.scope\n"
            ),
            Some(Container::Kubernetes)
        );
    }
}
