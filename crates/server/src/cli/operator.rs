//! `telepathy operator …`: operators are made and stopped from the command line of a
//! machine that holds the configuration (`DATABASE_URL`), never over the API. Every
//! command leaves a line in the audit log (no operator, address `cli`).

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{anyhow, bail, Context};
use clap::Subcommand;
use telepathy_domain::safety::seoul_minute;
use telepathy_domain::{Password, Username};
use telepathy_store::{AuditEntry, Store, StoreError};

use crate::security::passwords::{self, Lane};

use super::setup::{configure, open_store};

/// The environment variable `add` reads the password from.
pub const PASSWORD_VAR: &str = "TELEPATHY_OPERATOR_PASSWORD";

/// The address audit lines of the command line carry.
const CLI_IP: &str = "cli";

/// A command of `telepathy operator`; its help text is the attribute `about`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    #[command(
        about = "운영자를 만들어요. 비밀번호는 TELEPATHY_OPERATOR_PASSWORD 또는 표준 입력의 첫 줄에서 \
                 읽어요(12자 이상, 영문 소문자/대문자/숫자/특수문자 중 3가지 이상)."
    )]
    Add {
        #[arg(value_name = "아이디", value_parser = username, help = "운영자 아이디예요.")]
        username: String,
    },
    #[command(about = "운영자 목록을 보여줘요.")]
    List,
    #[command(about = "운영자를 사용 중지하고 로그인된 세션을 모두 끝내요.")]
    Disable {
        #[arg(value_name = "아이디", value_parser = username, help = "운영자 아이디예요.")]
        username: String,
    },
    #[command(about = "인증 앱 등록을 지우고 세션을 끝내요. 다음 로그인에서 새로 등록해요.")]
    ResetTotp {
        #[arg(value_name = "아이디", value_parser = username, help = "운영자 아이디예요.")]
        username: String,
    },
}

/// An operator's username, checked by the username rule.
fn username(name: &str) -> Result<String, String> {
    Username::parse(name)
        .map(|u| u.as_ref().to_owned())
        .map_err(|e| e.message().to_owned())
}

/// The new operator's password: `from_env` when set, otherwise the first line of `input`;
/// checked against the operator password rule.
pub fn read_password(
    from_env: Option<String>,
    input: &mut dyn BufRead,
) -> anyhow::Result<Password> {
    let password = match from_env.filter(|p| !p.is_empty()) {
        Some(p) => p,
        None => {
            let mut line = String::new();
            input
                .read_line(&mut line)
                .context("표준 입력에서 비밀번호를 읽지 못했어요")?;
            line.trim_end_matches(['\r', '\n']).to_owned()
        }
    };
    if password.is_empty() {
        bail!("비밀번호가 없어요. {PASSWORD_VAR}에 넣거나 표준 입력으로 한 줄을 보내주세요.");
    }
    Password::parse_operator(&password).map_err(|e| anyhow!("{}", e.message()))
}

/// `telepathy operator …`.
pub async fn run(command: Command) -> anyhow::Result<()> {
    let config = configure()?;
    let password = match &command {
        Command::Add { .. } => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                eprint!("새 운영자 비밀번호(화면에 보여요): ");
                let _ = std::io::stderr().flush();
            }
            Some(read_password(
                std::env::var(PASSWORD_VAR).ok(),
                &mut stdin.lock(),
            )?)
        }
        _ => None,
    };
    let store = open_store(&config).await?;
    let now = chrono::Utc::now().timestamp_millis();
    let done = execute(&store, &command, password.as_ref(), now).await;
    store.close().await;
    println!("{}", done?);
    Ok(())
}

