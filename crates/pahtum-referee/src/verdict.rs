//! What a bot did wrong, in words its author can act on.
//!
//! Every way a bot can fail becomes one [`Failure`]: the reason of the
//! protocol ([`Reason`]), a sentence that says what happened and how to fix it,
//! and the offending line. The referee turns it into the forfeit of the game
//! record; `arena check` prints it as it is.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use pahtum_protocol::untrusted::cut;
use pahtum_protocol::{DecodeError, Reason, codec::shown};
use pahtum_supervise::MemoryUse;

/// What a forfeit's detail quotes of an unknown `"type"`: every type of the
/// protocol, and any typo of one, fits.
const TYPE_BYTES: usize = 32;

/// What a forfeit's detail quotes of the decoder's complaint, which may quote
/// a wrong value of the bot's whole.
const CAUSE_BYTES: usize = 200;

/// How a bot failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The forfeit's reason, as the game's record keeps it.
    pub reason: Reason,
    /// What happened, in a sentence for the bot's author.
    pub detail: String,
    /// The offending line, cut to a few hundred bytes.
    pub line: Option<String>,
    /// A timeout on a wall clock while the machine was overloaded (`overload`):
    /// the bot may not be at fault.
    pub overloaded: bool,
}

/// What the referee asked, for messages: `the play_stone request 7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Asked {
    pub kind: &'static str,
    pub id: Option<u64>,
}

impl fmt::Display for Asked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id {
            Some(id) => write!(f, "the {} request {id}", self.kind),
            None => write!(f, "the {}", self.kind),
        }
    }
}

/// The reminder for a bot that seems silent: the most common beginner bug.
const FLUSH_HINT: &str = "did the bot flush stdout after the line? (Python: print(..., flush=True); \
                          C: fflush(stdout); C++: std::cout << std::endl or std::flush; \
                          Java: System.out.flush(); Go: w.Flush() on a bufio.Writer, or write to os.Stdout directly; \
                          Perl: $| = 1; Ruby: $stdout.sync = true)";

impl Failure {
    pub(crate) fn new(reason: Reason, detail: impl Into<String>) -> Failure {
        Failure {
            reason,
            detail: detail.into(),
            line: None,
            overloaded: false,
        }
    }

    /// The bot was killed for its sandbox's memory limit, as `crash` tells.
    pub(crate) fn memory(used: MemoryUse, crash: &Failure) -> Failure {
        let peak = used.peak.map_or_else(String::new, |bytes| {
            format!(", and it used up to {:.1} MiB", bytes as f64 / f64::from(1 << 20))
        });
        Failure {
            reason: Reason::Memory,
            detail: format!(
                "the bot's processes were killed by the kernel for using more than its memory limit of {} MiB{peak} \
                 ({}); raise `memory_mb` in the tournament file if the bot needs more",
                used.limit_mb, crash.detail
            ),
            line: crash.line.clone(),
            overloaded: false,
        }
    }

    pub(crate) fn with_line(mut self, line: &[u8]) -> Failure {
        self.line = Some(shown(&String::from_utf8_lossy(line)));
        self
    }

    /// No answer to `what` within `limit`. The flush hint is for a bot that
    /// has never answered in this process (`answered_before` false): one that
    /// answered before flushes.
    pub(crate) fn silent(reason: Reason, what: &Asked, limit: Duration, answered_before: bool) -> Failure {
        let hint = if answered_before {
            String::new()
        } else {
            format!("; {FLUSH_HINT}")
        };
        Failure::new(reason, format!("no answer to {what} within {}{hint}", millis(limit)))
    }

    /// No answer to `what` within `limit` of CPU time: the bot's processes
    /// used `used` (on a CPU-time clock).
    pub(crate) fn cpu_spent(what: &Asked, used: Duration, limit: Duration) -> Failure {
        Failure::new(
            Reason::Timeout,
            format!(
                "no answer to {what} within {} of CPU time: the bot's processes used {}",
                millis(limit),
                millis(used)
            ),
        )
    }

