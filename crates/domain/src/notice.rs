with_all! {
    /// The closed set of successes a client is told about, each with the Korean text the user
    /// sees: the counterpart of [`crate::ErrorCode`], so every Korean sentence the server says
    /// has one home.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Notice {
        UsernameAvailable,
        CodeSent,
        ResetCodeSent,
        PhoneVerified,
        Registered,
        IdentityVerified,
        LoggedIn,
        LoggedOut,
        Withdrawn,
        NicknameAvailable,
        NicknameSaved,
        PasswordReset,
        PasswordChanged,
        ChatEnded,
        PartnerBlocked,
        AgainPairEnded,
        /// The title of a 다시 텔레파시 invitation's push.
        AgainInviteTitle,
        FeedbackSaved,
        ReportFiled,
        WarningSeen,
        CommentPosted,
        OperatorEnterCode,
        OperatorEnrolThenCode,
        OperatorEnrolled,
        OperatorVerified,
        ReportResolved,
        SanctionGiven,
        SanctionLifted,
        CommentHidden,
        MegaphoneCount,
        MegaphonesGranted,
        MegaphoneSent,
        MegaphoneQueued,
        MegaphoneHidden,
        RealNameSaved,
        TransferOpened,
        WordsetSubmitted,
        DepositReceived,
        TransferConfirmed,
        WordsetApproved,
        WordsetRejected,
        RefundRecorded,
        PushState,
        PushConsentGiven,
        PushConsentWithdrawn,
        BellOn,
        BellOff,
        /// The opening bell's title.
        OpeningTitle,
        /// The opening bell's text.
        OpeningBody,
    }
}

impl Notice {
    /// The Korean text shown to the user.
    pub fn message(self) -> &'static str {
        match self {
            Self::UsernameAvailable => "사용 가능한 아이디입니다.",
            Self::CodeSent => "인증번호가 전송되었어요.",
            Self::ResetCodeSent => "등록된 휴대폰으로 인증번호를 보냈어요.",
            Self::PhoneVerified => "인증이 완료되었어요.",
            Self::Registered => "회원가입이 완료되었어요.",
            Self::IdentityVerified => "본인인증이 완료되었어요.",
            Self::LoggedIn => "로그인되었어요.",
            Self::LoggedOut => "로그아웃되었어요.",
            Self::Withdrawn => "회원 탈퇴가 완료되었어요.",
            Self::NicknameAvailable => "사용할 수 있는 닉네임이에요.",
            Self::NicknameSaved => "닉네임이 저장되었어요.",
            Self::PasswordReset => "비밀번호가 재설정되었어요.",
            Self::PasswordChanged => "비밀번호가 변경되었습니다.",
            Self::ChatEnded => "대화가 종료되었어요.",
            Self::PartnerBlocked => "차단했어요. 이 상대와는 다시 연결되지 않아요.",
            Self::AgainPairEnded => "다시 텔레파시를 거두었어요. 서로에게 다시 보낼 수 없어요.",
            Self::AgainInviteTitle => "다시 텔레파시",
            Self::FeedbackSaved => "소중한 기분을 남겨주셔서 고마워요.",
            Self::ReportFiled => "신고가 접수되었어요. 운영팀이 24시간 이내에 확인할게요.",
            Self::WarningSeen => "경고를 확인했어요.",
            Self::CommentPosted => "댓글이 등록되었어요.",
            Self::OperatorEnterCode => "인증 앱의 6자리 코드를 입력해주세요.",
            Self::OperatorEnrolThenCode => "인증 앱을 등록한 뒤 6자리 코드를 입력해주세요.",
            Self::OperatorEnrolled => "인증 앱을 등록했어요.",
            Self::OperatorVerified => "2단계 인증을 완료했어요.",
            Self::ReportResolved => "신고를 처리했어요.",
            Self::SanctionGiven => "제재를 적용했어요.",
            Self::SanctionLifted => "제재를 해제했어요.",
            Self::CommentHidden => "댓글을 숨겼어요.",
            Self::MegaphoneCount => "보유한 확성기 개수예요.",
            Self::MegaphonesGranted => "확성기가 지급되었어요.",
            Self::MegaphoneSent => "확성기를 보냈어요.",
            Self::MegaphoneQueued => "확성기를 보냈어요. 앞선 확성기가 끝나는 대로 모두에게 보여요.",
            Self::MegaphoneHidden => "확성기를 숨겼어요.",
            Self::RealNameSaved => "이름이 저장되었어요.",
            Self::TransferOpened => {
                "아래 계좌로 1,000원을 보내주세요. 받는 분 통장 표시에 입금자명을 그대로 적어주세요."
            }
            Self::WordsetSubmitted => {
                "소중한 단어를 보내주셔서 고마워요! 검토를 거쳐 24시간 이내에 반영될 거예요."
            }
            Self::DepositReceived => "입금 알림을 받았어요.",
            Self::TransferConfirmed => "입금을 확인했어요.",
            Self::WordsetApproved => "단어 세트를 승인했어요. 곧 라운드에 나와요.",
            Self::WordsetRejected => "단어 세트를 반려했어요. 환불할 계좌로 1,000원을 돌려주세요.",
            Self::RefundRecorded => "환불을 마쳤다고 기록했어요.",
            Self::PushState => "알림 설정이에요.",
            Self::PushConsentGiven => "알림 수신에 동의했어요.",
            Self::PushConsentWithdrawn => {
                "알림 수신 동의를 철회했어요. 모든 기기에서 8시 알림이 꺼졌어요."
            }
            Self::BellOn => "저녁 8시에 문이 열리면 이 기기로 알려드릴게요.",
            Self::BellOff => "이 기기의 8시 알림을 껐어요.",
            Self::OpeningTitle => "텔레파시가 문을 열었어요",
            Self::OpeningBody => "지금 들어오면 같은 단어를 고른 사람과 이야기할 수 있어요.",
        }
    }
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}
