//! The bytes a tar.gz costs before any file is counted: the compressed bytes
//! read from the uploader, and the headers, long names and pax records that
//! the tar reader reads (into memory, for names) beside the files' own
//! bytes. Both are capped (`Caps::upload_bytes`, `Caps::header_bytes`), so
//! that deflate's empty blocks, a pax record claiming a gigabyte or a folder
//! entry with a gigabyte of data cost no more than an honest upload.
//!
//! The readers are stacked (`Input` under the gzip decoder, `Stream` over
//! it, `Data` over each entry) and share one [`Meter`]; when one of them
//! stops the reading, the error that the tar reader passes up is opaque, and
//! the meter says why it happened.

use std::cell::{Cell, RefCell};
use std::io::{self, Read};
use std::rc::Rc;

use crate::caps::Caps;
use crate::refused::{Place, Refused};

/// The most one read of the decompressed stream takes, so that the headers'
/// cap is passed by at most this much before it is seen.
const READ_BYTES: usize = 64 * 1024;

/// Why the reading stopped.
#[derive(Debug)]
enum Trip {
    /// The uploader's reader failed.
    Source(io::Error),
    /// The compressed upload passed its cap.
    Upload,
    /// The headers passed their cap.
    Headers,
}

#[derive(Debug)]
struct Shared {
    trip: RefCell<Option<Trip>>,
    upload: Cell<u64>,
    stream: Cell<u64>,
    data: Cell<u64>,
    upload_limit: u64,
    header_limit: u64,
}

impl Shared {
    fn stop(&self, trip: Trip) -> io::Error {
        *self.trip.borrow_mut() = Some(trip);
        io::Error::other("the upload is no longer read")
    }
}

/// The counts of one tar.gz being read, shared by its readers.
#[derive(Debug, Clone)]
pub(crate) struct Meter(Rc<Shared>);

impl Meter {
    pub(crate) fn new(caps: &Caps) -> Self {
        Self(Rc::new(Shared {
            trip: RefCell::new(None),
            upload: Cell::new(0),
            stream: Cell::new(0),
            data: Cell::new(0),
            upload_limit: caps.upload_bytes(),
            header_limit: caps.header_bytes(),
        }))
    }

    /// The uploader's bytes, counted and capped.
    pub(crate) fn input<R: Read>(&self, inner: R) -> Input<R> {
        Input {
            inner,
            meter: self.clone(),
        }
    }

    /// The decompressed tar stream, its bytes beside the files' capped.
    pub(crate) fn stream<R: Read>(&self, inner: R) -> Stream<R> {
        Stream {
            inner,
            meter: self.clone(),
        }
    }

    /// An entry's data, counted as the files' own bytes.
    pub(crate) fn data<R: Read>(&self, inner: R) -> Data<R> {
        Data {
            inner,
            meter: self.clone(),
        }
    }

    /// The refusal for `error`, which reading the archive `format` returned
    /// at `place`: the meter's reason if it stopped the reading, else the
    /// archive is corrupt.
    pub(crate) fn refusal(&self, error: io::Error, format: &'static str, place: Place) -> Refused {
        match self.0.trip.borrow_mut().take() {
            Some(Trip::Source(source)) => Refused::io("read the upload", source),
            Some(Trip::Upload) => Refused::UploadTooBig {
                place,
                limit: self.0.upload_limit,
            },
            Some(Trip::Headers) => Refused::HeadersTooBig {
                place,
                limit: self.0.header_limit,
            },
            None => Refused::Corrupt {
                format,
                place,
                source: Box::new(error),
            },
        }
    }
}

/// The uploader's reader: its failures kept for the refusal, and stopped
/// past `Caps::upload_bytes`.
#[derive(Debug)]
pub(crate) struct Input<R> {
    inner: R,
    meter: Meter,
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let shared = &self.meter.0;
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => return Err(error),
            Err(error) => return Err(shared.stop(Trip::Source(error))),
        };
        let total = shared.upload.get() + n as u64;
        if total > shared.upload_limit {
            return Err(shared.stop(Trip::Upload));
        }
        shared.upload.set(total);
        Ok(n)
    }
}

/// The decompressed stream: stopped once what it gave beside the files'
/// bytes passes `Caps::header_bytes`.
#[derive(Debug)]
pub(crate) struct Stream<R> {
    inner: R,
    meter: Meter,
}

impl<R: Read> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let shared = &self.meter.0;
        // Every read so far that was an entry's data has been credited by `Data`.
        if shared.stream.get() - shared.data.get() > shared.header_limit {
            return Err(shared.stop(Trip::Headers));
        }
        let len = buf.len().min(READ_BYTES);
        let n = self.inner.read(&mut buf[..len])?;
        shared.stream.set(shared.stream.get() + n as u64);
        Ok(n)
    }
}

/// An entry's data: what it reads is the files', not the headers'.
#[derive(Debug)]
pub(crate) struct Data<R> {
    inner: R,
    meter: Meter,
}

impl<R: Read> Read for Data<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let shared = &self.meter.0;
        shared.data.set(shared.data.get() + n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> Caps {
        Caps {
            entries: 0,
            total_bytes: 0,
            ..Caps::DEFAULT
        }
    }

    #[test]
    fn the_upload_is_read_up_to_its_cap_and_no_further() {
        let meter = Meter::new(&caps());
        let limit = caps().upload_bytes() as usize;
        let mut fits = Vec::new();
        meter.input(&vec![7u8; limit][..]).read_to_end(&mut fits).unwrap();
        assert_eq!(fits.len(), limit);

        let meter = Meter::new(&caps());
        let error = meter
            .input(&vec![7u8; limit + 1][..])
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        let refused = meter.refusal(error, "tar.gz", Place::Start);
        assert!(matches!(refused, Refused::UploadTooBig { .. }), "{refused}");
    }

    #[test]
    fn headers_are_capped_but_data_is_not() {
        let header_limit = caps().header_bytes() as usize;
        let meter = Meter::new(&caps());
        let bytes = vec![0u8; header_limit * 3];
        let mut data = meter.data(meter.stream(&bytes[..]));
        assert_eq!(io::copy(&mut data, &mut io::sink()).unwrap(), bytes.len() as u64);

        let meter = Meter::new(&caps());
        let error = meter.stream(&bytes[..]).read_to_end(&mut Vec::new()).unwrap_err();
        let refused = meter.refusal(error, "tar.gz", Place::Start);
        assert!(matches!(refused, Refused::HeadersTooBig { .. }), "{refused}");
    }

    #[test]
    fn a_failing_source_is_an_io_refusal_and_an_unexplained_error_is_corruption() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::ConnectionReset, "gone"))
            }
        }
        let meter = Meter::new(&caps());
        let error = meter.input(Broken).read(&mut [0; 8]).unwrap_err();
        assert!(matches!(
            meter.refusal(error, "tar.gz", Place::Start),
            Refused::Io { .. }
        ));
        let refused = meter.refusal(io::Error::other("bad header"), "tar.gz", Place::Start);
        assert!(matches!(refused, Refused::Corrupt { .. }), "{refused}");
    }
}
