//! `telepathy transfer …` and `telepathy wordset …`: the console's transfer confirmation
//! and word-set review from the command line of a machine that holds the configuration
//! (`DATABASE_URL`, `TELEPATHY_DATA_KEY`). Every action leaves a line in the audit log
//! (no operator, address `cli`), as the console's do.

use anyhow::{anyhow, bail, Context};
use telepathy_domain::safety::{parse_reason, seoul_minute};
use telepathy_store::Store;

use crate::config::Config;
use crate::sealing::DataKey;
use crate::wordsets::{confirm_transfer, record_refund, review_wordset, Actor, Refusal};

pub const TRANSFER_USAGE: &str = "사용법: telepathy transfer <명령>
  list                 입금을 기다리는 결제와 어느 결제에도 맞지 않은 입금 알림을 보여줘요.
  confirm <결제 번호>  입금을 확인해 결제를 완료해요(24시간이 지난 결제도).
설정(DATABASE_URL 등)은 serve와 같이 환경 변수와 .env에서 읽어요.";

pub const WORDSET_USAGE: &str = "사용법: telepathy wordset <명령>
  list                      심사를 기다리는 단어 세트와 환불할 세트를 보여줘요.
  approve <번호>            단어 세트를 승인해요. 약 1분 뒤부터 라운드에 나와요.
  reject <번호> <사유>      단어 세트를 반려해요. 사유는 사용자에게 보여요.
  refunded <번호>           반려한 세트의 환불을 마쳤다고 기록하고 환불 계좌를 지워요.
설정(DATABASE_URL, TELEPATHY_DATA_KEY 등)은 serve와 같이 환경 변수와 .env에서 읽어요.";

/// The address audit lines of the command line carry.
const CLI_IP: &str = "cli";
const LISTED: i64 = 200;

/// A command of `telepathy transfer` or `telepathy wordset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    TransferList,
    TransferConfirm(i64),
    WordsetList,
    Approve(i64),
    Reject(i64, String),
    Refunded(i64),
}

fn id(word: &str) -> anyhow::Result<i64> {
    word.parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("번호가 올바르지 않아요: {word}"))
}

/// Reads the words after `transfer` (`wordset: false`) or `wordset`.
pub fn parse_args(wordset: bool, args: &[String]) -> anyhow::Result<Command> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let usage = if wordset {
        WORDSET_USAGE
    } else {
        TRANSFER_USAGE
    };
    let command = match (wordset, words.as_slice()) {
        (false, ["list"]) => Command::TransferList,
        (false, ["confirm", n]) => Command::TransferConfirm(id(n)?),
        (true, ["list"]) => Command::WordsetList,
        (true, ["approve", n]) => Command::Approve(id(n)?),
        (true, ["reject", n, reason @ ..]) if !reason.is_empty() => Command::Reject(
            id(n)?,
            parse_reason(&reason.join(" ")).map_err(|e| anyhow!("{}", e.message()))?,
        ),
        (true, ["refunded", n]) => Command::Refunded(id(n)?),
        (_, []) => bail!("명령이 없어요.\n{usage}"),
        (_, [command, ..]) => {
            bail!("알 수 없는 명령이거나 인자가 맞지 않아요: {command}\n{usage}")
        }
    };
    Ok(command)
}

/// `telepathy transfer …` or `telepathy wordset …`.
pub async fn run(wordset: bool, args: &[String]) -> anyhow::Result<()> {
    if args
        .iter()
        .any(|a| matches!(a.as_str(), "-h" | "--help" | "help"))
    {
        println!(
            "{}",
            if wordset {
                WORDSET_USAGE
            } else {
                TRANSFER_USAGE
            }
        );
        return Ok(());
    }
    let command = parse_args(wordset, args)?;
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            return Err(anyhow!("reading .env: {e}"));
        }
    }
    let config = Config::from_env()?;
    let store = Store::connect(&config.database_url)
        .await
        .context("connecting to the store")?;
    let now = chrono::Utc::now().timestamp_millis();
    let done = execute(&store, &config.data_key, &command, now).await;
    store.close().await;
    println!("{}", done?);
    Ok(())
}

fn refused(r: Refusal) -> anyhow::Error {
    match r {
        Refusal::Code(code) => anyhow!("{}", code.message()),
        Refusal::Store(e) => anyhow!(e).context("the database"),
    }
}

