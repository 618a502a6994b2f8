//! Passwords, secrets and their hashes.
//!
//! Passwords are hashed with Argon2id at OWASP's first recommendation
//! (19 MiB of memory, 2 passes, 1 lane). Each hash takes that memory for tens
//! of milliseconds, so a flood of logins could take the machine's memory:
//! hashing runs on the blocking pool behind a semaphore of [`HASHERS`]
//! permits, and a login past them waits its turn.
//!
//! Every other secret (a session's id, an API token, an invitation) is 32
//! random bytes, shown once as 64 hexadecimal digits and stored as its
//! SHA-256: high entropy needs no slow hash, and a stolen database opens no
//! account.

use std::sync::LazyLock;

use argon2::{Algorithm, Argon2, Params, PasswordHasher, PasswordVerifier, Version};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

/// Password hashes made or checked at once, at most.
pub const HASHERS: usize = 2;

/// The shortest password accepted.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// The longest password accepted (a password of megabytes would only cost the hasher).
pub const MAX_PASSWORD_BYTES: usize = 256;

static PERMITS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(HASHERS));

/// Argon2id at OWASP's parameters: m = 19 MiB, t = 2, p = 1.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP's parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Why a password was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WeakPassword {
    /// Too short.
    #[error("a password needs at least {MIN_PASSWORD_CHARS} characters")]
    Short,
    /// Too long.
    #[error("a password may have at most {MAX_PASSWORD_BYTES} bytes")]
    Long,
}

/// Checks a new password's length.
pub fn acceptable(password: &str) -> Result<(), WeakPassword> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(WeakPassword::Short);
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(WeakPassword::Long);
    }
    Ok(())
}

/// The Argon2id hash of `password`, as a PHC string, made on the blocking pool within [`HASHERS`].
pub async fn hash_password(password: String) -> String {
    let _permit = PERMITS.acquire().await.expect("the semaphore is never closed");
    tokio::task::spawn_blocking(move || {
        let salt: [u8; 16] = rand::random();
        argon2()
            .hash_password_with_salt(password.as_bytes(), &salt)
            .expect("Argon2id hashes any password of bounded length")
            .to_string()
    })
    .await
    .expect("hashing does not panic")
}

/// Whether `password` matches the PHC string `hash`, checked on the blocking pool within [`HASHERS`].
/// A password over [`MAX_PASSWORD_BYTES`] never matches.
pub async fn verify_password(password: String, hash: String) -> bool {
    if password.len() > MAX_PASSWORD_BYTES {
        return false;
    }
    let _permit = PERMITS.acquire().await.expect("the semaphore is never closed");
    tokio::task::spawn_blocking(move || argon2().verify_password(password.as_bytes(), hash.as_str()).is_ok())
        .await
        .unwrap_or(false)
}

/// A hash that no password matches, checked in place of a missing account's so that a login takes as
/// long whether the name exists or not.
pub static DECOY_HASH: LazyLock<String> = LazyLock::new(|| {
    argon2()
        .hash_password_with_salt(&rand::random::<[u8; 32]>(), &[7; 16])
        .expect("Argon2id hashes any password of bounded length")
        .to_string()
});

/// A new secret: 32 random bytes as 64 hexadecimal digits.
pub fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What the database keeps of a secret: its SHA-256.
pub fn secret_hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_matches_its_hash_only() {
        let hash = hash_password("correct horse battery".to_owned()).await;
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
        assert!(verify_password("correct horse battery".to_owned(), hash.clone()).await);
        assert!(!verify_password("correct horse battery!".to_owned(), hash.clone()).await);
        assert!(!verify_password("x".repeat(MAX_PASSWORD_BYTES + 1), hash).await);
        assert!(!verify_password("anything at all".to_owned(), DECOY_HASH.clone()).await);
    }

    #[test]
    fn secrets_are_random_and_stored_hashed() {
        let (one, two) = (new_secret(), new_secret());
        assert_ne!(one, two);
        assert_eq!(one.len(), 64);
        assert_eq!(secret_hash(&one).len(), 32);
        assert_ne!(secret_hash(&one), one.as_bytes());
        assert_eq!(acceptable("short"), Err(WeakPassword::Short));
        assert_eq!(acceptable(&"x".repeat(300)), Err(WeakPassword::Long));
        assert_eq!(acceptable("long enough now"), Ok(()));
    }
}
