//! A stranger's upload turned into a folder, and a folder into an upload.
//!
//! A contest server calls [`unpack()`] on every bot an author submits, and
//! every upload is an attack: a link out of the folder, a `..` name, a
//! device, a name that clears a terminal, a gzip bomb, a header that lies
//! about a size. [`sniff()`] tells the kind by its magic bytes; [`unpack()`]
//! reads a tar.gz (`untar`) or a zip (`unzip`) entry by entry, never
//! through the archive crates' own extraction, and writes only regular files
//! and folders into a fresh folder it makes (`tree`), each name judged by
//! one validator (`name`) and every byte counted as it is read against the
//! [`Caps`], never taken from a header (`meter` counts what the headers
//! themselves cost). A refusal ([`Refused`]) names the entry, escaped, and
//! the rule, and leaves nothing behind. [`pack()`] makes the `.tar.gz` that
//! `arena submit` sends, deterministic, under the same caps and name rules.
//! A server that unpacks in a child process of its own (a contest, in the
//! sandbox) hands it an [`Order`] and has its outcome told back as a
//! [`Report`] (`report`), a refusal in its own words.

#![warn(missing_docs)]

mod caps;
mod meter;
mod name;
mod pack;
mod refused;
mod report;
mod sniff;
mod tree;
mod unpack;
mod untar;
mod unzip;

pub use caps::Caps;
pub use name::NameRule;
pub use pack::{PackError, pack};
pub use refused::{Place, Refused};
pub use report::{Order, Report, Reported};
pub use sniff::{Kind, sniff};
pub use tree::Unpacked;
pub use unpack::{unpack, unpack_file};