/// Carries out `command` on `store` (with `password` for `add`) and answers what to print.
pub async fn execute(
    store: &Store,
    command: &Command,
    password: Option<&Password>,
    now: i64,
) -> anyhow::Result<String> {
    let audit = |action, detail| AuditEntry {
        operator_id: None,
        action,
        user_id: None,
        report_id: None,
        detail,
        ip: CLI_IP,
        now,
    };
    match command {
        Command::Add { username: name } => {
            let password = password.ok_or_else(|| anyhow!("비밀번호가 없어요."))?;
            let hash = passwords::hash(password.expose().to_owned(), Lane::Known).await?;
            let detail = format!("운영자 {name} 추가");
            match store
                .add_operator(name, &hash, now, &audit("operator.add", &detail))
                .await
            {
                Ok(_) => Ok(format!(
                    "운영자 {name}을(를) 만들었어요. 첫 로그인에서 인증 앱을 등록해요."
                )),
                Err(StoreError::OperatorExists) => bail!("이미 있는 운영자 아이디예요: {name}"),
                Err(e) => Err(e).context("adding an operator"),
            }
        }
        Command::List => {
            let operators = store.operators().await?;
            let detail = format!("운영자 목록 조회 ({}명)", operators.len());
            store.audit(&audit("operator.list", &detail)).await?;
            if operators.is_empty() {
                return Ok(
                    "운영자가 없어요. telepathy operator add <아이디>로 만들어주세요.".to_owned(),
                );
            }
            let mut out = String::from("아이디\t인증 앱\t만든 때\t상태");
            for o in operators {
                let totp = if o.totp_enrolled_at.is_some() {
                    "등록됨"
                } else {
                    "미등록"
                };
                let state = match o.disabled_at {
                    Some(at) => format!("사용 중지({})", seoul_minute(at)),
                    None => "사용 중".to_owned(),
                };
                out.push_str(&format!(
                    "\n{}\t{totp}\t{}\t{state}",
                    o.username,
                    seoul_minute(o.created_at)
                ));
            }
            Ok(out)
        }
        Command::Disable { username: name } => {
            let operator = find(store, name).await?;
            let detail = format!("운영자 {name} 사용 중지");
            if !store
                .disable_operator(operator.id, now, &audit("operator.disable", &detail))
                .await?
            {
                bail!("이미 사용 중지된 운영자예요: {name}");
            }
            Ok(format!(
                "운영자 {name}을(를) 사용 중지하고 세션을 모두 끝냈어요."
            ))
        }
        Command::ResetTotp { username: name } => {
            let operator = find(store, name).await?;
            let detail = format!("운영자 {name} 인증 앱 초기화");
            store
                .reset_operator_totp(operator.id, now, &audit("operator.reset_totp", &detail))
                .await?;
            Ok(format!(
                "운영자 {name}의 인증 앱 등록을 지우고 세션을 끝냈어요. 다음 로그인에서 새로 등록해요."
            ))
        }
    }
}

async fn find(store: &Store, name: &str) -> anyhow::Result<telepathy_store::Operator> {
    store
        .operator_by_username(name)
        .await?
        .ok_or_else(|| anyhow!("운영자를 찾을 수 없어요: {name}"))
}

#[cfg(test)]
mod tests {
    use telepathy_domain::ErrorCode;

    use super::*;

    #[test]
    fn the_password_comes_from_the_variable_or_one_line() {
        let strong = "Correct-horse-7";
        let mut none: &[u8] = b"";
        assert_eq!(
            read_password(Some(strong.into()), &mut none)
                .unwrap()
                .expose(),
            strong
        );
        let mut line: &[u8] = b"Correct-horse-7\r\nsecond line\n";
        assert_eq!(read_password(None, &mut line).unwrap().expose(), strong);
        let mut line: &[u8] = b"Correct-horse-7";
        assert_eq!(
            read_password(Some(String::new()), &mut line)
                .unwrap()
                .expose(),
            strong,
            "an empty variable is not a password"
        );
        let mut weak_line: &[u8] = b"correcthorse\n";
        assert_eq!(
            read_password(None, &mut weak_line).unwrap_err().to_string(),
            ErrorCode::OperatorPasswordWeak.message()
        );
        let mut empty: &[u8] = b"\n";
        assert!(read_password(None, &mut empty)
            .unwrap_err()
            .to_string()
            .contains(PASSWORD_VAR));
    }
}
