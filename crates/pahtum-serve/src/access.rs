//! Who may ask the server what: the checks every request passes before any
//! page is made.
//!
//! The server shows bots' games and, later, starts bots: a page of another
//! site must not be a way in. So:
//!
//! * **Bound to loopback** (the default), a request whose `Host` is not a
//!   loopback name or address is refused: a site whose name an attacker
//!   points at 127.0.0.1 (DNS rebinding) reaches the port, but its requests
//!   carry its own name.
//! * **Bound elsewhere**, every request must carry the access token: in the
//!   address (`?token=`, as the printed URL has it; the answer then sets it as
//!   an `HttpOnly`, `SameSite=Strict` cookie, so that the page's own requests
//!   carry it), in that cookie, or as `Authorization: Bearer`. Compared in
//!   constant time.
//! * **A request that changes something** (any method but `GET` and `HEAD`)
//!   from a browser must come from the server's own origin: its `Origin` must
//!   be the server's, and its `Sec-Fetch-Site`, when sent, `same-origin`.
//!   A client that sends neither is not a browser, and no page of another
//!   site can make it ask.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, Method, StatusCode, header};
use subtle::ConstantTimeEq;

/// The cookie that carries the token after the first visit.
pub const TOKEN_COOKIE: &str = "pahtum_token";

/// The rules of one server.
#[derive(Debug, Clone)]
pub struct Access {
    /// Bound to a loopback address: `Host` must name loopback.
    loopback: bool,
    /// The token every request must carry, when set.
    token: Option<String>,
    /// The public origin (`https://contest.example.org`) of a server behind a reverse proxy, when set:
    /// `Host` must be its host, and a browser's `Origin` it.
    public: Option<PublicOrigin>,
}

/// A server's address as people open it, behind a reverse proxy that may hold TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PublicOrigin {
    /// `https://contest.example.org`, without a path or a trailing slash.
    origin: String,
    /// `contest.example.org` (with its port, if any).
    host: String,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `Host` names no loopback host while the server is bound to loopback.
    ForeignHost,
    /// The token is missing or wrong.
    NoToken,
    /// A request that changes something came from another origin.
    CrossOrigin,
}

impl Refusal {
    /// The status the refusal is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::ForeignHost | Refusal::CrossOrigin => StatusCode::FORBIDDEN,
            Refusal::NoToken => StatusCode::UNAUTHORIZED,
        }
    }

    /// The answer's text, for whoever reads it.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::ForeignHost => {
                "refused: this server answers only to a loopback host name (localhost, 127.0.0.1, [::1])\n"
            }
            Refusal::NoToken => "refused: open the address with the token that `arena serve` printed\n",
            Refusal::CrossOrigin => "refused: a request from another site may not change anything here\n",
        }
    }
}

/// A request that passed, and whether its answer should set the token's cookie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Granted {
    /// The token came in the address: set the cookie.
    pub set_cookie: bool,
}

/// A server of accounts bound elsewhere than loopback without the address people open it at, or with an
/// address that is not `http://HOST` or `https://HOST`.
#[derive(Debug, thiserror::Error)]
#[error(
    "serving on {0}, which is not a loopback address, needs the address people open (an http:// or \
     https:// address without a path, e.g. https://contest.example.org)"
)]
pub struct NeedsPublicUrl(pub SocketAddr);

/// `url` as a public origin, if it is `http://HOST` or `https://HOST` (a trailing `/` allowed).
fn public_origin(url: &str) -> Option<PublicOrigin> {
    let origin = url.trim_end_matches('/');
    let host = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))?;
    let plain = !host.is_empty()
        && host
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b".-:[]".contains(&byte));
    plain.then(|| PublicOrigin {
        origin: origin.to_owned(),
        host: host.to_ascii_lowercase(),
    })
}

/// A server bound elsewhere than loopback without a token.
#[derive(Debug, thiserror::Error)]
#[error("serving on {0}, which is not a loopback address, needs an access token")]
pub struct NeedsToken(pub SocketAddr);

impl Access {
    /// The rules of a server bound to `listen`, with `token` (required when
    /// `listen` is not loopback).
    pub fn new(listen: SocketAddr, token: Option<String>) -> Result<Access, NeedsToken> {
        let loopback = listen.ip().is_loopback();
        if !loopback && token.is_none() {
            return Err(NeedsToken(listen));
        }
        Ok(Access {
            loopback,
            token,
            public: None,
        })
    }

    /// The rules of a server whose accounts say who may do what (a contest's), opened by people at
    /// `public_url` (`https://contest.example.org`, behind a reverse proxy), or at a loopback address when
    /// `public_url` is `None` (then it must be bound to loopback). No token: `Host` must be the public one
    /// (or loopback), and a request that changes something must come from that origin.
    pub fn for_accounts(listen: SocketAddr, public_url: Option<&str>) -> Result<Access, NeedsPublicUrl> {
        let loopback = listen.ip().is_loopback();
        let public = match public_url {
            Some(url) => Some(public_origin(url).ok_or(NeedsPublicUrl(listen))?),
            None if loopback => None,
            None => return Err(NeedsPublicUrl(listen)),
        };
        Ok(Access {
            loopback: loopback && public.is_none(),
            token: None,
            public,
        })
    }

