//! 다시 텔레파시: a wish after a chat, the pairs both members wished for, and the
//! invitations that bring a pair back into a chat (see `realtime::again`).

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};
use telepathy_domain::Notice;

use super::{Ack, Tag};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::wire::AgainInvite;

pub struct AgainApi(pub AppState);

/// A chat of the caller's that ended.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WishBody {
    pub room_id: String,
}

/// A wish noted.
#[derive(Debug, Object)]
pub struct Wished {
    pub success: bool,
    /// Both wished it: the two are a pair now (on /mywords). False says nothing of the
    /// partner: they may not have answered yet.
    pub paired: bool,
}

/// A pair as the caller sees it: the word and the chat they both wished after, never who
/// the other is beyond the nickname of that chat's word history.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PairView {
    pub id: i64,
    pub word: String,
    pub room_id: String,
    /// RFC 3339: when both had wished it.
    pub since: String,
    /// RFC 3339: when it lapses.
    pub until: String,
}

#[derive(Debug, Object)]
pub struct Pairs {
    pub success: bool,
    /// Newest first.
    pub pairs: Vec<PairView>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct InviteBody {
    pub pair_id: i64,
}

/// An invitation sent. Its answer is not told: a chat opens (`matched` with `again`) or,
/// by `expiresAt`, it did not.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct InviteSent {
    pub success: bool,
    pub invite_id: String,
    /// Milliseconds since the Unix epoch of the shared clock.
    pub expires_at: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AnswerBody {
    pub invite_id: String,
    pub accept: bool,
}

/// An answer given: with `roomId` when it was accepted and the chat opened.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase", skip_serializing_if_is_none)]
pub struct Answered {
    pub success: bool,
    pub room_id: Option<String>,
}

/// An invitation waiting for the caller's answer.
#[derive(Debug, Object)]
pub struct OpenInvitation {
    pub success: bool,
    pub invite: AgainInvite,
}

fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339()
}

#[OpenApi]
impl AgainApi {
    /// "다시 만나고 싶어요" after a chat that ended within the hour. Only when both
    /// members said it, and neither blocked or reported the other, are they a pair.
    #[oai(
        path = "/again/wish",
        method = "post",
        operation_id = "wishAgain",
        tag = "Tag::Again"
    )]
    async fn wish(&self, req: &Request, body: Json<WishBody>) -> ApiResult<Wished> {
        let user = self.0.sessions.require_user(req).await?.user;
        let paired = self.0.realtime.wish_again(user.id, &body.room_id).await?;
        Ok(Json(Wished {
            success: true,
            paired,
        }))
    }

    /// The caller's pairs that hold now (30 days from both wishing, until either takes
    /// it back, blocks, reports or is sanctioned).
    #[oai(
        path = "/again/pairs",
        method = "get",
        operation_id = "getAgainPairs",
        tag = "Tag::Again"
    )]
    async fn pairs(&self, req: &Request) -> ApiResult<Pairs> {
        let user = self.0.sessions.require_user(req).await?.user;
        let pairs = self.0.realtime.again_pairs(user.id).await?;
        Ok(Json(Pairs {
            success: true,
            pairs: pairs
                .into_iter()
                .map(|p| PairView {
                    id: p.id,
                    word: p.word,
                    room_id: p.room_id,
                    since: rfc3339(p.created_at),
                    until: rfc3339(p.until),
                })
                .collect(),
        }))
    }

    /// Takes a pair back, for both.
    #[oai(
        path = "/again/pairs/:id",
        method = "delete",
        operation_id = "endAgainPair",
        tag = "Tag::Again"
    )]
    async fn end_pair(&self, req: &Request, id: Path<i64>) -> ApiResult<Ack> {
        let user = self.0.sessions.require_user(req).await?.user;
        self.0.realtime.end_again_pair(user.id, id.0).await?;
        Ok(Json(Ack::of(Notice::AgainPairEnded)))
    }

    /// "다시 텔레파시": invites the other of a pair back into a chat under their word,
    /// during open hours. One open invitation a pair; a few a night.
    #[oai(
        path = "/again/invite",
        method = "post",
        operation_id = "inviteAgain",
        tag = "Tag::Again"
    )]
    async fn invite(&self, req: &Request, body: Json<InviteBody>) -> ApiResult<InviteSent> {
        let user = self.0.sessions.require_user(req).await?.user;
        let sent = self.0.realtime.invite_again(&user, body.pair_id).await?;
        if let Some((to, invite)) = sent.told {
            // Not waited for: the sender's answer does not hang on push services.
            let state = self.0.clone();
            tokio::spawn(async move { crate::bell::push_invite(&state, to, &invite).await });
        }
        Ok(Json(InviteSent {
            success: true,
            invite_id: sent.id,
            expires_at: sent.expires_at,
        }))
    }

    /// An invitation to the session's user (`againInvite`) while it waits for an answer:
    /// what a screen opened from the invitation's push shows.
    #[oai(
        path = "/again/invites/:id",
        method = "get",
        operation_id = "getAgainInvite",
        tag = "Tag::Again"
    )]
    async fn open_invite(&self, req: &Request, id: Path<String>) -> ApiResult<OpenInvitation> {
        let user = self.0.sessions.require_user(req).await?.user;
        let invite = self.0.realtime.open_invite(user.id, &id.0).await?;
        Ok(Json(OpenInvitation {
            success: true,
            invite,
        }))
    }

    /// Accepts or declines an invitation (`againInvite`) within its minute.
    #[oai(
        path = "/again/answer",
        method = "post",
        operation_id = "answerAgain",
        tag = "Tag::Again"
    )]
    async fn answer(&self, req: &Request, body: Json<AnswerBody>) -> ApiResult<Answered> {
        let user = self.0.sessions.require_user(req).await?.user;
        let room_id = self
            .0
            .realtime
            .answer_again(&user, &body.invite_id, body.accept)
            .await?;
        Ok(Json(Answered {
            success: true,
            room_id,
        }))
    }
}
