//! The command line of `telepathy`: what it takes (`Cli`, read by clap), each command in a
//! module of its own (`operator`, `seed`, `wordset`), and the start-up they share (`setup`:
//! the configuration, the store). With no command it starts a node, as `scripts/run` and
//! the Kubernetes manifests expect. The commands an operator runs speak Korean, as their
//! answers do; the developers' commands speak English.

use clap::{Parser, Subcommand};

pub mod operator;
pub mod seed;
pub mod setup;
pub mod wordset;

/// `telepathy [command]`.
#[derive(Debug, Parser)]
#[command(
    name = "telepathy",
    about = "A node of Telepathy (텔레파시), and the commands that look after its deployment.",
    after_help = "With no command, starts a node. Every command reads its configuration\n\
                  (DATABASE_URL, REDIS_URL, TELEPATHY_*) from the environment and .env, as a\n\
                  node does; .env.example lists every variable."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The command to run: `serve` when none is given.
    pub fn into_command(self) -> Command {
        self.command.unwrap_or(Command::Serve)
    }
}

/// A command of `telepathy`; its help text is the attribute `about`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    #[command(about = "Start a node (what telepathy does with no command)")]
    Serve,
    #[command(about = "Print the API's OpenAPI document (openapi/openapi.json)")]
    Openapi,
    #[command(
        about = "Make load-test users with a session each (demo mode only)",
        long_about = seed::ABOUT,
        args_override_self = true
    )]
    Seed(seed::Args),
    #[command(
        subcommand,
        about = "운영자 계정을 만들고 관리해요.",
        after_help = "설정(DATABASE_URL 등)은 serve와 같이 환경 변수와 .env에서 읽어요."
    )]
    Operator(operator::Command),
    #[command(
        subcommand,
        about = "계좌 이체 결제의 입금을 확인해요.",
        after_help = "설정(DATABASE_URL 등)은 serve와 같이 환경 변수와 .env에서 읽어요."
    )]
    Transfer(wordset::TransferCommand),
    #[command(
        subcommand,
        about = "사용자가 만든 단어 세트를 심사하고 환불을 기록해요.",
        after_help = "설정(DATABASE_URL, TELEPATHY_DATA_KEY 등)은 serve와 같이 환경 변수와 \
                      .env에서 읽어요."
    )]
    Wordset(wordset::WordsetCommand),
    #[command(about = "Make the VAPID key pair that signs the opening bell's pushes")]
    Vapid,
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;
    use clap::CommandFactory;
    use telepathy_domain::ErrorCode;

    use super::*;

    fn parse(line: &str) -> Result<Command, clap::Error> {
        Cli::try_parse_from(std::iter::once("telepathy").chain(line.split_whitespace()))
            .map(Cli::into_command)
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_command_starts_a_node() {
        assert_eq!(parse("").unwrap(), Command::Serve);
        assert_eq!(parse("serve").unwrap(), Command::Serve);
        assert_eq!(parse("openapi").unwrap(), Command::Openapi);
        assert_eq!(parse("vapid").unwrap(), Command::Vapid);
        assert!(parse("serve now").is_err());
    }

    #[test]
    fn help_lists_every_command() {
        let e = parse("--help").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DisplayHelp);
        let help = e.to_string();
        for name in [
            "serve", "openapi", "seed", "operator", "transfer", "wordset", "vapid",
        ] {
            assert!(
                help.lines().any(|l| l.trim_start().starts_with(name)),
                "{name} in {help}"
            );
        }
        let help = parse("operator --help").unwrap_err().to_string();
        for name in ["add", "list", "disable", "reset-totp"] {
            assert!(
                help.lines().any(|l| l.trim_start().starts_with(name)),
                "{name} in {help}"
            );
        }
        assert!(help.contains("운영자 목록을 보여줘요."), "{help}");
    }

    #[test]
    fn a_misspelt_command_is_answered_with_the_right_one() {
        let e = parse("operater list").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidSubcommand);
        assert!(e.to_string().contains("'operator'"), "{e}");
        let e = parse("wordset aprove 3").unwrap_err();
        assert!(e.to_string().contains("'approve'"), "{e}");
    }

    #[test]
    fn operator_commands_parse() {
        use operator::Command::*;
        let cases: &[(&str, Option<operator::Command>)] = &[
            (
                "add mina",
                Some(Add {
                    username: "mina".into(),
                }),
            ),
            ("list", Some(List)),
            (
                "disable mina_2",
                Some(Disable {
                    username: "mina_2".into(),
                }),
            ),
            (
                "reset-totp mina",
                Some(ResetTotp {
                    username: "mina".into(),
                }),
            ),
            ("add", None),
            ("add mina extra", None),
            ("add Mina", None),
            ("add mi", None),
            ("list all", None),
            ("remove mina", None),
            ("", None),
        ];
        for (line, expected) in cases {
            let parsed = match parse(&format!("operator {line}")) {
                Ok(Command::Operator(c)) => Some(c),
                _ => None,
            };
            assert_eq!(parsed, *expected, "{line:?}");
        }
    }

    #[test]
    fn a_bad_operator_username_is_told_in_korean() {
        let e = parse("operator add Mina").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert!(
            e.to_string().contains(ErrorCode::UsernameInvalid.message()),
            "{e}"
        );
    }

    #[test]
    fn transfer_and_wordset_commands_parse() {
        use wordset::Command as C;
        let cases: &[(&str, Option<C>)] = &[
            ("transfer list", Some(C::TransferList)),
            ("transfer confirm 12", Some(C::TransferConfirm(12))),
            ("transfer confirm x", None),
            ("transfer confirm 0", None),
            ("transfer approve 1", None),
            ("transfer", None),
            ("wordset list", Some(C::WordsetList)),
            ("wordset approve 3", Some(C::Approve(3))),
            (
                "wordset reject 3 부적절한 단어",
                Some(C::Reject(3, "부적절한 단어".into())),
            ),
            ("wordset reject 3", None),
            ("wordset reject 3 \u{200b}", None),
            ("wordset refunded 3", Some(C::Refunded(3))),
            ("wordset", None),
        ];
        for (line, expected) in cases {
            let parsed = match parse(line) {
                Ok(Command::Transfer(c)) => Some(C::from(c)),
                Ok(Command::Wordset(c)) => C::try_from(c).ok(),
                _ => None,
            };
            assert_eq!(parsed, *expected, "{line:?}");
        }
        let e = parse("transfer confirm x").unwrap_err().to_string();
        assert!(e.contains("번호가 올바르지 않아요: x"), "{e}");
    }

    #[test]
    fn seed_takes_its_flags() {
        let Command::Seed(a) = parse(
            "seed --users 5 --out /tmp/s.json --url http://127.0.0.1:1/ --url http://127.0.0.1:2",
        )
        .unwrap() else {
            panic!("not seed");
        };
        assert_eq!(a.users, 5);
        assert_eq!(a.out, std::path::PathBuf::from("/tmp/s.json"));
        assert_eq!(a.urls, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
        let Command::Seed(a) = parse("seed --out x --users 1 --users 7").unwrap() else {
            panic!("not seed");
        };
        assert_eq!(a.users, 7, "the last --users counts");
        assert!(a.urls.is_empty());
        for bad in [
            "seed --out x",
            "seed --users 5",
            "seed --users 0 --out x",
            "seed --users 200001 --out x",
            "seed --users five --out x",
            "seed --users 5 --out x --url ws://x",
            "seed --users 5 --out x --bogus",
            "seed --users 5 --out",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
