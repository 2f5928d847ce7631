//! 다시 텔레파시: the wishes after a chat, the pairs both members of a room wished for, and
//! the invitations of a pair.

use sqlx::FromRow;

use crate::{is_unique_violation, RoomRecord, Store, StoreError};

/// Where a pair holds, for a pair `p` at a time bound to two parameters (`now` and
/// `now_again`, each bound to the same time: parameters are bound in order, once each):
/// not ended, not past its days, no block or report between the two (a report blocks), no
/// sanction of either since it was made nor a suspension or ban in force, both accounts
/// still active.
fn live(now: &str, now_again: &str) -> String {
    format!(
        "p.ended_at IS NULL AND p.until > {now}
         AND NOT EXISTS (SELECT 1 FROM blocks k
             WHERE (k.user_id = p.user_a AND k.blocked_id = p.user_b)
                OR (k.user_id = p.user_b AND k.blocked_id = p.user_a))
         AND NOT EXISTS (SELECT 1 FROM sanctions s
             WHERE (s.user_id = p.user_a OR s.user_id = p.user_b)
               AND (s.created_at >= p.created_at
                    OR (s.kind IN ('suspend', 'ban') AND s.lifted_at IS NULL
                        AND (s.until IS NULL OR s.until > {now_again}))))
         AND NOT EXISTS (SELECT 1 FROM users u
             WHERE (u.id = p.user_a OR u.id = p.user_b) AND u.status <> 'active')"
    )
}

/// A pair as one of its two sees it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct AgainPair {
    pub id: i64,
    pub partner_id: i64,
    /// The room both wished after (the latest).
    pub room_id: String,
    pub word: String,
    pub created_at: i64,
    pub until: i64,
}

/// An invitation to write.
#[derive(Debug)]
pub struct NewInvite<'a> {
    pub id: &'a str,
    pub pair_id: i64,
    pub from_user: i64,
    pub to_user: i64,
    pub now: i64,
    pub until: i64,
    /// The sender may have sent at most `at_most` since `counted_since`, this one included.
    pub counted_since: i64,
    pub at_most: i64,
}

/// What became of an invitation to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteOutcome {
    Sent,
    /// The pair has an invitation not yet answered nor lapsed (from either side).
    Pending,
    /// The sender sent as many as they may.
    TooMany,
}

/// An invitation taken by its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromRow)]
pub struct AnsweredInvite {
    pub pair_id: i64,
    pub from_user: i64,
}

/// An invitation waiting for its receiver's answer.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct OpenInvite {
    pub id: String,
    /// The pair's word.
    pub word: String,
    pub until: i64,
}

const PAIR_COLUMNS: &str = "p.id, p.room_id, p.word, p.created_at, p.until";

