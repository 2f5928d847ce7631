//! 다시 텔레파시: after a chat, each member may say they wish to meet the other again; when
//! both did, the two are a pair for a while, and either may invite the other, who is
//! seated with them in a new chat under the word they first shared if they accept in time.
//!
//! Nothing tells one member what the other wished unless both did; an invitation declined
//! or left unanswered tells its sender nothing but that the chat did not open.

use telepathy_domain::limits::{
    AGAIN_INVITES_A_NIGHT, AGAIN_INVITE_WAITS, AGAIN_PAIR_DAYS, AGAIN_WISH_WITHIN,
};
use telepathy_domain::time::millis;
use telepathy_domain::ErrorCode;
use telepathy_engine::Member;
use telepathy_store::{AgainPair, InviteOutcome, NewInvite, User};

use super::{internal, is_room_id, random_room_id, Realtime, RoomRecordNews};
use crate::wire::{frame, AgainInvite};

/// An invitation sent: its id and when it lapses (Unix ms), and what its receiver was
/// told, if anything (not while they sit in a chat).
pub struct Invited {
    pub id: String,
    pub expires_at: i64,
    pub told: Option<(i64, AgainInvite)>,
}

impl Realtime {
    /// `user_id` wishes to meet the partner of `room_id`, a chat of theirs that ended
    /// within the hour, again: true when the partner wished it too and the two are a pair
    /// now.
    pub async fn wish_again(&self, user_id: i64, room_id: &str) -> Result<bool, ErrorCode> {
        if !is_room_id(room_id) {
            return Err(ErrorCode::AgainNoRoom);
        }
        // The engine knows a room and its end first; the store a moment later (when the
        // recorder writes it, which is done here if it has not been), and for longer.
        let in_engine = self
            .engine
            .room(room_id)
            .await
            .map_err(|e| internal("reading a room", e))?
            .filter(|r| r.partner_of(user_id).is_some());
        let mut record = self
            .store
            .room_record(room_id)
            .await
            .map_err(|e| internal("reading a room", e))?;
        if let (None, Some(room)) = (&record, &in_engine) {
            self.record_matches(std::slice::from_ref(room)).await;
            record = self
                .store
                .room_record(room_id)
                .await
                .map_err(|e| internal("reading a room", e))?;
        }
        let record = record
            .filter(|r| r.has_member(user_id))
            .ok_or(ErrorCode::AgainNoRoom)?;
        let ended = record
            .ended_at
            .or_else(|| in_engine.and_then(|r| r.ended_ms));
        let now = self.clock.now_ms();
        match ended {
            Some(at) if now - at <= millis(AGAIN_WISH_WITHIN) => {}
            _ => return Err(ErrorCode::AgainNoRoom),
        }
        let paired = self
            .store
            .wish_again(&record, user_id, now, now + millis(AGAIN_PAIR_DAYS))
            .await
            .map_err(|e| internal("saving a wish", e))?;
        Ok(paired.is_some())
    }

    /// The user's pairs that hold now, newest first.
    pub async fn again_pairs(&self, user_id: i64) -> Result<Vec<AgainPair>, ErrorCode> {
        self.store
            .again_pairs_of(user_id, self.clock.now_ms())
            .await
            .map_err(|e| internal("reading pairs", e))
    }

    /// Takes pair `pair_id` back, for both of it.
    pub async fn end_again_pair(&self, user_id: i64, pair_id: i64) -> Result<(), ErrorCode> {
        let ended = self
            .store
            .end_again_pair(pair_id, user_id, self.clock.now_ms())
            .await
            .map_err(|e| internal("ending a pair", e))?;
        if ended {
            Ok(())
        } else {
            Err(ErrorCode::AgainNoPair)
        }
    }

