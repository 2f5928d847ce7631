with_all! {
    /// The closed set of errors a client can be told about, each with the Korean text the
    /// user sees. Texts quoted by the product specification are used word for word.
    ///
    /// The HTTP status of each code is decided in one place, in the server crate.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    #[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
    #[cfg_attr(feature = "openapi", oai(rename_all = "SCREAMING_SNAKE_CASE"))]
    pub enum ErrorCode {
        /// The username field is empty.
        UsernameRequired,
        /// The username breaks the username rule.
        UsernameInvalid,
        /// A required registration field is empty.
        FieldsRequired,
        /// The sign-up password is too weak.
        PasswordWeak,
        /// The password is longer than we hash.
        PasswordTooLong,
        /// A reset password is too short or differs from its confirmation.
        ResetPasswordMismatch,
        /// A changed password is too short or differs from its confirmation.
        NewPasswordMismatch,
        /// The phone field is empty.
        PhoneRequired,
        /// The phone number is not a Korean mobile number.
        PhoneInvalid,
        /// The verification code field is empty.
        CodeRequired,
        /// The birthdate is not a real 8-digit date.
        BirthdateInvalid,
        /// The gender is neither 남성 nor 여성.
        GenderInvalid,
        /// The nickname is empty.
        NicknameRequired,
        /// The nickname breaks the nickname rule.
        NicknameInvalid,
        /// The username belongs to an active account.
        UsernameTaken,
        /// Wrong username or password (never says which).
        LoginFailed,
        /// The person is younger than 14.
        UnderAge,
        /// Registration without a phone verified moments before.
        PhoneNotVerified,
        /// The phone number already belongs to an active account.
        PhoneInUse,
        /// The verification code is wrong.
        CodeInvalid,
        /// The verification code has expired or was never sent.
        CodeExpired,
        /// Too many wrong codes: a new code must be requested.
        CodeAttemptsExceeded,
        /// A code was sent to this phone too recently.
        SmsCooldown,
        /// The daily number of codes for this phone or address is used up.
        SmsDailyLimit,
        /// The SMS provider refused or failed.
        SmsSendFailed,
        /// Too many requests of one kind in a short time.
        RateLimited,
        /// The call needs a logged-in user.
        Unauthorized,
        /// The request came from a page of another site.
        ForbiddenOrigin,
        /// The text holds an abusive word (profanity, a sexual insult, a slur).
        ContentNotAllowed,
        /// The nickname was set less than a month ago.
        NicknameLocked,
        /// Another active account has this nickname (case and spaces aside).
        NicknameTaken,
        /// The user has the same four words waiting for review or approved.
        WordsetRepeated,
        /// A registration without the three required terms (service, privacy, youth).
        TermsRequired,
        /// The current password given for a change is wrong.
        CurrentPasswordWrong,
        /// The identity verification id is missing or unknown.
        IdentityIdInvalid,
        /// The identity check did not end verified.
        IdentityNotVerified,
        /// The identity provider could not be asked.
        IdentityFailed,
        /// The person the provider verified is not the account holder (another birthdate or
        /// phone).
        IdentityMismatch,
        /// The service is outside its hours.
        ServiceClosed,
        /// The join names a round that is not the current one.
        RoundOver,
        /// The join names a word the round does not show.
        WordNotInRound,
        /// The user already sits in a room.
        AlreadyInRoom,
        /// The user is not a member of that room, or it has ended.
        NotInRoom,
        /// A chat message is blank.
        MessageEmpty,
        /// A chat message is too long.
        MessageTooLong,
        /// Matching needs a nickname first.
        NicknameNeeded,
        /// No emotion, or one not offered, was chosen.
        EmotionRequired,
        /// Feedback names no room the user was in.
        FeedbackNoRoom,
        /// A wish to meet again names no room of the user's that ended lately.
        AgainNoRoom,
        /// The pair does not hold (taken back, lapsed, or ended by a block, report or
        /// sanction).
        AgainNoPair,
        /// The pair has an invitation not yet answered.
        AgainPending,
        /// The user sent as many invitations as a night allows.
        AgainTooMany,
        /// The invitation was answered, lapsed, or was never the user's.
        AgainInviteOver,
        /// One of the two sits in a chat now.
        AgainBusy,
        /// A report gives neither a reason nor any text.
        ReportEmpty,
        /// A report's text is too long.
        ReportTooLong,
        /// A report names a reason the modal does not offer.
        ReportReasonInvalid,
        /// A report about someone who was not the reporter's partner in that room.
        ReportNotPartner,
        /// The account is suspended or banned (the answer says why and until when).
        AccountRestricted,
        /// A comment is blank.
        CommentEmpty,
        /// A comment is too long.
        CommentTooLong,
        /// The call needs an operator who has passed the second factor.
        OperatorOnly,
        /// The operator has not passed the second factor yet.
        SecondFactorRequired,
        /// The one-time code of the second factor is wrong or used.
        TotpInvalid,
        /// The operator already enrolled an authenticator app (a new one needs
        /// `telepathy operator reset-totp`).
        TotpEnrolled,
        /// A code was sent before the operator's enrolment started.
        TotpNotStarted,
        /// An operator password breaks the operator password rule (`telepathy operator add`).
        OperatorPasswordWeak,
        /// The report was already resolved, by this operator or another.
        ReportClosed,
        /// A megaphone message is blank.
        MegaphoneEmpty,
        /// A megaphone message is longer than 20 characters.
        MegaphoneTooLong,
        /// A megaphone message holds contact details or a link (a phone number, an address, a
        /// messenger ID), which everyone online would read. Told apart from abuse, so that the
        /// sender learns what to take out.
        MegaphoneContact,
        /// Sending a megaphone with none left.
        NoMegaphones,
        /// The megaphones already waiting for air time fill the next minute.
        MegaphoneBusy,
        /// A megaphone sent again within the pace (`limits::MEGAPHONE_WINDOW`); the socket's
        /// refusal says how long to wait (`megaphone::too_soon`).
        MegaphoneTooSoon,
        /// The item is none of the megaphone packs.
        PackInvalid,
        /// The payment is unknown, not ours, not this user's, not for this item or amount, or
        /// paid another order already.
        PaymentInvalid,
        /// The card payment exists but is not paid (cancelled, failed, still waiting).
        CardNotPaid,
        /// The card payment gateway could not be asked.
        PaymentUnavailable,
        /// The action on a report or user is none of dismiss, warn, suspend, ban.
        SanctionKindInvalid,
        /// A suspension without its days, or with days out of 1–365.
        SanctionDaysInvalid,
        /// A sanction or lift without the reason the user (or the audit log) is told.
        SanctionReasonRequired,
        /// The reason is longer than 200 characters.
        SanctionReasonTooLong,
        /// The sanction was already lifted or has run out.
        SanctionLifted,
        /// The real name is empty.
        RealNameRequired,
        /// The real name breaks the real-name rule.
        RealNameInvalid,
        /// A transfer needs the payer's real name first (the depositor code is made from it).
        RealNameNeeded,
        /// The call names another user's id or payment: only one's own may be read or changed.
        NotOwner,
        /// A custom word set is bought for its one price.
        PaymentAmountInvalid,
        /// No paid payment is waiting for a word set (none was confirmed yet).
        PaymentNotPaid,
        /// The payment already bought a word set.
        PaymentUsed,
        /// The operator confirms a payment that is paid already.
        PaymentAlreadyPaid,
        /// Fewer or more than four words, or an empty one.
        WordsetWordsRequired,
        /// A word is not 1–6 Hangul syllables.
        WordsetWordInvalid,
        /// The same word twice.
        WordsetWordsDuplicate,
        /// The refund bank breaks the bank rule.
        RefundBankInvalid,
        /// The refund account number is not 4–20 digits.
        RefundAccountInvalid,
        /// The word set was reviewed already, by this operator or another.
        WordsetReviewed,
        /// The refund was recorded already, or the set needs none.
        RefundSettled,
        /// A deposit notification without a valid signature.
        SignatureInvalid,
        /// Turning the opening bell on without the notification consent.
        PushConsentRequired,
        /// The push subscription is not one a browser makes for a push service we send to.
        PushSubscriptionInvalid,
        /// The request body or parameters could not be read.
        InvalidRequest,
        /// The request body is larger than the API reads.
        PayloadTooLarge,
        /// The request's path and query are longer than a node reads.
        UriTooLong,
        /// The request's body did not arrive in time.
        RequestTimeout,
        /// Nothing is here.
        NotFound,
        /// A shared part (the database or Redis) does not answer in time; it heals by itself.
        Unavailable,
        /// Something failed on our side; details are in the log.
        Internal,
    }
}

