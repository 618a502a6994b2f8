//! A folder lent to the sandbox's user for as long as a sandboxed process
//! must write it (an entrant's build writes its snapshot), and taken back.
//!
//! Where the supervisor runs as root, a sandboxed process runs as `nobody`
//! ([`sandbox::SANDBOX_USER`](crate::sandbox::SANDBOX_USER)) and may write
//! only what `nobody` owns. So the folder and everything in it is handed to
//! `nobody` before the process starts, and handed back to the supervisor's
//! user once every process of it is dead ([`Process::finish`](crate::Process::finish)
//! kills what a build left running): nothing of `nobody`'s can change the
//! folder while it is taken back. Links are never followed (`lchown`, and
//! the walk does not enter a link), so a link the process left pointing at a
//! host file changes that file's owner no more than the link's.
//!
//! Where the supervisor is not root, the process runs as the supervisor's
//! own user, who owns the folder already: nothing is lent.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::sandbox::sandbox_user;

/// A folder lent to the sandbox's user; [`Lent::take_back`] ends the loan.
#[derive(Debug)]
#[must_use = "a lent folder is taken back with `take_back`"]
pub struct Lent {
    folder: PathBuf,
    /// The owner to give it back to: the folder's user and group; `None`
    /// when nothing was lent.
    owner: Option<(u32, u32)>,
}

/// Lends `folder`, and everything in it, to the sandbox's user.
pub fn lend(folder: &Path) -> io::Result<Lent> {
    let owner = match sandbox_user() {
        Some(user) => {
            let meta = std::fs::metadata(folder)?;
            chown_tree(folder, user, user)?;
            Some((meta.uid(), meta.gid()))
        }
        None => None,
    };
    Ok(Lent {
        folder: folder.to_owned(),
        owner,
    })
}

impl Lent {
    /// Gives the folder, and whatever the process made in it, back to its
    /// owner. Call it once every process that wrote it is dead.
    pub fn take_back(self) -> io::Result<()> {
        match self.owner {
            Some((user, group)) => chown_tree(&self.folder, user, group),
            None => Ok(()),
        }
    }
}

/// `lchown`s `top` and everything below it, entering no link.
fn chown_tree(top: &Path, user: u32, group: u32) -> io::Result<()> {
    let mut folders = vec![top.to_owned()];
    std::os::unix::fs::lchown(top, Some(user), Some(group))?;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let path = entry.path();
            std::os::unix::fs::lchown(&path, Some(user), Some(group))?;
            if entry.file_type()?.is_dir() {
                folders.push(path);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As root the folder, its files and its links change hands and come
    /// back; a link's target does not change owner.
    #[test]
    fn a_folder_is_lent_and_taken_back_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let folder = dir.path().join("snapshot");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        std::fs::write(folder.join("sub/f"), "x").unwrap();
        std::fs::write(&outside, "host").unwrap();
        std::os::unix::fs::symlink(&outside, folder.join("link")).unwrap();
        let owner = |path: &Path| std::fs::symlink_metadata(path).unwrap().uid();
        let before = owner(&folder);
        let lent = lend(&folder).unwrap();
        if let Some(user) = sandbox_user() {
            for path in [
                folder.clone(),
                folder.join("sub"),
                folder.join("sub/f"),
                folder.join("link"),
            ] {
                assert_eq!(owner(&path), user, "{}", path.display());
            }
        }
        assert_eq!(owner(&outside), before);
        lent.take_back().unwrap();
        for path in [folder.clone(), folder.join("sub/f"), folder.join("link"), outside] {
            assert_eq!(owner(&path), before, "{}", path.display());
        }
    }
}
