//! Letting go of the mapped pages a finished phase of the process read.
//!
//! Most of a run's peak resident memory is not its data but the pages of files it maps: the binary's code
//! and read-only data, and the shared libraries'. The kernel maps a file's pages into the process many at a
//! time around each one touched (fault-around, or a large page-cache folio whole), and they stay mapped for
//! the life of the process, whether the code they hold runs again or not. So the code that parsed the
//! command line and set the run up, and the relocations the loader read, would still count while the games
//! play; and the games' code while the report is written.
//!
//! [`release_idle_pages`] unmaps, at the end of such a phase, every page the process maps from a file and
//! has not written: the binary's and the libraries' code and read-only data. The pages stay in the page
//! cache; the next use of one maps it again with a minor fault, a few microseconds. Nothing written is
//! touched: a mapping with a page of its own (the relocated pointers, the data) is left as it is. The
//! allocator's free memory, which the phase's work left behind, goes back to the system too.

use std::io::BufRead;

/// Hands back the allocator's free memory and unmaps the file pages the process maps read-only and has not
/// written, so that the next phase holds only the pages it uses. Best effort: a failure leaves the pages
/// mapped, as they were.
///
/// Never inlined: `scripts/hot-text.sh` cuts its profiles into phases where this function is entered.
#[inline(never)]
pub fn release_idle_pages() {
    // SAFETY: malloc_trim hands the allocator's free memory back to the system; it frees nothing in use.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::malloc_trim(0);
    }
    let Ok(smaps) = std::fs::File::open("/proc/self/smaps") else {
        return;
    };
    for (start, end) in unwritten_file_mappings(std::io::BufReader::new(smaps)) {
        // SAFETY: the range is a whole mapping of a file that is not writable and holds no anonymous
        // (written, copy-on-write) page, so every page of it reads back from the file as it was: these are
        // the clean pages that the kernel itself takes back whenever memory runs short.
        let _ = unsafe { rustix::mm::madvise(start as *mut _, end - start, rustix::mm::Advice::LinuxDontNeed) };
    }
}

/// The address ranges of the file mappings in `smaps` that are not writable and hold no anonymous page.
fn unwritten_file_mappings(smaps: impl BufRead) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for line in smaps.lines().map_while(Result::ok) {
        if let Some(range) = mapping_header(&line) {
            current = range;
        } else if let Some(anonymous) = line.strip_prefix("Anonymous:")
            && let Some(range) = current.take()
            && anonymous.trim() == "0 kB"
        {
            found.push(range);
        }
    }
    found
}

/// A mapping's header line: `Some(Some(range))` for a read-only mapping of a file, `Some(None)` for any
/// other mapping, `None` for a line that is not a header.
fn mapping_header(line: &str) -> Option<Option<(usize, usize)>> {
    let mut fields = line.split_ascii_whitespace();
    let (range, perms) = (fields.next()?, fields.next()?);
    let (start, end) = range.split_once('-')?;
    let (start, end) = (
        usize::from_str_radix(start, 16).ok()?,
        usize::from_str_radix(end, 16).ok()?,
    );
    let (_offset, _device, inode) = (fields.next()?, fields.next()?, fields.next()?);
    let path = fields.next().unwrap_or("");
    let file_backed = inode != "0" && path.starts_with('/');
    let read_only = perms.len() == 4 && perms.starts_with('r') && perms.as_bytes()[1] == b'-' && perms.ends_with('p');
    Some((file_backed && read_only).then_some((start, end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `/proc/PID/smaps` of the mappings `(range, permissions, path, anonymous kB)`, as the kernel writes
    /// it (the lines the parser skips left out but `Rss`).
    fn smaps(mappings: &[(&str, &str, &str, u32)]) -> String {
        let mut text = String::new();
        for (range, perms, path, anonymous) in mappings {
            let (device, inode) = if path.starts_with('/') {
                ("fd:00", 1234)
            } else {
                ("00:00", 0)
            };
            text += &format!("{range} {perms} 00000000 {device} {inode} {path}\n");
            text += &format!("Rss:                 {anonymous} kB\nAnonymous:           {anonymous} kB\n");
        }
        text
    }

    fn sample() -> String {
        smaps(&[
            ("5581e4a00000-5581e4f6a000", "r--p", "/usr/bin/arena", 0),
            ("5581e4f6a000-5581e628b000", "r-xp", "/usr/bin/arena", 0),
            ("5581e628b000-5581e6307000", "r--p", "/usr/bin/arena", 496),
            ("5581e6307000-5581e630d000", "rw-p", "/usr/bin/arena", 24),
            ("5581e7000000-5581e7100000", "rw-p", "[heap]", 740),
            ("7f0000000000-7f0000010000", "---p", "/usr/lib/libc.so.6", 0),
            ("7f0000010000-7f0000160000", "r-xp", "/usr/lib/libc.so.6", 0),
            ("7ffd00000000-7ffd00002000", "r-xp", "[vdso]", 0),
        ])
    }

    #[test]
    fn only_the_read_only_file_mappings_without_a_written_page_are_let_go() {
        let found = unwritten_file_mappings(sample().as_bytes());
        assert_eq!(
            found,
            [
                (0x5581e4a00000, 0x5581e4f6a000),
                (0x5581e4f6a000, 0x5581e628b000),
                (0x7f0000010000, 0x7f0000160000)
            ],
            "the relocated pointers, the data, the heap, a guard and the vdso stay"
        );
    }

    /// The Rss of this process's own code, in kB.
    fn code_rss() -> u64 {
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut ours = false;
        let mut total = 0;
        for line in smaps.lines() {
            if mapping_header(line).is_some() {
                ours = line.contains(" r-xp ") && line.ends_with(exe.to_str().unwrap());
            } else if ours && let Some(kb) = line.strip_prefix("Rss:") {
                total += kb.trim().trim_end_matches(" kB").parse::<u64>().unwrap();
            }
        }
        total
    }

    #[test]
    fn the_code_a_phase_ran_is_no_longer_resident_and_runs_again() {
        let before = code_rss();
        release_idle_pages();
        let after = code_rss();
        assert!(
            before > 0 && after < before,
            "code Rss {before} kB before, {after} kB after"
        );
        // The code still runs: the pages come back from the page cache.
        assert_eq!(unwritten_file_mappings(sample().as_bytes()).len(), 3);
    }
}
