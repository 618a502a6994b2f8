//! The lines of a file, read in bounded memory and worked on by every core, delivered in file order.
//!
//! Reading a journal is nearly all parsing and replaying its records, work that each line needs
//! alone; only a few checks (a game recorded twice) and the caller's use of the records need the
//! file's order. So [`for_each_line`] splits the work three ways: one thread reads the file into
//! *pieces* of about [`PIECE_BYTES`] cut at line ends, a worker per core takes the next piece and
//! works on each of its lines, and the calling thread takes the pieces back in file order and hands
//! their lines on one by one. The pieces' buffers go round: a fixed number of them, each back to the
//! reading thread once its lines are handed on, so that memory is bounded by them (and by the longest
//! line, which a buffer grows to hold), whatever the size of the file.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

/// The bytes of a piece of the file, about: a piece is cut at the first line end from there.
pub(super) const PIECE_BYTES: usize = 1 << 20;

/// The buffers in use at once per worker: one being worked on, one waiting, so that a worker never
/// waits for the reading thread, and the calling thread can hold one.
const BUFFERS_PER_WORKER: usize = 2;

/// One line of the file, without its newline.
#[derive(Debug)]
pub struct Line<'a, T> {
    /// The line's text.
    pub text: &'a [u8],
    /// Whether a newline ends it (only the last line of a file can lack it).
    pub terminated: bool,
    /// What the workers made of it; `None` for a blank line (empty or only whitespace).
    pub read: Option<T>,
}

/// What a worker made of one line of a piece.
struct Worked<T> {
    /// The offset in the piece just past the line's text.
    end: usize,
    read: Option<T>,
}

/// A piece of the file: its place in the file, its bytes and what the workers made of its lines.
type Piece<T> = (usize, Vec<u8>, Vec<Worked<T>>);

/// Reads `source` to its end and calls `each` with each of its lines in file order, `read` having
/// been called on each line that is not blank (on any thread, in any order). Stops at the first
/// error `each` returns, or at a read error, which `io_error` turns into an `E`.
pub fn for_each_line<T: Send, E>(
    source: impl Read + Send,
    read: impl Fn(&[u8]) -> T + Sync,
    mut each: impl FnMut(Line<'_, T>) -> Result<(), E>,
    io_error: impl FnOnce(io::Error) -> E,
) -> Result<(), E> {
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let (free, free_buffers) = channel::<Vec<u8>>();
    for _ in 0..workers * BUFFERS_PER_WORKER + 1 {
        free.send(Vec::new()).expect("the receiver is here");
    }
    let (pieces, to_work) = channel::<(usize, Vec<u8>)>();
    let to_work = Mutex::new(to_work);
    let (worked, done) = channel::<Piece<T>>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_pieces(source, &free_buffers, &pieces));
        for _ in 0..workers {
            let (to_work, worked, read) = (&to_work, worked.clone(), &read);
            scope.spawn(move || work(to_work, &worked, read));
        }
        drop(worked);
        let handed_on = hand_on(&done, &free, &mut each);
        // Whatever stopped the lines, the threads end: the reader once the free buffers run out, the
        // workers once the reader has stopped or nobody takes their pieces.
        drop((done, free));
        let read = reader.join().expect("reading a file does not panic");
        handed_on?;
        read.map_err(io_error)
    })
}

/// The reading thread: fills each free buffer with the next piece of `source` and sends it on.
fn read_pieces(
    mut source: impl Read,
    free_buffers: &Receiver<Vec<u8>>,
    pieces: &Sender<(usize, Vec<u8>)>,
) -> io::Result<()> {
    let mut carried: Vec<u8> = Vec::new();
    for index in 0usize.. {
        let Ok(mut buffer) = free_buffers.recv() else {
            return Ok(());
        };
        buffer.clear();
        buffer.append(&mut carried);
        let mut has_newline = memchr::memchr(b'\n', &buffer).is_some();
        let mut at_end = false;
        while buffer.len() < PIECE_BYTES || !has_newline {
            let start = buffer.len();
            if (&mut source).take(PIECE_BYTES as u64).read_to_end(&mut buffer)? == 0 {
                at_end = true;
                break;
            }
            has_newline |= memchr::memchr(b'\n', &buffer[start..]).is_some();
        }
        if !at_end {
            let cut = memchr::memrchr(b'\n', &buffer).expect("a newline was read") + 1;
            carried.extend_from_slice(&buffer[cut..]);
            buffer.truncate(cut);
        }
        if !buffer.is_empty() && pieces.send((index, buffer)).is_err() {
            return Ok(());
        }
        if at_end {
            return Ok(());
        }
    }
    Ok(())
}