    /// No answer to `what` within the wall cap `cap` of a CPU-time clock.
    pub(crate) fn wall_cap(what: &Asked, used: Option<Duration>, cap: Duration) -> Failure {
        let used = used.map_or(String::new(), |used| format!(", using {} of CPU", millis(used)));
        Failure::new(
            Reason::Timeout,
            format!(
                "no answer to {what} within {} of wall time{used}: a CPU-time clock still caps the wall time \
                 (3 times the limit plus 1 s), so a bot that sleeps or waits times out",
                millis(cap)
            ),
        )
    }

    /// Marks a timeout as one under overload, with `why` in words.
    pub(crate) fn under_overload(mut self, why: &str) -> Failure {
        self.detail = format!("{}; {why}", self.detail);
        self.overloaded = true;
        self
    }

    /// An answer to `what`, but too late.
    pub(crate) fn late(reason: Reason, what: &Asked, took: Duration, limit: Duration) -> Failure {
        Failure::new(
            reason,
            format!(
                "the answer to {what} took {}, over the limit of {}",
                millis(took),
                millis(limit)
            ),
        )
    }

    /// The process ended (or was found dead) while the referee waited for `what`.
    pub(crate) fn exited(status: ExitStatus, what: &Asked) -> Failure {
        Failure::new(
            Reason::Disconnect,
            format!(
                "the bot {} while the referee waited for {what}; its stderr tail may say why",
                describe_exit(status)
            ),
        )
    }

    /// A line that is not a message of the protocol.
    pub(crate) fn undecodable(line: &str, error: &DecodeError) -> Failure {
        let detail = match error {
            DecodeError::NotJson { .. } => "printed a line that is not JSON; stdout is for protocol messages only, \
                                            write debug output to stderr"
                .to_owned(),
            DecodeError::NoType { .. } => "printed a JSON line without a string \"type\"".to_owned(),
            DecodeError::Invalid { kind, source, .. } => {
                // Both quote the bot's text (serde quotes a wrong value): cut
                // them, so that the record keeps a sentence, not the line.
                let kind = cut(kind, TYPE_BYTES);
                match type_fix(line) {
                    Some(fix) => format!("printed an invalid {kind:?} message: {fix}"),
                    None => format!(
                        "printed an invalid {kind:?} message: {}",
                        cut(&source.to_string(), CAUSE_BYTES)
                    ),
                }
            }
        };
        Failure::new(Reason::ProtocolError, detail).with_line(line.as_bytes())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)?;
        if let Some(line) = &self.line {
            write!(f, "\n  the line: {line}")?;
        }
        Ok(())
    }
}

/// The fix, in plain words, for a message with a field of the wrong type
/// (the JSON library's words name the type, not the field); `None` when no
/// field of the protocol has the wrong type.
fn type_fix(line: &str) -> Option<&'static str> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    let wrong = |field: &str, right: fn(&serde_json::Value) -> bool| message.get(field).is_some_and(|v| !right(v));
    if wrong("id", serde_json::Value::is_u64) {
        Some("write the id as a number, as the request wrote it (7, not \"7\")")
    } else if wrong("swap", serde_json::Value::is_boolean) {
        Some("use true or false for swap (not 1 or 0, nor a string)")
    } else if wrong("cell", serde_json::Value::is_string) {
        Some("write the cell as a string, such as \"d4\"")
    } else if wrong("protocol", serde_json::Value::is_u64) {
        Some("write the protocol version as a number (1, not \"1\")")
    } else if wrong("name", serde_json::Value::is_string) {
        Some("write the name as a string")
    } else {
        None
    }
}