    /// Invites the other of pair `pair_id` to meet `user` again, during open hours, while
    /// `user` sits in no chat. The other is told (`againInvite`) if they are online and
    /// in no chat; the answer is theirs alone to give, within `AGAIN_INVITE_WAITS`.
    pub async fn invite_again(&self, user: &User, pair_id: i64) -> Result<Invited, ErrorCode> {
        if !self.round_state().is_open {
            return Err(ErrorCode::ServiceClosed);
        }
        let now = self.clock.now_ms();
        let pair = self
            .store
            .again_pair(pair_id, user.id, now)
            .await
            .map_err(|e| internal("reading a pair", e))?
            .ok_or(ErrorCode::AgainNoPair)?;
        if self.sits_in_a_room(user.id).await? {
            return Err(ErrorCode::AlreadyInRoom);
        }
        let evening = chrono::DateTime::from_timestamp_millis(now).unwrap_or_default();
        let invite = NewInvite {
            // The same 128 random bits as a room's id.
            id: &random_room_id(),
            pair_id,
            from_user: user.id,
            to_user: pair.partner_id,
            now,
            until: now + millis(AGAIN_INVITE_WAITS),
            counted_since: self
                .service_window()
                .evening_start(evening)
                .timestamp_millis(),
            at_most: AGAIN_INVITES_A_NIGHT,
        };
        match self
            .store
            .add_again_invite(&invite)
            .await
            .map_err(|e| internal("saving an invitation", e))?
        {
            InviteOutcome::Sent => {}
            InviteOutcome::Pending => return Err(ErrorCode::AgainPending),
            InviteOutcome::TooMany => return Err(ErrorCode::AgainTooMany),
        }
        // One in a chat is not interrupted: the invitation lapses unseen.
        let mut told = None;
        if !self.sits_in_a_room(pair.partner_id).await? {
            let invite = AgainInvite {
                invite_id: invite.id.to_owned(),
                word: pair.word,
                expires_at: invite.until,
            };
            self.deliver(&[pair.partner_id], &frame("againInvite", &invite))
                .await;
            told = Some((pair.partner_id, invite));
        }
        Ok(Invited {
            id: invite.id.to_owned(),
            expires_at: invite.until,
            told,
        })
    }

    /// Answers an invitation sent to `user`. Declined: nothing more (its sender is told
    /// nothing). Accepted, while the pair holds, the service is open and neither sits in
    /// a chat: both are seated in a new room under the pair's word, told `matched` with
    /// `again`, and its id is answered.
    pub async fn answer_again(
        &self,
        user: &User,
        invite_id: &str,
        accept: bool,
    ) -> Result<Option<String>, ErrorCode> {
        if !is_room_id(invite_id) {
            return Err(ErrorCode::AgainInviteOver);
        }
        let now = self.clock.now_ms();
        let invite = self
            .store
            .answer_again_invite(invite_id, user.id, now)
            .await
            .map_err(|e| internal("answering an invitation", e))?
            .ok_or(ErrorCode::AgainInviteOver)?;
        if !accept {
            return Ok(None);
        }
        let round = self.round_state();
        if !round.is_open {
            return Err(ErrorCode::ServiceClosed);
        }
        let pair = self
            .store
            .again_pair(invite.pair_id, user.id, now)
            .await
            .map_err(|e| internal("reading a pair", e))?
            .ok_or(ErrorCode::AgainNoPair)?;
        let me = Member {
            user_id: user.id,
            nickname: user.nickname.clone().ok_or(ErrorCode::NicknameNeeded)?,
        };
        let sender = self
            .store
            .user_by_id(invite.from_user)
            .await
            .map_err(|e| internal("reading a user", e))?
            .and_then(|u| u.nickname)
            .map(|nickname| Member {
                user_id: invite.from_user,
                nickname,
            })
            .ok_or(ErrorCode::AgainNoPair)?;
        let room = self
            .metrics
            .engine(
                "seat_pair",
                self.engine.seat_pair(
                    round.round,
                    &pair.word,
                    [&sender, &me],
                    &random_room_id(),
                    now,
                ),
            )
            .await
            .map_err(|e| internal("seating a pair", e))?
            .ok_or(ErrorCode::AgainBusy)?;
        self.metrics.matches.inc();
        let id = room.id.clone();
        // Only the word history reads it (to mark the chat as a meeting again): a failure
        // costs that mark, never the chat.
        if let Err(e) = self.store.note_again_room(invite_id, &id).await {
            tracing::warn!(error = %e, room = %id, "noting the room an invitation opened");
        }
        self.record_later(RoomRecordNews::Made(room));
        Ok(Some(id))
    }

    /// Invitation `invite_id` to `user_id`, while it waits for their answer: what a screen
    /// opened from its push shows.
    pub async fn open_invite(
        &self,
        user_id: i64,
        invite_id: &str,
    ) -> Result<AgainInvite, ErrorCode> {
        if !is_room_id(invite_id) {
            return Err(ErrorCode::AgainInviteOver);
        }
        let open = self
            .store
            .open_again_invite(invite_id, user_id, self.clock.now_ms())
            .await
            .map_err(|e| internal("reading an invitation", e))?
            .ok_or(ErrorCode::AgainInviteOver)?;
        Ok(AgainInvite {
            invite_id: open.id,
            word: open.word,
            expires_at: open.until,
        })
    }

    async fn sits_in_a_room(&self, user_id: i64) -> Result<bool, ErrorCode> {
        Ok(self
            .metrics
            .engine("room_of", self.engine.room_of(user_id))
            .await
            .map_err(|e| internal("reading a seat", e))?
            .is_some())
    }
}
