//! The stop signals of a run: Ctrl-C, SIGTERM and SIGHUP.
//!
//! The first one stops the run (the runner starts no new game and ends the
//! running ones, the pool ends the bots, the journal keeps every finished
//! game), and the arena then exits with [`interrupted`]'s code. A second one
//! of any of them kills every process of every bot and exits now.
//!
//! [`StopSignals`] is the future a run waits on: when first polled (once
//! every bot has started, so a Ctrl-C during start-up ends the arena as
//! usual) it spawns the task that installs the handlers, it completes at the
//! first signal, and the task goes on handling the second until the future is
//! dropped, after the pool's shutdown. If the handlers cannot be installed,
//! the run goes on until its games end.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::output::errln;

/// The exit code of a run stopped by a signal: 128 plus the signal's number,
/// as shells report a process killed by it (SIGINT 130, SIGHUP 129, SIGTERM
/// 143); set by the first stop signal.
static STOPPED_BY: AtomicU8 = AtomicU8::new(crate::exit::INTERRUPTED);

/// The exit code of a run that a signal stopped (see [`STOPPED_BY`]).
pub fn interrupted() -> ExitCode {
    ExitCode::from(STOPPED_BY.load(Ordering::Relaxed))
}

/// Completes at the first stop signal; see the module's documentation.
#[derive(Debug, Default)]
pub struct StopSignals(State);

#[derive(Debug, Default)]
enum State {
    /// Not polled yet: no handler installed.
    #[default]
    Idle,
    /// The handler runs; `stopped` is sent to at the first signal.
    Waiting {
        stopped: oneshot::Receiver<()>,
        handler: JoinHandle<()>,
    },
    /// The first signal came; the handler still waits for a second.
    Stopped { handler: JoinHandle<()> },
    /// The handlers could not be installed: never completes.
    Disabled,
}

impl Future for StopSignals {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let state = &mut self.get_mut().0;
        if let State::Idle = state {
            let (stop, stopped) = oneshot::channel();
            let handler = tokio::spawn(handle_stop_signals(stop));
            *state = State::Waiting { stopped, handler };
        }
        let State::Waiting { stopped, .. } = state else {
            return match state {
                State::Disabled => Poll::Pending,
                _ => Poll::Ready(()),
            };
        };
        match Pin::new(stopped).poll(cx) {
            Poll::Ready(Ok(())) => {
                let State::Waiting { handler, .. } = std::mem::take(state) else {
                    unreachable!("the state was just matched")
                };
                *state = State::Stopped { handler };
                Poll::Ready(())
            }
            // The handler ended without a signal: it could not install the handlers.
            Poll::Ready(Err(_)) => {
                *state = State::Disabled;
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        if let State::Waiting { handler, .. } | State::Stopped { handler } = &self.0 {
            handler.abort();
        }
    }
}

/// One stream per signal, installed at once, so that a second signal that
/// comes quickly is not lost. Messages go through `errln!`, which never
/// panics: after a SIGHUP the terminal may be gone.
async fn handle_stop_signals(stop: oneshot::Sender<()>) {
    let (Ok(mut interrupts), Ok(mut terminations), Ok(mut hangups)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    let mut next = async || {
        tokio::select! {
            _ = interrupts.recv() => ("Ctrl-C", crate::exit::INTERRUPTED),
            _ = terminations.recv() => ("SIGTERM", crate::exit::TERMINATED),
            _ = hangups.recv() => ("SIGHUP", crate::exit::HANGUP),
        }
    };
    let (name, code) = next().await;
    STOPPED_BY.store(code, Ordering::Relaxed);
    errln!(
        "\narena: stopping ({name}): no new games; the running ones are ended and will be replayed on resume \
         (Ctrl-C again to quit at once)"
    );
    let _ = stop.send(());
    next().await;
    pahtum_referee::kill_every_bot();
    errln!("arena: quit at once; the journal keeps every finished game");
    std::process::exit(i32::from(code));
}
