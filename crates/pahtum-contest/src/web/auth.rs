//! Who is asking: the session's cookie or an API token, checked against the
//! database on every request.
//!
//! A session is a random id in an `HttpOnly`, `SameSite=Lax` cookie
//! (`Secure` when the contest is reached over TLS), renewed at every login,
//! ended after the contest's idle time or its absolute lifetime. A script
//! sends `Authorization: Bearer TOKEN` instead. Either way the database
//! holds only the secret's SHA-256.

use axum::http::{HeaderMap, HeaderValue};
use pahtum_serve::access::{bearer, cookie};

use super::site::Site;
use crate::accounts::secret_hash;
use crate::store::now_ms;
use crate::store::{Author, Role};

/// The session's cookie.
pub const SESSION_COOKIE: &str = "pahtum_contest_session";

const HOUR_MS: i64 = 3_600_000;

/// The account a request speaks for, if any.
pub fn caller(site: &Site, headers: &HeaderMap) -> Option<Author> {
    if let Some(token) = bearer(headers) {
        return site.store.token(&secret_hash(token), now_ms()).ok().flatten();
    }
    let session = cookie(headers, SESSION_COOKIE)?;
    let limits = &site.contest.limits;
    site.store
        .session(
            &secret_hash(session),
            now_ms(),
            i64::from(limits.session_idle_hours) * HOUR_MS,
            i64::from(limits.session_days) * 24 * HOUR_MS,
        )
        .ok()
        .flatten()
}

/// The session id the request carries, if any.
pub fn session_of(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, SESSION_COOKIE)
}

/// Whether `caller` may see what belongs to the account `owner`: its owner and the organiser only.
pub fn may_see(caller: &Author, owner: i64) -> bool {
    caller.id == owner || caller.role == Role::Organiser
}

/// The `Set-Cookie` value that holds `session` (or, with `None`, ends it).
pub fn session_cookie(site: &Site, session: Option<&str>) -> HeaderValue {
    let secure = if site.contest.over_tls() { "; Secure" } else { "" };
    let value = match session {
        Some(session) => {
            let age = u64::from(site.contest.limits.session_days) * 86_400;
            format!("{SESSION_COOKIE}={session}; HttpOnly; SameSite=Lax; Path=/; Max-Age={age}{secure}")
        }
        None => format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0{secure}"),
    };
    HeaderValue::from_str(&value).expect("a session id is hexadecimal")
}