/// `exited with code 1`, `was killed by signal 11 (SIGSEGV)`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    match status.signal() {
        Some(signal) => {
            let name = match signal {
                libc::SIGABRT => " (SIGABRT: an abort or a failed assertion)",
                libc::SIGSEGV => " (SIGSEGV: a crash)",
                libc::SIGBUS => " (SIGBUS: a crash)",
                libc::SIGFPE => " (SIGFPE: an arithmetic error)",
                libc::SIGILL => " (SIGILL: an illegal instruction)",
                libc::SIGKILL => " (SIGKILL: killed, maybe out of memory)",
                libc::SIGTERM => " (SIGTERM)",
                libc::SIGPIPE => " (SIGPIPE: it wrote to a closed pipe)",
                _ => "",
            };
            format!("was killed by signal {signal}{name}")
        }
        None => "ended".to_owned(),
    }
}

/// `120 ms`, `1.5 ms`, `10 s`.
pub(crate) fn millis(duration: Duration) -> String {
    let micros = duration.as_micros();
    let ms = micros / 1000;
    if micros % 1000 != 0 {
        format!("{:.3} ms", micros as f64 / 1000.0)
    } else if ms >= 10_000 && ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_of_the_wrong_type_is_explained_in_plain_words() {
        let detail = |line: &str| {
            let error = pahtum_protocol::codec::decode_from_bot(line).unwrap_err();
            Failure::undecodable(line, &error).detail
        };
        assert_eq!(
            detail(r#"{"type":"stone","id":"7","cell":"d4"}"#),
            "printed an invalid \"stone\" message: write the id as a number, as the request wrote it (7, not \"7\")"
        );
        assert_eq!(
            detail(r#"{"type":"pie","id":3,"swap":1}"#),
            "printed an invalid \"pie\" message: use true or false for swap (not 1 or 0, nor a string)"
        );
        assert!(detail(r#"{"type":"stone","id":3,"cell":44}"#).ends_with("write the cell as a string, such as \"d4\""));
        // Other mistakes keep the JSON library's words.
        assert!(detail(r#"{"type":"stone","id":3,"cell":"h9"}"#).contains("h9"));
        // The bot's text in them is cut: a forfeit is a sentence, not the line.
        let long = "y".repeat(60_000);
        let unknown = detail(&format!(r#"{{"type":"{long}","id":3}}"#));
        assert!(
            unknown.len() < 500 && unknown.contains("… [cut: 59968 bytes]"),
            "{unknown}"
        );
        let cell = detail(&format!(r#"{{"type":"stone","id":3,"cell":"{long}"}}"#));
        assert!(cell.len() < 500 && cell.contains("[cut: "), "{cell}");
    }

    #[test]
    fn exits_are_described() {
        assert_eq!(describe_exit(ExitStatus::from_raw(1 << 8)), "exited with code 1");
        assert_eq!(
            describe_exit(ExitStatus::from_raw(libc::SIGSEGV)),
            "was killed by signal 11 (SIGSEGV: a crash)"
        );
    }

    /// `Reason::name` is the name in the JSON (records, `end` messages), and `Reason::ALL` holds every
    /// variant once, in order. The variants are serde's own list (the one it gives when a name is
    /// unknown), so a variant added to the enum but not to `ALL` fails here.
    #[test]
    fn every_reason_is_listed_once_under_its_serialized_name() {
        let unknown = serde_json::from_str::<Reason>(r#""no such reason""#)
            .unwrap_err()
            .to_string();
        let expected = unknown
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("serde lists the variants: {unknown}"));
        let serde_names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let names: Vec<&str> = Reason::ALL.iter().map(|reason| reason.name()).collect();
        assert_eq!(names, serde_names);
        for reason in Reason::ALL {
            let json = serde_json::to_value(reason).unwrap();
            assert_eq!(json, serde_json::Value::from(reason.name()), "{reason:?}");
            assert_eq!(serde_json::from_value::<Reason>(json).unwrap(), reason);
            assert_eq!(reason.to_string(), reason.name());
        }
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(millis(Duration::from_millis(120)), "120 ms");
        assert_eq!(millis(Duration::from_secs(10)), "10 s");
        assert_eq!(millis(Duration::from_micros(1500)), "1.500 ms");
    }
}
