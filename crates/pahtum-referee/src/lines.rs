//! A bounded, cancel-safe line reader: the one persistent reader of a bot's
//! stdout.
//!
//! The buffer has a fixed size (the longest legal line plus an optional `\r`
//! and its newline: the `\r` does not count toward the limit), so
//! the referee's memory stays bounded however many bytes a bot prints without
//! a newline: a line that outgrows it is an error at once, without waiting for
//! the rest. Bytes after a line stay in the buffer for the next call, so that
//! nothing a bot printed is dropped. The only await point is the read itself,
//! and the state changes after it, so a `select!` may cancel
//! [`LineReader::next_line`] at any time without losing data.
//!
//! A reader made with [`LineReader::eager`] first tries a read of its own,
//! straight on the file descriptor, before it asks the runtime: when the
//! referee and a bot share a core, the bot has usually run and answered by
//! the time the referee's write returns, and the runtime would only learn
//! that from the next `epoll_wait` (a system call and a turn of its event
//! loop per move). A read that finds nothing yields the core once and reads
//! again: a bot woken on this core that did not take the core at the write
//! runs and answers then (with these two reads, `epoll_wait` went from about
//! one call per move to one in 16). When the bot still has not answered (it
//! thinks, or runs on another core), the runtime's readiness decides as
//! before, two system calls later; the runtime may later see the
//! pipe ready for bytes this read already took, and its next read then finds
//! nothing and waits, so nothing is lost or read twice.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::time::Instant;

/// Why no line could be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The stream ended (the bot closed its stdout); the unfinished line, if any.
    Eof {
        partial: Vec<u8>,
    },
    /// The line is longer than the limit; its first bytes.
    TooLong {
        head: Vec<u8>,
    },
    Io(io::Error),
}

/// Reads lines of at most `limit` bytes (newline excluded) from `inner`.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    /// Unconsumed bytes are `buf[start..end]`; `buf[start..scanned]` holds no newline.
    start: usize,
    scanned: usize,
    end: usize,
    limit: usize,
    /// When the last read returned.
    read_at: Instant,
    /// The descriptor of `inner`, for a read before the runtime's ([`LineReader::eager`]).
    eager: Option<RawFd>,
}