    /// The token requests must carry, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Checks a request of `method`, with the address's `query` and `headers`.
    pub fn check(&self, method: &Method, query: Option<&str>, headers: &HeaderMap) -> Result<Granted, Refusal> {
        let host = headers.get(header::HOST).and_then(|host| host.to_str().ok());
        if self.loopback && !host.is_some_and(names_loopback) {
            return Err(Refusal::ForeignHost);
        }
        if let Some(public) = &self.public {
            if !host.is_some_and(|host| host.eq_ignore_ascii_case(&public.host)) {
                return Err(Refusal::ForeignHost);
            }
            if !matches!(*method, Method::GET | Method::HEAD) && !same_origin(headers, &public.origin) {
                return Err(Refusal::CrossOrigin);
            }
            return Ok(Granted { set_cookie: false });
        }
        let mut granted = Granted { set_cookie: false };
        if let Some(token) = &self.token {
            let in_query = query.and_then(|query| query_value(query, "token"));
            granted.set_cookie = in_query.is_some_and(|given| same(given, token));
            let carried = granted.set_cookie
                || cookie(headers, TOKEN_COOKIE).is_some_and(|given| same(given, token))
                || bearer(headers).is_some_and(|given| same(given, token));
            if !carried {
                return Err(Refusal::NoToken);
            }
        }
        let origin = host.map(|host| format!("http://{host}"));
        if !matches!(*method, Method::GET | Method::HEAD) && !origin.is_some_and(|origin| same_origin(headers, &origin))
        {
            return Err(Refusal::CrossOrigin);
        }
        Ok(granted)
    }
}

/// Whether `host` (a `Host` header: a name or an address, maybe with a port)
/// names this machine's loopback.
fn names_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.bytes().all(|byte| byte.is_ascii_digit()) {
                name
            } else {
                host
            }
        }),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a browser sent the request from the page's own origin: `Origin`
/// is `origin` where sent, and `Sec-Fetch-Site` is `same-origin` (or
/// `none`, typed by the user) where sent. A form's `POST` from a page whose
/// referrer policy is `no-referrer` (every page of this server's) carries
/// `Origin: null`: it passes only with `Sec-Fetch-Site: same-origin`, which a
/// page of another site (a sandboxed frame's `null` included) cannot send.
fn same_origin(headers: &HeaderMap, origin: &str) -> bool {
    let header = |name| headers.get(name).map(|value| value.to_str().unwrap_or("\u{0}"));
    let site = header(axum::http::HeaderName::from_static("sec-fetch-site"));
    let origin_ok = header(header::ORIGIN)
        .is_none_or(|sent| sent.eq_ignore_ascii_case(origin) || (sent == "null" && site == Some("same-origin")));
    let site_ok = site.is_none_or(|site| matches!(site, "same-origin" | "none"));
    origin_ok && site_ok
}

fn same(given: &str, token: &str) -> bool {
    given.as_bytes().ct_eq(token.as_bytes()).into()
}

/// The value of `key` in an address's query (`a=1&token=x`), as written.
fn query_value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find_map(|(name, value)| (name == key).then_some(value))
}

/// The value of the cookie `name` a request carries.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .filter_map(|cookie| cookie.trim().split_once('='))
        .find_map(|(key, value)| (key == name).then_some(value))
}

/// The token of an `Authorization: Bearer` header.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// Adds the headers every answer of the server carries, which keep its pages to themselves: no
/// framing, no sniffing, no referrer (an address may hold a token or a secret), no caching, and a content
/// security policy that allows the pages' own inline script and style and connections to this server
/// only.
pub fn secure(headers: &mut HeaderMap) {
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; \
             connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, axum::http::HeaderValue::from_static(value));
    }
}

