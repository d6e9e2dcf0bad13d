//! Signed, expiring tokens: the GM's session cookie, a realm's session and login link,
//! CSRF tokens. `purpose.payload-hex.expires.mac-hex`, the MAC an HMAC-SHA256 over the
//! purpose, the payload and the expiry under the game's site secret. A token for one
//! purpose never passes for another.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Why a token was refused (said to nobody but the log: a page only says "expired or
/// invalid").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    Malformed,
    WrongPurpose,
    BadSignature,
    Expired,
}

fn mac(secret: &[u8; 32], purpose: &str, payload: &[u8], expires: i64) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(secret).expect("HMAC takes any key length");
    m.update(purpose.as_bytes());
    m.update(b"\0");
    m.update(payload);
    m.update(b"\0");
    m.update(expires.to_string().as_bytes());
    m
}

/// A token carrying `payload` for `purpose` (ASCII letters, digits and `-`), valid until
/// `expires` (Unix seconds).
pub fn sign(secret: &[u8; 32], purpose: &str, payload: &str, expires: i64) -> String {
    let tag = mac(secret, purpose, payload.as_bytes(), expires)
        .finalize()
        .into_bytes();
    format!(
        "{purpose}.{}.{expires}.{}",
        hex::encode(payload),
        hex::encode(tag)
    )
}

/// The payload of a token for `purpose` that is unchanged and not expired at `now`.
pub fn verify(secret: &[u8; 32], purpose: &str, token: &str, now: i64) -> Result<String, Invalid> {
    if token.len() > 4096 {
        return Err(Invalid::Malformed);
    }
    let mut parts = token.split('.');
    let (Some(p), Some(payload_hex), Some(exp), Some(tag_hex), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return Err(Invalid::Malformed);
    };
    if p != purpose {
        return Err(Invalid::WrongPurpose);
    }
    let payload = hex::decode(payload_hex).map_err(|_| Invalid::Malformed)?;
    let expires: i64 = exp.parse().map_err(|_| Invalid::Malformed)?;
    let tag = hex::decode(tag_hex).map_err(|_| Invalid::Malformed)?;
    mac(secret, purpose, &payload, expires)
        .verify_slice(&tag)
        .map_err(|_| Invalid::BadSignature)?;
    if now >= expires {
        return Err(Invalid::Expired);
    }
    String::from_utf8(payload).map_err(|_| Invalid::Malformed)
}

/// A value bound to `token` (a CSRF token for a session cookie): the same session always
/// gets the same value, another session another one.
pub fn derive(secret: &[u8; 32], purpose: &str, token: &str) -> String {
    let tag = mac(secret, purpose, token.as_bytes(), 0)
        .finalize()
        .into_bytes();
    hex::encode(&tag[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn a_signed_token_verifies_until_it_expires() {
        let t = sign(&KEY, "realm-link", "Nordland", 1_000);
        assert_eq!(
            verify(&KEY, "realm-link", &t, 999).as_deref(),
            Ok("Nordland")
        );
        assert_eq!(verify(&KEY, "realm-link", &t, 1_000), Err(Invalid::Expired));
    }

    #[test]
    fn a_changed_payload_purpose_or_key_is_refused() {
        let t = sign(&KEY, "realm-link", "Nordland", 1_000);
        let forged = t.replace(&hex::encode("Nordland"), &hex::encode("Sydland"));
        assert_eq!(
            verify(&KEY, "realm-link", &forged, 0),
            Err(Invalid::BadSignature)
        );
        assert_eq!(
            verify(&KEY, "gm-session", &t, 0),
            Err(Invalid::WrongPurpose)
        );
        assert_eq!(
            verify(&[8; 32], "realm-link", &t, 0),
            Err(Invalid::BadSignature)
        );
        let later = t.replace(".1000.", ".9999.");
        assert_eq!(
            verify(&KEY, "realm-link", &later, 0),
            Err(Invalid::BadSignature)
        );
        assert_eq!(
            verify(&KEY, "realm-link", "x.y", 0),
            Err(Invalid::Malformed)
        );
    }
}
