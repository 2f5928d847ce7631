use crate::ProviderError;

/// Joins a base URL and a path that starts with `/`, tolerating a trailing slash on the base.
pub(crate) fn join_url(base_url: &str, path: &str) -> String {
    format!("{}{}", base_url.trim_end_matches('/'), path)
}

pub(crate) fn validate_base_url(base_url: &str) -> Result<(), ProviderError> {
    let url = reqwest::Url::parse(base_url)
        .map_err(|e| ProviderError::Config(format!("invalid base URL {base_url:?}: {e}")))?;
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(ProviderError::Config(format!(
            "base URL must be http(s), got {other:?}"
        ))),
    }
}

/// Percent-encodes everything outside RFC 3986 "unreserved", so a caller-supplied
/// id always stays a single path segment.
pub(crate) fn encode_path_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Random lowercase hex of `2 * bytes` characters from the OS-seeded CSPRNG.
pub(crate) fn random_hex(bytes: usize) -> String {
    use rand::RngCore as _;
    let mut buf = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

/// A random version-4 UUID in its usual 8-4-4-4-12 form.
pub(crate) fn random_uuid() -> String {
    let mut bytes = rand::random::<[u8; 16]>();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let h = hex::encode(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Keeps only the first 3 and last 4 digits, enough to tell numbers apart in logs.
pub(crate) fn mask_phone(phone: &str) -> String {
    let chars: Vec<char> = phone.chars().collect();
    if chars.len() <= 7 {
        return "*".repeat(chars.len());
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}{}{tail}", "*".repeat(chars.len() - 7))
}

/// Shortens a response body for an error message without splitting a UTF-8 character.
pub(crate) fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((idx, _)) => format!("{}…", &text[..idx]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_reserved_characters() {
        assert_eq!(encode_path_segment("abc-1_2.~"), "abc-1_2.~");
        assert_eq!(encode_path_segment("a/b c?d#e"), "a%2Fb%20c%3Fd%23e");
        assert_eq!(encode_path_segment("인"), "%EC%9D%B8");
    }

    #[test]
    fn uuid_shape() {
        let id = random_uuid();
        assert_eq!(id.len(), 36);
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert_ne!(random_uuid(), random_uuid());
    }

    #[test]
    fn masks_phone() {
        assert_eq!(mask_phone("01012345678"), "010****5678");
        assert_eq!(mask_phone("1234"), "****");
    }

    #[test]
    fn joins_with_or_without_trailing_slash() {
        assert_eq!(join_url("http://x/", "/a"), "http://x/a");
        assert_eq!(join_url("http://x", "/a"), "http://x/a");
    }

    #[test]
    fn truncates_on_char_boundary() {
        assert_eq!(truncate("가나다라", 2), "가나…");
        assert_eq!(truncate("ab", 5), "ab");
    }

    #[test]
    fn rejects_non_http_base_url() {
        assert!(validate_base_url("https://api.solapi.com").is_ok());
        assert!(validate_base_url("ftp://x").is_err());
        assert!(validate_base_url("not a url").is_err());
    }
}