/// A new access token: 128 random bits, as 32 hexadecimal digits.
pub fn new_token() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for &(name, value) in pairs {
            headers.append(name, value.parse().unwrap());
        }
        headers
    }

    fn loopback() -> Access {
        Access::new("127.0.0.1:8080".parse().unwrap(), None).unwrap()
    }

    #[test]
    fn loopback_names_pass_and_others_are_refused() {
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:8080",
            "127.1.2.3",
            "[::1]:8080",
            "LOCALHOST",
        ] {
            assert_eq!(
                loopback().check(&Method::GET, None, &headers(&[("host", host)])),
                Ok(Granted { set_cookie: false }),
                "{host}"
            );
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "10.0.0.1:8080",
        ] {
            assert_eq!(
                loopback().check(&Method::GET, None, &headers(&[("host", host)])),
                Err(Refusal::ForeignHost),
                "{host}"
            );
        }
        assert_eq!(
            loopback().check(&Method::GET, None, &HeaderMap::new()),
            Err(Refusal::ForeignHost)
        );
    }

    #[test]
    fn elsewhere_a_token_is_needed_and_checked() {
        let everywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert!(Access::new(everywhere, None).is_err());
        let access = Access::new(everywhere, Some("s3cret".into())).unwrap();
        let host = ("host", "arena.lan:8080");
        assert_eq!(
            access.check(&Method::GET, None, &headers(&[host])),
            Err(Refusal::NoToken)
        );
        assert_eq!(
            access.check(&Method::GET, Some("token=wrong"), &headers(&[host])),
            Err(Refusal::NoToken)
        );
        assert_eq!(
            access.check(&Method::GET, Some("token=s3cre"), &headers(&[host])),
            Err(Refusal::NoToken)
        );
        assert_eq!(
            access.check(&Method::GET, Some("a=1&token=s3cret"), &headers(&[host])),
            Ok(Granted { set_cookie: true })
        );
        let with_cookie = headers(&[host, ("cookie", "other=1; pahtum_token=s3cret")]);
        assert_eq!(
            access.check(&Method::GET, None, &with_cookie),
            Ok(Granted { set_cookie: false })
        );
        let with_bearer = headers(&[host, ("authorization", "Bearer s3cret")]);
        assert_eq!(
            access.check(&Method::GET, None, &with_bearer),
            Ok(Granted { set_cookie: false })
        );
    }

    #[test]
    fn changes_from_another_origin_are_refused() {
        let access = loopback();
        let post = |pairs: &[(&'static str, &str)]| access.check(&Method::POST, None, &headers(pairs));
        let host = ("host", "localhost:8080");
        assert_eq!(
            post(&[host, ("origin", "http://localhost:8080")]),
            Ok(Granted { set_cookie: false })
        );
        assert_eq!(
            post(&[host, ("origin", "http://evil.example")]),
            Err(Refusal::CrossOrigin)
        );
        assert_eq!(
            post(&[host, ("sec-fetch-site", "cross-site")]),
            Err(Refusal::CrossOrigin)
        );
        assert_eq!(
            post(&[
                host,
                ("origin", "http://localhost:8080"),
                ("sec-fetch-site", "same-site")
            ]),
            Err(Refusal::CrossOrigin)
        );
        // Not a browser: no page of another site can send it.
        assert_eq!(post(&[host]), Ok(Granted { set_cookie: false }));
        // Reading is not changing.
        let get = access.check(&Method::GET, None, &headers(&[host, ("origin", "http://evil.example")]));
        assert_eq!(get, Ok(Granted { set_cookie: false }));
    }

    #[test]
    fn tokens_are_new_each_time() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn a_server_of_accounts_answers_to_its_public_host_and_origin() {
        let everywhere: SocketAddr = "0.0.0.0:8718".parse().unwrap();
        assert!(Access::for_accounts(everywhere, None).is_err());
        assert!(Access::for_accounts(everywhere, Some("contest.example.org")).is_err());
        assert!(Access::for_accounts(everywhere, Some("https://c.example/path")).is_err());
        let access = Access::for_accounts(everywhere, Some("https://Contest.example.org/")).unwrap();
        let host = ("host", "contest.example.org");
        let ok = Ok(Granted { set_cookie: false });
        assert_eq!(access.check(&Method::GET, None, &headers(&[host])), ok);
        assert_eq!(
            access.check(&Method::GET, None, &headers(&[("host", "evil.example")])),
            Err(Refusal::ForeignHost)
        );
        let from = |origin| headers(&[host, ("origin", origin)]);
        assert_eq!(
            access.check(&Method::POST, None, &from("https://contest.example.org")),
            ok
        );
        for origin in ["http://contest.example.org", "https://evil.example", "null"] {
            assert_eq!(
                access.check(&Method::POST, None, &from(origin)),
                Err(Refusal::CrossOrigin),
                "{origin}"
            );
        }
        let form = |site| headers(&[host, ("origin", "null"), ("sec-fetch-site", site)]);
        assert_eq!(
            access.check(&Method::POST, None, &form("same-origin")),
            ok,
            "a form's POST"
        );
        for site in ["cross-site", "same-site", "none"] {
            assert_eq!(
                access.check(&Method::POST, None, &form(site)),
                Err(Refusal::CrossOrigin),
                "{site}"
            );
        }
        assert_eq!(
            access.check(&Method::POST, None, &from("null")),
            Err(Refusal::CrossOrigin),
            "null without Sec-Fetch-Site"
        );
        let local = Access::for_accounts("127.0.0.1:8718".parse().unwrap(), None).unwrap();
        let at_home = headers(&[("host", "127.0.0.1:8718"), ("origin", "http://127.0.0.1:8718")]);
        assert_eq!(local.check(&Method::POST, None, &at_home), ok);
        assert_eq!(
            local.check(&Method::GET, None, &headers(&[("host", "evil.example")])),
            Err(Refusal::ForeignHost)
        );
    }
}
