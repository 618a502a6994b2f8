//! The sandbox set up as root, then handed to `nobody`: the bot's folders
//! reach bubblewrap wherever they lie, a 0700 folder above them included.
//!
//! When the arena runs as root, bubblewrap runs as `nobody`, so that the bot
//! owns no file of the host. But bubblewrap resolves every folder it binds
//! by its path, as `nobody`: a bot whose folder lies under a folder that
//! others may not enter (`/root`, a `mktemp -d` folder, where CI systems and
//! containers work) could not start. Handing bubblewrap open descriptors
//! does not help: it resolves `/proc/self/fd/N` by its path again.
//!
//! So the arena, as root, copies each of the bot's folders into a detached
//! mount (`open_tree(OPEN_TREE_CLONE)`, which reaches any path), and the
//! child that becomes bubblewrap does this first, still as root, between
//! `fork` and `exec`:
//!
//! 1. it enters a mount namespace of its own (`unshare(CLONE_NEWNS)`, all
//!    mounts private: nothing it mounts is seen by the host);
//! 2. it covers `/tmp` there with a small tmpfs (the sandbox has its own
//!    `/tmp` anyway) and attaches each detached copy at `/tmp/bind-N`
//!    (`move_mount`), a path any user can reach;
//! 3. it drops to `nobody` (groups, group, user) and runs bubblewrap, whose
//!    binds name `/tmp/bind-N` as their sources and the folders' own paths
//!    as their destinations.
//!
//! The host's mount table never changes, and nothing is left behind: the
//! namespace ends with the sandbox.

use std::ffi::CString;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::CWD;
use rustix::mount::{MoveMountFlags, OpenTreeFlags};

/// Where the staged folders lie, in the child's own mount namespace.
const STAGE: &str = "/tmp";

/// The folders to bind, opened by the arena as root, and the user to become.
#[derive(Debug)]
pub(crate) struct Stage {
    sources: Vec<Staged>,
    user: u32,
}

#[derive(Debug)]
struct Staged {
    /// A detached copy of the folder or file's mounts, close-on-exec.
    tree: OwnedFd,
    /// Its mount point in the stage, `/tmp/bind-N`.
    at: CString,
    is_dir: bool,
}

impl Stage {
    /// Opens `paths` (as the arena's user, root) to stage them for `user`.
    pub(crate) fn open(paths: &[PathBuf], user: u32) -> io::Result<Stage> {
        let sources = paths
            .iter()
            .enumerate()
            .map(|(index, path)| {
                let flags =
                    OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::AT_RECURSIVE | OpenTreeFlags::OPEN_TREE_CLOEXEC;
                let tree = rustix::mount::open_tree(CWD, path, flags).map_err(|error| {
                    io::Error::new(
                        error.kind(),
                        format!("cannot copy {} for the sandbox: {error}", path.display()),
                    )
                })?;
                Ok(Staged {
                    at: c_string(Stage::source(index).as_os_str().as_bytes()),
                    is_dir: path.is_dir(),
                    tree,
                })
            })
            .collect::<io::Result<_>>()?;
        Ok(Stage { sources, user })
    }

    /// What bubblewrap binds for the `index`-th path given to [`Stage::open`].
    pub(crate) fn source(index: usize) -> PathBuf {
        Path::new(STAGE).join(format!("bind-{index}"))
    }

    /// Builds the stage and drops to the sandbox's user. Runs in the child
    /// between `fork` and `exec`: system calls only, no allocation (the
    /// paths were made by [`Stage::open`]).
    pub(crate) fn enter(&self) -> io::Result<()> {
        let os = |result: libc::c_int| {
            if result == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        };
        // SAFETY: plain system calls on NUL-terminated strings that live as
        // long as `self`; no memory is allocated or freed.
        unsafe {
            os(libc::unshare(libc::CLONE_NEWNS))?;
            os(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            os(libc::mount(
                c"pahtum-stage".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                c"mode=0755,size=64k".as_ptr().cast(),
            ))?;
            for staged in &self.sources {
                if staged.is_dir {
                    os(libc::mkdir(staged.at.as_ptr(), 0o755))?;
                } else {
                    let fd = libc::open(
                        staged.at.as_ptr(),
                        libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                        0o644,
                    );
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    libc::close(fd);
                }
                rustix::mount::move_mount(
                    &staged.tree,
                    c"",
                    CWD,
                    staged.at.as_c_str(),
                    MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
                )?;
            }
            os(libc::setgroups(0, std::ptr::null()))?;
            os(libc::setgid(self.user))?;
            os(libc::setuid(self.user))?;
        }
        // The trees' descriptors close at `exec`: bubblewrap gets none.
        Ok(())
    }
}

fn c_string(bytes: &[u8]) -> CString {
    CString::new(bytes).expect("a path has no NUL byte")
}