impl ErrorCode {
    /// The Korean text shown to the user.
    pub fn message(self) -> &'static str {
        match self {
            Self::UsernameRequired => "아이디를 입력해주세요.",
            Self::UsernameInvalid => "아이디는 영문 소문자, 숫자, 밑줄(_)로 4~20자여야 해요.",
            Self::FieldsRequired => "모든 정보를 입력해주세요.",
            Self::PasswordWeak => {
                "비밀번호는 8자 이상이며, 영문/숫자/특수문자 중 2가지 이상을 포함해야 합니다."
            }
            Self::PasswordTooLong => "비밀번호는 64자 이하로 입력해주세요.",
            Self::ResetPasswordMismatch => "비밀번호를 다시 확인해주세요.",
            Self::NewPasswordMismatch => "새 비밀번호를 다시 확인해주세요.",
            Self::PhoneRequired => "전화번호를 입력해주세요.",
            Self::PhoneInvalid => "휴대폰 번호를 올바르게 입력해주세요.",
            Self::CodeRequired => "인증번호를 입력해주세요.",
            Self::BirthdateInvalid => "생년월일 8자리를 올바르게 입력해주세요.",
            Self::GenderInvalid => "성별을 선택해주세요.",
            Self::NicknameRequired => "닉네임을 입력해주세요.",
            Self::NicknameInvalid => "닉네임은 한글, 영문, 숫자로 20자 이내여야 해요.",
            Self::UsernameTaken => "이미 사용 중인 아이디입니다.",
            Self::LoginFailed => "아이디 또는 비밀번호가 올바르지 않아요.",
            Self::UnderAge => "만 14세 미만은 가입할 수 없어요.",
            Self::PhoneNotVerified => "휴대폰 인증을 먼저 완료해주세요.",
            Self::PhoneInUse => "이미 가입된 전화번호예요.",
            Self::CodeInvalid => "인증번호가 올바르지 않습니다.",
            Self::CodeExpired => "인증번호가 만료되었어요. 인증번호를 다시 요청해주세요.",
            Self::CodeAttemptsExceeded => {
                "인증번호를 5회 잘못 입력했어요. 인증번호를 다시 요청해주세요."
            }
            Self::SmsCooldown => {
                "인증번호는 1분에 한 번만 요청할 수 있어요. 잠시 후 다시 시도해주세요."
            }
            Self::SmsDailyLimit => {
                "오늘 요청할 수 있는 인증번호 횟수를 모두 사용했어요. 내일 다시 시도해주세요."
            }
            Self::SmsSendFailed => "인증번호 전송에 실패했습니다.",
            Self::RateLimited => "요청이 너무 많아요. 잠시 후 다시 시도해주세요.",
            Self::Unauthorized => "로그인이 필요해요.",
            Self::ForbiddenOrigin => "허용되지 않은 요청이에요.",
            Self::ContentNotAllowed => "부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요.",
            Self::NicknameLocked => "닉네임은 설정 후 1개월 동안 바꿀 수 없어요.",
            Self::NicknameTaken => "이미 사용 중인 닉네임이에요. 다른 닉네임을 정해주세요.",
            Self::WordsetRepeated => "이미 신청한 단어 세트예요. 다른 단어로 만들어주세요.",
            Self::TermsRequired => "필수 약관에 모두 동의해야 서비스를 이용할 수 있어요.",
            Self::CurrentPasswordWrong => "현재 비밀번호가 올바르지 않아요.",
            Self::IdentityIdInvalid => "인증 ID가 유효하지 않습니다.",
            Self::IdentityNotVerified => "본인인증이 완료되지 않았어요.",
            Self::IdentityFailed => "본인인증 중 오류가 발생했습니다.",
            Self::IdentityMismatch => "본인인증 정보가 가입 정보와 일치하지 않아요.",
            Self::ServiceClosed => {
                "지금은 운영 시간이 아니에요. 매일 오후 8시부터 새벽 2시까지 만날 수 있어요."
            }
            Self::RoundOver => "이번 라운드가 끝났어요. 새 단어를 골라주세요.",
            Self::WordNotInRound => "이번 라운드의 단어가 아니에요.",
            Self::AlreadyInRoom => "이미 대화 중인 상대가 있어요.",
            Self::NotInRoom => "대화방 정보가 없어요.",
            Self::MessageEmpty => "메시지를 입력해주세요.",
            Self::MessageTooLong => "메시지는 1000자 이하로 보내주세요.",
            Self::NicknameNeeded => "닉네임을 먼저 설정해주세요.",
            Self::EmotionRequired => "기분을 선택해주세요.",
            Self::FeedbackNoRoom => "함께 대화한 기록이 없어 기분을 남길 수 없어요.",
            Self::AgainNoRoom => "대화가 끝난 뒤 1시간 안에만 다시 만나고 싶다고 남길 수 있어요.",
            Self::AgainNoPair => "다시 텔레파시를 보낼 수 없는 상대예요.",
            Self::AgainPending => "아직 답을 기다리는 초대가 있어요. 잠시 후 다시 보내주세요.",
            Self::AgainTooMany => "다시 텔레파시는 하룻밤에 5번까지 보낼 수 있어요.",
            Self::AgainInviteOver => "이미 끝난 초대예요.",
            Self::AgainBusy => "지금은 이어질 수 없어요. 다음에 다시 만나요.",
            Self::ReportEmpty => "신고 사유를 선택하거나 내용을 입력해주세요.",
            Self::ReportTooLong => "신고 내용은 200자 이내로 입력해주세요.",
            Self::ReportReasonInvalid => "신고 사유를 다시 선택해주세요.",
            Self::ReportNotPartner => "함께 대화한 상대만 신고할 수 있어요.",
            Self::AccountRestricted => "이용이 제한된 계정이에요.",
            Self::CommentEmpty => "댓글 내용을 입력해주세요.",
            Self::CommentTooLong => "댓글은 100자 이내로 입력해주세요.",
            Self::OperatorOnly => "운영자 로그인이 필요해요.",
            Self::SecondFactorRequired => "2단계 인증을 완료해주세요.",
            Self::TotpInvalid => {
                "인증 코드가 올바르지 않아요. 인증 앱의 6자리 코드를 입력해주세요."
            }
            Self::TotpEnrolled => "이미 인증 앱이 등록되어 있어요. 인증 앱의 6자리 코드를 입력해주세요.",
            Self::TotpNotStarted => "인증 앱 등록을 먼저 시작해주세요.",
            Self::OperatorPasswordWeak => {
                "운영자 비밀번호는 12자 이상이며, 영문 소문자, 영문 대문자, 숫자, 특수문자 중 3가지 이상을 포함해야 해요."
            }
            Self::ReportClosed => "이미 처리된 신고예요.",
            Self::MegaphoneEmpty => "확성기로 보낼 메시지를 입력해주세요.",
            Self::MegaphoneTooLong => "확성기 메시지는 20자 이내로 입력해주세요.",
            Self::MegaphoneContact => "확성기에는 전화번호 같은 연락처나 링크를 담을 수 없어요.",
            Self::NoMegaphones => "확성기가 없어요. 확성기를 구매한 뒤 보내주세요.",
            Self::MegaphoneBusy => "지금은 확성기를 기다리는 사람이 많아요. 1분쯤 뒤에 다시 보내주세요.",
            Self::MegaphoneTooSoon => "확성기는 10초에 한 번 보낼 수 있어요. 잠시 후 다시 보내주세요.",
            Self::PackInvalid => "구매할 확성기 상품을 다시 선택해주세요.",
            Self::PaymentInvalid => "결제 정보를 확인할 수 없어요. 결제 문의로 알려주세요.",
            Self::CardNotPaid => "결제가 완료되지 않았어요.",
            Self::PaymentUnavailable => {
                "결제 서버와 연결하지 못했어요. 잠시 후 다시 시도해주세요."
            }
            Self::SanctionKindInvalid => "처리 방법을 다시 선택해주세요.",
            Self::SanctionDaysInvalid => "정지 기간은 1일부터 365일까지 입력해주세요.",
            Self::SanctionReasonRequired => "사유를 입력해주세요.",
            Self::SanctionReasonTooLong => "사유는 200자 이내로 입력해주세요.",
            Self::SanctionLifted => "이미 해제되었거나 기간이 끝난 제재예요.",
            Self::RealNameRequired => "이름을 입력해주세요.",
            Self::RealNameInvalid => "이름은 한글 또는 영문으로 20자 이내로 입력해주세요.",
            Self::RealNameNeeded => "입금 확인을 위해 이름을 먼저 입력해주세요.",
            Self::NotOwner => "본인의 정보만 보거나 바꿀 수 있어요.",
            Self::PaymentAmountInvalid => "단어 세트는 1,000원이에요.",
            Self::PaymentNotPaid => {
                "입금이 확인된 결제가 없어요. 입금이 확인된 뒤 단어를 등록해주세요."
            }
            Self::PaymentUsed => "이 결제로 이미 단어 세트를 등록했어요.",
            Self::PaymentAlreadyPaid => "이미 입금이 확인된 결제예요.",
            Self::WordsetWordsRequired => "단어 4개를 모두 입력해주세요.",
            Self::WordsetWordInvalid => "단어는 한글 1~6자로 입력해주세요.",
            Self::WordsetWordsDuplicate => "서로 다른 단어 4개를 입력해주세요.",
            Self::RefundBankInvalid => "은행 이름은 한글 또는 영문 2~20자로 입력해주세요.",
            Self::RefundAccountInvalid => "계좌번호는 숫자 4~20자리로 입력해주세요.",
            Self::WordsetReviewed => "이미 심사한 단어 세트예요.",
            Self::RefundSettled => "환불할 금액이 없거나 이미 환불을 기록했어요.",
            Self::SignatureInvalid => "서명이 올바르지 않아요.",
            Self::PushConsentRequired => "알림을 받으려면 알림 수신 동의가 필요해요.",
            Self::PushSubscriptionInvalid => {
                "이 브라우저의 알림 정보를 확인할 수 없어요. 다른 브라우저에서 시도해주세요."
            }
            Self::InvalidRequest => "요청 형식이 올바르지 않아요.",
            Self::PayloadTooLarge => "요청 내용이 너무 커요.",
            Self::UriTooLong => "요청 주소가 너무 길어요.",
            Self::RequestTimeout => "요청이 제시간에 도착하지 않았어요. 다시 시도해주세요.",
            Self::NotFound => "요청한 정보를 찾을 수 없어요.",
            Self::Unavailable => "지금은 서비스 연결이 원활하지 않아요. 잠시 후 다시 시도해주세요.",
            Self::Internal => "서버 오류가 발생했어요. 잠시 후 다시 시도해주세요.",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ErrorCode {}