/// A worker: takes the next piece, `read`s each of its lines that is not blank, and sends it to be handed on.
fn work<T>(to_work: &Mutex<Receiver<(usize, Vec<u8>)>>, worked: &Sender<Piece<T>>, read: &impl Fn(&[u8]) -> T) {
    // The lines of the last piece: those of the next one, about, made room for at once.
    let mut lines_before = 0;
    loop {
        let next = to_work.lock().expect("no worker panics holding the lock").recv();
        let Ok((index, buffer)) = next else {
            return;
        };
        let mut lines = Vec::with_capacity(lines_before);
        let mut start = 0;
        while start < buffer.len() {
            let end = memchr::memchr(b'\n', &buffer[start..]).map_or(buffer.len(), |at| start + at);
            let text = &buffer[start..end];
            let blank = text.iter().all(u8::is_ascii_whitespace);
            lines.push(Worked {
                end,
                read: (!blank).then(|| read(text)),
            });
            start = end + 1;
        }
        lines_before = lines.len();
        if worked.send((index, buffer, lines)).is_err() {
            return;
        }
    }
}

/// The calling thread: takes the worked pieces back in file order, calls `each` with their lines, and
/// returns each buffer to the reading thread.
fn hand_on<T, E>(
    done: &Receiver<Piece<T>>,
    free: &Sender<Vec<u8>>,
    each: &mut impl FnMut(Line<'_, T>) -> Result<(), E>,
) -> Result<(), E> {
    let mut waiting: BTreeMap<usize, (Vec<u8>, Vec<Worked<T>>)> = BTreeMap::new();
    let mut next = 0;
    for (index, buffer, lines) in done {
        waiting.insert(index, (buffer, lines));
        while let Some((buffer, lines)) = waiting.remove(&next) {
            let mut start = 0;
            for line in lines {
                each(Line {
                    text: &buffer[start..line.end],
                    terminated: line.end < buffer.len(),
                    read: line.read,
                })?;
                start = line.end + 1;
            }
            // The reading thread may have stopped: the buffer is then of no more use.
            let _ = free.send(buffer);
            next += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `bytes`, as `for_each_line` hands them on: its text, whether it ends with a
    /// newline, and its length where it is not blank.
    fn lines_of(bytes: &[u8]) -> Vec<(Vec<u8>, bool, Option<usize>)> {
        let mut lines = Vec::new();
        for_each_line(
            bytes,
            <[u8]>::len,
            |line| {
                lines.push((line.text.to_vec(), line.terminated, line.read));
                Ok::<(), io::Error>(())
            },
            |error| error,
        )
        .unwrap();
        lines
    }

    #[test]
    fn every_line_comes_in_file_order_with_its_newline_or_not() {
        assert!(lines_of(b"").is_empty());
        assert_eq!(
            lines_of(b"one\n\n \t\nfour, torn"),
            [
                (b"one".to_vec(), true, Some(3)),
                (Vec::new(), true, None),
                (b" \t".to_vec(), true, None),
                (b"four, torn".to_vec(), false, Some(10)),
            ]
        );
        assert_eq!(lines_of(b"one\n"), [(b"one".to_vec(), true, Some(3))]);
    }

    /// Many pieces, lines that straddle the pieces' ends, and a line longer than a piece.
    #[test]
    fn a_file_of_many_pieces_keeps_every_line_whole_and_in_order() {
        let mut expected = Vec::new();
        let mut bytes = Vec::new();
        for number in 0..40_000usize {
            let text = format!("{number:0width$}", width = 1 + number % 200).into_bytes();
            bytes.extend_from_slice(&text);
            bytes.push(b'\n');
            let length = text.len();
            expected.push((text, true, Some(length)));
        }
        let long = vec![b'x'; 3 * PIECE_BYTES + 17];
        bytes.extend_from_slice(&long);
        bytes.push(b'\n');
        expected.push((long.clone(), true, Some(long.len())));
        bytes.extend_from_slice(b"last");
        expected.push((b"last".to_vec(), false, Some(4)));
        assert!(bytes.len() > 6 * PIECE_BYTES);
        assert!(lines_of(&bytes) == expected, "the lines differ");
    }

    #[test]
    fn the_first_error_stops_the_lines_and_a_read_error_is_returned() {
        let bytes: Vec<u8> = (0..100_000).flat_map(|n| format!("{n}\n").into_bytes()).collect();
        let mut seen = 0;
        let stopped = for_each_line(
            bytes.as_slice(),
            |_| (),
            |_| {
                seen += 1;
                if seen == 50_000 { Err("stop") } else { Ok(()) }
            },
            |_| "read error",
        );
        assert_eq!((stopped, seen), (Err("stop"), 50_000));

        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("the disk is gone"))
            }
        }
        let failed = for_each_line(Failing, |_| (), |_| Ok(()), |error| error.to_string());
        assert_eq!(failed, Err("the disk is gone".to_owned()));
    }
}
