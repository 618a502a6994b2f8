//! Directory entries by raw `getdents64`, for the code that the containment's
//! guard runs after `fork` in a multi-threaded process (the sweep of `/proc`,
//! the removal of the cgroups): no allocation, no lock, a stack buffer. A
//! module of its own because both the containment and the cgroups use it.

use std::ffi::CStr;

/// Calls `each` with the name of every entry of the directory `dir_fd`
/// (raw `getdents64`, for the guard).
pub(crate) fn for_each_entry(dir_fd: libc::c_int, each: &mut dyn FnMut(&CStr)) {
    /// `struct linux_dirent64`'s header: inode, offset, record length, type.
    const NAME_AT: usize = 8 + 8 + 2 + 1;
    #[repr(C, align(8))]
    struct Buffer([u8; 8192]);
    let mut buffer = Buffer([0; 8192]);
    // SAFETY: rewinding a directory descriptor.
    unsafe { libc::lseek(dir_fd, 0, libc::SEEK_SET) };
    loop {
        // SAFETY: getdents64 fills the buffer it is given, up to its length.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, dir_fd, buffer.0.as_mut_ptr(), buffer.0.len()) };
        if n <= 0 {
            return;
        }
        let entries = &buffer.0[..n as usize];
        let mut at = 0;
        while at + NAME_AT < entries.len() {
            let length = usize::from(u16::from_ne_bytes([entries[at + 16], entries[at + 17]]));
            if length == 0 || at + length > entries.len() {
                return;
            }
            if let Ok(name) = CStr::from_bytes_until_nul(&entries[at + NAME_AT..at + length]) {
                each(name);
            }
            at += length;
        }
    }
}