/// Carries out `command` on `store` and answers what to print.
pub async fn execute(
    store: &Store,
    key: &DataKey,
    command: &Command,
    now: i64,
) -> anyhow::Result<String> {
    let actor = Actor {
        operator_id: None,
        ip: CLI_IP,
    };
    match command {
        Command::TransferList => {
            let transfers = store.unpaid_transfers(LISTED).await?;
            let deposits = store.unsettled_deposits(LISTED).await?;
            let mut out =
                String::from("입금을 기다리는 결제\n번호\t입금자명\t금액\t아이디\t상태\t만료");
            for row in &transfers {
                let t = &row.transfer;
                out.push_str(&format!(
                    "\n{}\t{}\t{}원\t{}\t{}\t{}",
                    t.id,
                    t.depositor,
                    t.amount,
                    row.username,
                    if t.is_open(now) { "대기" } else { "만료" },
                    seoul_minute(t.expires_at)
                ));
            }
            if transfers.is_empty() {
                out.push_str("\n(없음)");
            }
            out.push_str("\n\n맞는 결제가 없는 입금 알림\n번호\t입금자명\t금액\t입금 시각\t사유");
            for d in &deposits {
                out.push_str(&format!(
                    "\n{}\t{}\t{}원\t{}\t{}",
                    d.id,
                    d.depositor,
                    d.amount,
                    d.deposited_at,
                    if d.outcome == "ambiguous" {
                        "여러 결제와 맞음"
                    } else {
                        "맞는 결제 없음"
                    }
                ));
            }
            if deposits.is_empty() {
                out.push_str("\n(없음)");
            }
            Ok(out)
        }
        Command::TransferConfirm(n) => {
            let paid = confirm_transfer(store, *n, None, actor, now)
                .await
                .map_err(refused)?;
            Ok(format!(
                "결제 {}의 입금({} {}원)을 확인했어요.",
                paid.id, paid.depositor, paid.amount
            ))
        }
        Command::WordsetList => {
            let mut out = String::from("심사를 기다리는 단어 세트\n번호\t단어\t아이디\t등록");
            let waiting = store.wordsets_by_status("pending", LISTED).await?;
            for row in &waiting {
                let w = &row.wordset;
                out.push_str(&format!(
                    "\n{}\t{}\t{}\t{}",
                    w.id,
                    w.words,
                    row.username,
                    seoul_minute(w.created_at)
                ));
            }
            if waiting.is_empty() {
                out.push_str("\n(없음)");
            }
            out.push_str("\n\n환불할 단어 세트\n번호\t금액\t은행\t계좌\t예금주");
            let rejected = store.wordsets_by_status("rejected", LISTED).await?;
            let mut owed = 0;
            for row in rejected.iter().filter(|r| r.wordset.refunded_at.is_none()) {
                let w = &row.wordset;
                let account = w
                    .refund_account
                    .as_deref()
                    .map(|sealed| key.open(sealed).unwrap_or_else(|_| "(열 수 없음)".into()))
                    .unwrap_or_else(|| "-".into());
                out.push_str(&format!(
                    "\n{}\t{}원\t{}\t{}\t{}",
                    w.id,
                    row.amount,
                    w.refund_bank.as_deref().unwrap_or("-"),
                    account,
                    row.real_name.as_deref().unwrap_or("-")
                ));
                owed += 1;
            }
            if owed == 0 {
                out.push_str("\n(없음)");
            } else {
                let detail = format!("환불 계좌 {owed}건 조회");
                store
                    .audit(&telepathy_store::AuditEntry {
                        operator_id: None,
                        action: "wordset.view",
                        user_id: None,
                        report_id: None,
                        detail: &detail,
                        ip: CLI_IP,
                        now,
                    })
                    .await?;
            }
            Ok(out)
        }
        Command::Approve(n) => {
            review_wordset(store, *n, None, actor, now)
                .await
                .map_err(refused)?;
            Ok(format!(
                "단어 세트 {n}을(를) 승인했어요. 약 1분 뒤부터 라운드에 나와요."
            ))
        }
        Command::Reject(n, reason) => {
            review_wordset(store, *n, Some(reason), actor, now)
                .await
                .map_err(refused)?;
            Ok(format!(
                "단어 세트 {n}을(를) 반려했어요. telepathy wordset list에서 환불할 계좌를 확인해주세요."
            ))
        }
        Command::Refunded(n) => {
            let account = store
                .wordset(*n)
                .await?
                .and_then(|row| row.wordset.refund_account)
                .and_then(|sealed| key.open(&sealed).ok());
            record_refund(store, *n, account.as_deref(), actor, now)
                .await
                .map_err(refused)?;
            Ok(format!(
                "단어 세트 {n}의 환불을 기록하고 환불 계좌를 지웠어요."
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn commands_parse() {
        let cases: &[(bool, &[&str], Option<Command>)] = &[
            (false, &["list"], Some(Command::TransferList)),
            (
                false,
                &["confirm", "12"],
                Some(Command::TransferConfirm(12)),
            ),
            (false, &["confirm", "x"], None),
            (false, &["confirm", "0"], None),
            (false, &["approve", "1"], None),
            (true, &["list"], Some(Command::WordsetList)),
            (true, &["approve", "3"], Some(Command::Approve(3))),
            (
                true,
                &["reject", "3", "부적절한", "단어"],
                Some(Command::Reject(3, "부적절한 단어".into())),
            ),
            (true, &["reject", "3"], None),
            (true, &["refunded", "3"], Some(Command::Refunded(3))),
            (true, &[], None),
        ];
        for (wordset, words, expected) in cases {
            assert_eq!(
                parse_args(*wordset, &args(words)).ok(),
                *expected,
                "{words:?}"
            );
        }
    }
}
