//! `telepathy transfer …` and `telepathy wordset …`: the console's transfer confirmation
//! and word-set review from the command line of a machine that holds the configuration
//! (`DATABASE_URL`, `TELEPATHY_DATA_KEY`). Every action leaves a line in the audit log
//! (no operator, address `cli`), as the console's do.

use anyhow::anyhow;
use clap::Subcommand;
use telepathy_domain::safety::{parse_reason, seoul_minute};
use telepathy_store::Store;

use crate::payments::wordsets::{confirm_transfer, record_refund, review_wordset, Actor, Refusal};
use crate::security::sealing::DataKey;

use super::setup::{configure, open_store};

/// The address audit lines of the command line carry.
const CLI_IP: &str = "cli";
const LISTED: i64 = 200;

/// A command of `telepathy transfer` or `telepathy wordset`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    TransferList,
    TransferConfirm(i64),
    WordsetList,
    Approve(i64),
    Reject(i64, String),
    Refunded(i64),
}

/// A command of `telepathy transfer`; its help text is the attribute `about`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum TransferCommand {
    #[command(about = "입금을 기다리는 결제와 어느 결제에도 맞지 않은 입금 알림을 보여줘요.")]
    List,
    #[command(about = "입금을 확인해 결제를 완료해요(24시간이 지난 결제도).")]
    Confirm {
        #[arg(
            value_name = "결제 번호",
            value_parser = id,
            help = "telepathy transfer list에 나오는 결제 번호예요."
        )]
        id: i64,
    },
}

/// A command of `telepathy wordset`; its help text is the attribute `about`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum WordsetCommand {
    #[command(about = "심사를 기다리는 단어 세트와 환불할 세트를 보여줘요.")]
    List,
    #[command(about = "단어 세트를 승인해요. 약 1분 뒤부터 라운드에 나와요.")]
    Approve {
        #[arg(
            value_name = "번호",
            value_parser = id,
            help = "telepathy wordset list에 나오는 단어 세트 번호예요."
        )]
        id: i64,
    },
    #[command(about = "단어 세트를 반려해요. 사유는 사용자에게 보여요.")]
    Reject {
        #[arg(
            value_name = "번호",
            value_parser = id,
            help = "telepathy wordset list에 나오는 단어 세트 번호예요."
        )]
        id: i64,
        #[arg(
            value_name = "사유",
            required = true,
            num_args = 1..,
            help = "사용자에게 보이는 반려 사유예요. 낱말 사이는 한 칸으로 이어요."
        )]
        reason: Vec<String>,
    },
    #[command(about = "반려한 세트의 환불을 마쳤다고 기록하고 환불 계좌를 지워요.")]
    Refunded {
        #[arg(
            value_name = "번호",
            value_parser = id,
            help = "telepathy wordset list에 나오는 단어 세트 번호예요."
        )]
        id: i64,
    },
}

/// A transfer's or a word set's number: a whole number above 0.
fn id(word: &str) -> Result<i64, String> {
    word.parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("번호가 올바르지 않아요: {word}"))
}

impl From<TransferCommand> for Command {
    fn from(command: TransferCommand) -> Self {
        match command {
            TransferCommand::List => Command::TransferList,
            TransferCommand::Confirm { id } => Command::TransferConfirm(id),
        }
    }
}

impl TryFrom<WordsetCommand> for Command {
    type Error = anyhow::Error;

    /// Checks what clap cannot check word by word: a rejection's reason, all its words.
    fn try_from(command: WordsetCommand) -> anyhow::Result<Self> {
        Ok(match command {
            WordsetCommand::List => Command::WordsetList,
            WordsetCommand::Approve { id } => Command::Approve(id),
            WordsetCommand::Reject { id, reason } => Command::Reject(
                id,
                parse_reason(&reason.join(" ")).map_err(|e| anyhow!("{}", e.message()))?,
            ),
            WordsetCommand::Refunded { id } => Command::Refunded(id),
        })
    }
}

/// `telepathy transfer …` or `telepathy wordset …`.
pub async fn run(command: Command) -> anyhow::Result<()> {
    let config = configure()?;
    let store = open_store(&config).await?;
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