/// How many bytes of an overlong or unfinished line are kept for the record.
const HEAD_BYTES: usize = 300;

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(inner: R, limit: usize) -> Self {
        LineReader {
            inner,
            buf: vec![0; limit + 2].into_boxed_slice(),
            start: 0,
            scanned: 0,
            end: 0,
            limit,
            read_at: Instant::now(),
            eager: None,
        }
    }

    /// A reader of a non-blocking descriptor that tries to read without the
    /// runtime first (see the module's doc).
    pub(crate) fn eager(inner: R, limit: usize) -> Self
    where
        R: AsRawFd,
    {
        let fd = inner.as_raw_fd();
        LineReader {
            eager: Some(fd),
            ..LineReader::new(inner, limit)
        }
    }

    /// [`read_now`](Self::read_now) once this thread has let another run:
    /// a bot woken by the request on this core, which did not take the core
    /// at the write, answers then.
    fn read_after_yielding(&mut self) -> Option<io::Result<usize>> {
        self.eager?;
        std::thread::yield_now();
        self.read_now()
    }

    /// A read straight on the descriptor, if this reader is eager and bytes
    /// (or the end of the stream) are there already.
    fn read_now(&mut self) -> Option<io::Result<usize>> {
        // SAFETY: the descriptor belongs to `inner`, which this reader owns and
        // keeps open as long as the reader lives.
        let fd = unsafe { BorrowedFd::borrow_raw(self.eager?) };
        match rustix::io::read(fd, &mut self.buf[self.end..]) {
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => None,
            read => Some(read.map_err(io::Error::from)),
        }
    }

    /// The next non-blank line, without its `\n` (or `\r\n`), and the time at
    /// which the read that completed it returned.
    pub(crate) async fn next_line(&mut self) -> Result<(&[u8], Instant), ReadError> {
        loop {
            if let Some(offset) = memchr::memchr(b'\n', &self.buf[self.scanned..self.end]) {
                let newline = self.scanned + offset;
                let line_start = self.start;
                self.start = newline + 1;
                self.scanned = self.start;
                let line = trim_cr(&self.buf[line_start..newline]);
                if line.len() > self.limit {
                    let head = line[..line.len().min(HEAD_BYTES)].to_vec();
                    return Err(ReadError::TooLong { head });
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let (start, len) = (line_start, line.len());
                return Ok((&self.buf[start..start + len], self.read_at));
            }
            self.scanned = self.end;
            // Without its newline, a line may hold the limit and a `\r`.
            let pending = &self.buf[self.start..self.end];
            if pending.len() > self.limit + 1 || (pending.len() == self.limit + 1 && pending.last() != Some(&b'\r')) {
                let head = self.buf[self.start..self.end.min(self.start + HEAD_BYTES)].to_vec();
                self.start = self.end;
                return Err(ReadError::TooLong { head });
            }
            self.make_room();
            let read = match self.read_now().or_else(|| self.read_after_yielding()) {
                Some(read) => read,
                None => self.inner.read(&mut self.buf[self.end..]).await,
            };
            self.read_at = Instant::now();
            match read {
                Ok(0) => {
                    let partial = self.buf[self.start..self.end.min(self.start + HEAD_BYTES)].to_vec();
                    self.start = self.end;
                    return Err(ReadError::Eof { partial });
                }
                Ok(n) => self.end += n,
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
    }

    /// Output that is waiting although nothing was asked: the first non-blank
    /// line (or unfinished line) already printed, cut for the record. Reads
    /// without waiting.
    pub(crate) fn unsolicited(&mut self) -> Option<Vec<u8>> {
        self.make_room();
        let mut read_buf = ReadBuf::new(&mut self.buf[self.end..]);
        let mut context = Context::from_waker(Waker::noop());
        if let Poll::Ready(Ok(())) = Pin::new(&mut self.inner).poll_read(&mut context, &mut read_buf) {
            self.end += read_buf.filled().len();
        }
        let pending = &self.buf[self.start..self.end];
        let skip = pending.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if skip == pending.len() {
            return None;
        }
        let text = &pending[skip..];
        let line = text.split(|&b| b == b'\n').next().unwrap_or(text);
        Some(line[..line.len().min(HEAD_BYTES)].to_vec())
    }

    /// Moves the unconsumed bytes to the front when the buffer is full.
    fn make_room(&mut self) {
        if self.start == self.end {
            self.start = 0;
            self.scanned = 0;
            self.end = 0;
        } else if self.end == self.buf.len() && self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.scanned -= self.start;
            self.end -= self.start;
            self.start = 0;
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> (Vec<String>, ReadError) {
        let mut reader = LineReader::new(input, limit);
        let mut out = Vec::new();
        loop {
            match reader.next_line().await {
                Ok((line, _)) => out.push(String::from_utf8(line.to_vec()).unwrap()),
                Err(e) => return (out, e),
            }
        }
    }

    #[tokio::test]
    async fn splits_lines_and_skips_blank_ones() {
        let (got, end) = lines(b"a\r\n\n  \nbb\ncc", 8).await;
        assert_eq!(got, ["a", "bb"]);
        assert!(matches!(end, ReadError::Eof { partial } if partial == b"cc"));
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_an_error_before_its_end() {
        let (got, end) = lines(b"12345678\n123456789", 8).await;
        assert_eq!(got, ["12345678"]);
        assert!(matches!(end, ReadError::TooLong { .. }));
    }

    #[tokio::test]
    async fn a_cr_before_the_newline_does_not_count_toward_the_limit() {
        let (got, end) = lines(b"12345678\r\n1234567\r\n123456789\r\n", 8).await;
        assert_eq!(got, ["12345678", "1234567"]);
        assert!(matches!(end, ReadError::TooLong { .. }));
        let (_, end) = lines(b"123456789\n", 8).await;
        assert!(
            matches!(end, ReadError::TooLong { .. }),
            "nine bytes and a newline, read at once"
        );
        let (_, end) = lines(b"12345678\rx", 8).await;
        assert!(
            matches!(end, ReadError::TooLong { .. }),
            "a \r that does not end the line counts"
        );
    }

    #[tokio::test]
    async fn reads_through_many_small_lines_in_a_small_buffer() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("{i}\n").into_bytes()).collect();
        let (got, _) = lines(&input, 5).await;
        assert_eq!(got.len(), 1000);
        assert_eq!(got[999], "999");
    }

    /// An eager reader of a real pipe (`cat` echoing what is written to it)
    /// gets every line once and in order, whether the line is already there
    /// (its own read) or not yet (the runtime's wait), and then the end.
    #[tokio::test]
    async fn an_eager_reader_gets_every_line_once() {
        use std::process::Stdio;
        use tokio::io::AsyncWriteExt;
        let mut cat = tokio::process::Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut input = cat.stdin.take().unwrap();
        let mut reader = LineReader::eager(cat.stdout.take().unwrap(), 64);
        for i in 0..200 {
            let text = format!("line {i}\n");
            // Some lines come in two writes, so that a read may find half a line.
            let (head, tail) = text.split_at(if i % 3 == 0 { 3 } else { text.len() });
            input.write_all(head.as_bytes()).await.unwrap();
            input.write_all(tail.as_bytes()).await.unwrap();
            let (line, _) = reader.next_line().await.unwrap();
            assert_eq!(line, format!("line {i}").as_bytes());
        }
        drop(input);
        assert!(matches!(reader.next_line().await, Err(ReadError::Eof { partial }) if partial.is_empty()));
        cat.wait().await.unwrap();
    }

    #[tokio::test]
    async fn unsolicited_output_is_seen_without_waiting() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let mut reader = LineReader::new(&mut client, 64);
        assert_eq!(reader.unsolicited(), None);
        tokio::io::AsyncWriteExt::write_all(&mut server, b"\n  thinking...\nmore")
            .await
            .unwrap();
        assert_eq!(reader.unsolicited().as_deref(), Some(&b"thinking..."[..]));
    }
}
