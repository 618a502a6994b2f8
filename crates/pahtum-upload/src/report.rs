//! An unpacking done by another process, ordered and told back as data: a
//! contest unpacks each upload in a child of its own, in the sandbox, so
//! that the code that reads a stranger's archive runs with none of the
//! server's rights. The server hands the child an [`Order`] and the child
//! sends back a [`Report`] (both serialisable: JSON on its command line and
//! one JSON line on its stdout, in practice), which the server turns back
//! into the outcome: what was unpacked, or the refusal as [`Reported`],
//! whose message and causes are the refusal's own words, so that an author
//! reads the same refusal whichever process unpacked.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::caps::Caps;
use crate::refused::Refused;
use crate::tree::Unpacked;
use crate::unpack::unpack_file;

/// An unpacking for another process to do: the arguments of
/// [`unpack_file`](crate::unpack_file()).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    /// The file that holds the upload.
    pub archive: PathBuf,
    /// The name it was sent under, if any (a single source file's).
    pub file_name: Option<String>,
    /// The fresh folder to unpack it into.
    pub into: PathBuf,
    /// The caps it is held to.
    pub caps: Caps,
}

impl Order {
    /// Unpacks as ordered, in this process: the report to send back.
    pub fn carry_out(&self) -> Report {
        Report::of(&unpack_file(
            &self.archive,
            self.file_name.as_deref(),
            &self.into,
            &self.caps,
        ))
    }
}

/// How an unpacking went, as the process that did it reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Report {
    /// The upload was unpacked.
    Unpacked {
        /// What it unpacked to.
        unpacked: Unpacked,
        /// The user id the process ran as: in a log, the evidence that it
        /// had none of the server's rights (the sandbox's user, 65534,
        /// where the server runs as root).
        uid: u32,
    },
    /// The upload was refused.
    Refused {
        /// The refusal's message, then each of its causes', in order.
        reasons: Vec<String>,
        /// The user id the process ran as, as for `Unpacked`.
        uid: u32,
    },
}

impl Report {
    /// The report of an unpacking that ended with `outcome`, in this process.
    pub fn of(outcome: &Result<Unpacked, Refused>) -> Report {
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        match outcome {
            Ok(unpacked) => Report::Unpacked {
                unpacked: *unpacked,
                uid,
            },
            Err(refused) => {
                let mut reasons = Vec::new();
                let mut error: Option<&dyn std::error::Error> = Some(refused);
                while let Some(cause) = error {
                    reasons.push(cause.to_string());
                    error = cause.source();
                }
                Report::Refused { reasons, uid }
            }
        }
    }

    /// The outcome reported: what was unpacked, or the refusal in its own words.
    pub fn into_result(self) -> Result<Unpacked, Reported> {
        match self {
            Report::Unpacked { unpacked, .. } => Ok(unpacked),
            Report::Refused { reasons, .. } => Err(Reported::of(reasons)),
        }
    }
}

/// A refusal that another process reported: its message, and its causes as
/// this error's sources, each as it was worded there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Reported {
    message: String,
    #[source]
    cause: Option<Box<Reported>>,
}

impl Reported {
    /// The refusal whose message and causes are `reasons`, in order; a report
    /// with none gives no reason.
    fn of(reasons: Vec<String>) -> Reported {
        let mut reasons = reasons.into_iter().rev();
        let innermost = Reported {
            message: reasons
                .next()
                .unwrap_or_else(|| "the unpacking gave no reason".to_owned()),
            cause: None,
        };
        reasons.fold(innermost, |cause, message| Reported {
            message,
            cause: Some(Box::new(cause)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refused::Place;

    /// An error's message and its causes', in order.
    fn chain(error: &dyn std::error::Error) -> Vec<String> {
        std::iter::successors(Some(error), |error| error.source())
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_refusal_comes_back_in_its_own_words_causes_included() {
        let refused = Refused::Corrupt {
            format: "tar.gz",
            place: Place::After("src/bot.py".to_owned()),
            source: "invalid checksum".into(),
        };
        let expected = chain(&refused);
        assert_eq!(expected.len(), 2, "{expected:?}");
        let reported = Report::of(&Err(refused)).into_result().unwrap_err();
        assert_eq!(chain(&reported), expected);
        let link = Refused::Link {
            entry: "shadow".to_owned(),
        };
        let expected = chain(&link);
        assert_eq!(chain(&Report::of(&Err(link)).into_result().unwrap_err()), expected);
    }

    #[test]
    fn what_was_unpacked_comes_back_as_it_was() {
        let unpacked = Unpacked { files: 3, bytes: 1234 };
        assert_eq!(Report::of(&Ok(unpacked)).into_result().unwrap(), unpacked);
    }

    #[test]
    fn an_order_is_carried_out_and_its_refusal_reported() {
        let dir = tempfile::tempdir().unwrap();
        let order = |name: &str| Order {
            archive: dir.path().join("upload"),
            file_name: Some(name.to_owned()),
            into: dir.path().join(name),
            caps: Caps::DEFAULT,
        };
        std::fs::write(dir.path().join("upload"), "print()\n").unwrap();
        let done = order("bot.py").carry_out();
        assert!(
            matches!(
                done,
                Report::Unpacked {
                    unpacked: Unpacked { files: 1, bytes: 8 },
                    ..
                }
            ),
            "{done:?}"
        );
        let refused = order("a\nb").carry_out().into_result().unwrap_err();
        assert!(refused.to_string().contains("entry \"a\\nb\""), "{refused}");
    }

    #[test]
    fn a_report_without_reasons_still_refuses() {
        let reported = Reported::of(Vec::new());
        assert!(reported.to_string().contains("no reason"), "{reported}");
    }
}
