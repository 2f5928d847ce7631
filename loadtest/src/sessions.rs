//! The sessions file `telepathy seed` writes (the format of driver.js `--sessions`):
//! `{"version": 1, "sessions": [{"url", "username", "password", "phone", "nickname",
//! "userId", "cookie"}]}`.

use std::path::Path;

use anyhow::{anyhow, bail, Context};
use serde::Deserialize;

/// One logged-in user of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub username: String,
    pub user_id: i64,
    /// `tp_session=<token>`, the whole Cookie header.
    pub cookie: String,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    version: Option<u32>,
    sessions: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    username: Option<String>,
    /// A string (as seed writes it) or a number.
    #[serde(default)]
    user_id: Option<serde_json::Value>,
    cookie: String,
}

/// Sessions `skip .. skip + users` of the file at `path`.
pub fn load(path: &Path, skip: usize, users: usize) -> anyhow::Result<Vec<Session>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the sessions file {}", path.display()))?;
    parse(&text, skip, users).with_context(|| format!("sessions file {}", path.display()))
}

fn parse(text: &str, skip: usize, users: usize) -> anyhow::Result<Vec<Session>> {
    let file: File = serde_json::from_str(text).context("not a sessions file")?;
    if let Some(v) = file.version {
        if v != 1 {
            bail!("version {v}; only version 1 is known");
        }
    }
    let have = file.sessions.len();
    if skip.saturating_add(users) > have {
        bail!(
            "{users} users from session {skip} on need {} sessions, the file has {have}; seed more \
             with `telepathy seed --users {}`",
            skip + users,
            skip + users
        );
    }
    let mut seen = std::collections::HashSet::new();
    file.sessions
        .into_iter()
        .skip(skip)
        .take(users)
        .enumerate()
        .map(|(k, e)| {
            let n = skip + k;
            let user_id = match &e.user_id {
                Some(serde_json::Value::Number(n)) => n.as_i64(),
                Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
                _ => None,
            }
            .ok_or_else(|| anyhow!("session {n} has no numeric userId; write the file with `telepathy seed`"))?;
            if !seen.insert(user_id) {
                bail!("session {n}: user {user_id} appears twice; every virtual user must be a different user");
            }
            let cookie = e.cookie.trim().to_owned();
            if !cookie.contains('=') || cookie.bytes().any(|b| b < 0x20 || b == 0x7f) {
                bail!("session {n} has no usable cookie");
            }
            Ok(Session {
                username: e.username.unwrap_or_else(|| format!("user {user_id}")),
                user_id,
                cookie,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{"version": 1, "sessions": [
        {"url": null, "username": "lt1", "password": null, "phone": "01000000001", "nickname": "n1", "userId": "7", "cookie": "tp_session=aa"},
        {"url": "http://127.0.0.1:1", "username": "lt2", "userId": 8, "cookie": "tp_session=bb"},
        {"username": "lt3", "userId": "9", "cookie": "tp_session=cc"}
    ]}"#;

    #[test]
    fn reads_string_and_number_ids() {
        let s = parse(FILE, 0, 3).unwrap();
        assert_eq!(s.iter().map(|s| s.user_id).collect::<Vec<_>>(), [7, 8, 9]);
        assert_eq!(s[0].cookie, "tp_session=aa");
        let tail = parse(FILE, 1, 2).unwrap();
        assert_eq!(tail[0].username, "lt2");
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        assert!(parse(FILE, 2, 2)
            .unwrap_err()
            .to_string()
            .contains("seed more"));
        assert!(parse(r#"{"sessions": [{"userId": null, "cookie": "a=b"}]}"#, 0, 1).is_err());
        assert!(parse(
            r#"{"sessions": [{"userId": 1, "cookie": "nothing"}]}"#,
            0,
            1
        )
        .is_err());
        assert!(parse(
            r#"{"sessions": [{"userId": 1, "cookie": "a=b"}, {"userId": "1", "cookie": "a=c"}]}"#,
            0,
            2
        )
        .is_err());
        assert!(parse(r#"{"version": 2, "sessions": []}"#, 0, 0).is_err());
        assert!(parse("[]", 0, 0).is_err());
    }
}