impl Store {
    /// Notes that `user_id` wishes to meet the partner of `room` (an ended room of theirs)
    /// again. When the partner wished it too, and neither blocked or reported the other,
    /// the two are a pair until `until` (a pair they were already is renewed under this
    /// room): its id. Saying it twice is saying it once.
    pub async fn wish_again(
        &self,
        room: &RoomRecord,
        user_id: i64,
        now: i64,
        until: i64,
    ) -> Result<Option<i64>, StoreError> {
        let Some(partner) = room.partner_of(user_id) else {
            return Ok(None);
        };
        // The wish is committed before the partner's is looked for: of two wishing at
        // once, the later to look sees both.
        sqlx::query(
            "INSERT INTO again_wishes (room_id, user_id, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (room_id, user_id) DO NOTHING",
        )
        .bind(&room.id)
        .bind(user_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        let both: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM again_wishes w WHERE w.room_id = $1 AND w.user_id = $2
               AND NOT EXISTS (SELECT 1 FROM blocks k
                   WHERE (k.user_id = $3 AND k.blocked_id = $4)
                      OR (k.user_id = $5 AND k.blocked_id = $6))",
        )
        .bind(&room.id)
        .bind(partner)
        .bind(user_id)
        .bind(partner)
        .bind(partner)
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?;
        if both == 0 {
            return Ok(None);
        }
        let (a, b) = (user_id.min(partner), user_id.max(partner));
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO again_pairs (user_a, user_b, room_id, word, created_at, until)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (user_a, user_b) WHERE ended_at IS NULL DO UPDATE
             SET room_id = excluded.room_id, word = excluded.word,
                 created_at = excluded.created_at, until = excluded.until
             RETURNING id",
        )
        .bind(a)
        .bind(b)
        .bind(&room.id)
        .bind(&room.word)
        .bind(now)
        .bind(until)
        .fetch_one(&self.pool)
        .await?;
        Ok(Some(id))
    }

    /// The pairs of `user_id` that hold at `now`, newest first.
    pub async fn again_pairs_of(
        &self,
        user_id: i64,
        now: i64,
    ) -> Result<Vec<AgainPair>, StoreError> {
        let sql = format!(
            "SELECT {PAIR_COLUMNS},
                    CASE WHEN p.user_a = $1 THEN p.user_b ELSE p.user_a END AS partner_id
             FROM again_pairs p
             WHERE (p.user_a = $2 OR p.user_b = $3) AND {}
             ORDER BY p.created_at DESC",
            live("$4", "$5")
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .bind(user_id)
            .bind(user_id)
            .bind(now)
            .bind(now)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Pair `id` if `user_id` is one of it and it holds at `now`.
    pub async fn again_pair(
        &self,
        id: i64,
        user_id: i64,
        now: i64,
    ) -> Result<Option<AgainPair>, StoreError> {
        let sql = format!(
            "SELECT {PAIR_COLUMNS},
                    CASE WHEN p.user_a = $1 THEN p.user_b ELSE p.user_a END AS partner_id
             FROM again_pairs p
             WHERE p.id = $2 AND (p.user_a = $3 OR p.user_b = $4) AND {}",
            live("$5", "$6")
        );
        Ok(sqlx::query_as(&sql)
            .bind(user_id)
            .bind(id)
            .bind(user_id)
            .bind(user_id)
            .bind(now)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Ends pair `id` for both, if `user_id` is one of it; false when there was nothing
    /// to end.
    pub async fn end_again_pair(
        &self,
        id: i64,
        user_id: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE again_pairs SET ended_at = $1
             WHERE id = $2 AND (user_a = $3 OR user_b = $4) AND ended_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .bind(user_id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Writes an invitation of a pair, unless the pair has one unanswered that has not
    /// lapsed, or the sender sent as many as they may. One transaction that first writes
    /// the sender's row: a second invitation of the same sender, on any node, waits for
    /// this one to commit before it counts (a row lock in PostgreSQL, the write lock in
    /// SQLite), so invitations sent at once cannot all read "fewer than five".
    pub async fn add_again_invite(&self, i: &NewInvite<'_>) -> Result<InviteOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE users SET status = status WHERE id = $1")
            .bind(i.from_user)
            .execute(&mut *tx)
            .await?;
        // A lapsed invitation is answered by its lapse, which frees the pair's one place.
        sqlx::query(
            "UPDATE again_invites SET answered_at = until
             WHERE pair_id = $1 AND answered_at IS NULL AND until <= $2",
        )
        .bind(i.pair_id)
        .bind(i.now)
        .execute(&mut *tx)
        .await?;
        let sent: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM again_invites WHERE from_user = $1 AND created_at >= $2",
        )
        .bind(i.from_user)
        .bind(i.counted_since)
        .fetch_one(&mut *tx)
        .await?;
        if sent >= i.at_most {
            return Ok(InviteOutcome::TooMany);
        }
        let added = sqlx::query(
            "INSERT INTO again_invites (id, pair_id, from_user, to_user, created_at, until)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(i.id)
        .bind(i.pair_id)
        .bind(i.from_user)
        .bind(i.to_user)
        .bind(i.now)
        .bind(i.until)
        .execute(&mut *tx)
        .await;
        match added {
            Ok(_) => {
                tx.commit().await?;
                Ok(InviteOutcome::Sent)
            }
            Err(e) if is_unique_violation(&e) => Ok(InviteOutcome::Pending),
            Err(e) => Err(e.into()),
        }
    }

    /// Answers invitation `id` sent to `to_user`, once, while it has not lapsed: the
    /// invitation, or `None` when it is not theirs, was answered or lapsed.
    pub async fn answer_again_invite(
        &self,
        id: &str,
        to_user: i64,
        now: i64,
    ) -> Result<Option<AnsweredInvite>, StoreError> {
        Ok(sqlx::query_as(
            "UPDATE again_invites SET answered_at = $1
             WHERE id = $2 AND to_user = $3 AND answered_at IS NULL AND until > $4
             RETURNING pair_id, from_user",
        )
        .bind(now)
        .bind(id)
        .bind(to_user)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Invitation `id` to `to_user`, while it waits for their answer at `now`.
    pub async fn open_again_invite(
        &self,
        id: &str,
        to_user: i64,
        now: i64,
    ) -> Result<Option<OpenInvite>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT i.id, p.word, i.until FROM again_invites i
             JOIN again_pairs p ON p.id = i.pair_id
             WHERE i.id = $1 AND i.to_user = $2 AND i.answered_at IS NULL AND i.until > $3",
        )
        .bind(id)
        .bind(to_user)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Notes the chat that accepted invitation `id` opened, so the word history can say
    /// that chat was the pair's meeting again.
    pub async fn note_again_room(&self, id: &str, room_id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE again_invites SET room_id = $1 WHERE id = $2")
            .bind(room_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
