use std::fmt::Write as _;

use sqlx::FromRow;

use crate::{isolate, Batch, Store, StoreError};

/// Rooms whose ends one statement records: three parameters each, well under SQLite's
/// limit.
const ENDS_PER_STATEMENT: usize = 200;
/// Rooms a statement of `insert_matches` writes: eight parameters each, 800 a statement,
/// under SQLite's oldest limit (999).
const MATCHES_PER_STATEMENT: usize = 100;

/// A room as archived.
#[derive(Debug, Clone, FromRow)]
pub struct RoomRecord {
    pub id: String,
    pub word: String,
    pub round: i64,
    pub user_a: i64,
    pub user_b: i64,
    pub created_at: i64,
    pub ended_at: Option<i64>,
}

impl RoomRecord {
    pub fn has_member(&self, user_id: i64) -> bool {
        self.user_a == user_id || self.user_b == user_id
    }

    pub fn partner_of(&self, user_id: i64) -> Option<i64> {
        match user_id {
            u if u == self.user_a => Some(self.user_b),
            u if u == self.user_b => Some(self.user_a),
            _ => None,
        }
    }
}

/// One side of a new match, for the word history: its nickname is kept with the room, as
/// the other member's history shows it.
#[derive(Debug)]
pub struct MatchSide<'a> {
    pub user_id: i64,
    pub nickname: &'a str,
}

/// A message read from a room stream, on its way to the archive.
#[derive(Debug, Clone)]
pub struct ArchivedMessage {
    pub room_id: String,
    pub msg_id: String,
    pub sender_id: i64,
    pub body: String,
    pub sent_at: i64,
}

/// The word of the most rooms of an evening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopWord {
    pub word: String,
    pub rooms: i64,
    /// How many other words made as many rooms (the word shown got there first).
    pub tied: i64,
}

impl TopWord {
    /// How many people its rooms seated: two a room.
    pub fn people(&self) -> i64 {
        self.rooms * 2
    }
}

/// A line of a user's word history.
#[derive(Debug, Clone, FromRow)]
pub struct HistoryItem {
    pub word: String,
    pub partner_nickname: String,
    pub connected_at: i64,
    pub room_id: String,
    /// How many accepted invitations opened this chat: more than 0 when it was a pair's
    /// meeting again (다시 텔레파시), not a round's match.
    pub invites: i64,
}

impl HistoryItem {
    /// The chat was a pair's meeting again.
    pub fn again(&self) -> bool {
        self.invites > 0
    }
}

impl Store {
    /// Records a new room with both members' nicknames, which their word histories show.
    pub async fn record_match(
        &self,
        room: &RoomRecord,
        sides: [MatchSide<'_>; 2],
    ) -> Result<(), StoreError> {
        self.insert_matches(&[(room, sides)]).await
    }

    /// Records many new rooms with their members' nicknames in one transaction: at a busy
    /// round's start, one commit for a batch instead of one per match. A room recorded
    /// already is skipped, so two writers of one room cannot fail each other's batch.
    ///
    /// Should the database refuse the batch for anything but an outage, each room is
    /// written alone, so a room it refuses holds back no other: the answer lists the rooms
    /// refused (by their place in `batch`).
    pub async fn record_matches(
        &self,
        batch: &[(&RoomRecord, [MatchSide<'_>; 2])],
    ) -> Result<Batch, StoreError> {
        match self.insert_matches(batch).await {
            Ok(()) => Ok(Batch::whole(batch.len() as u64)),
            Err(e) if e.is_outage() => Err(e),
            Err(_) => {
                isolate(batch, |one| async move {
                    self.insert_matches(one).await.map(|()| 1)
                })
                .await
            }
        }
    }

    /// Rooms in one multi-row statement a chunk, the chunks of a batch in one transaction:
    /// at a round's start the recorder writes a few batches a second, and a statement per
    /// row cost the database as much as Redis spent on the whole join. The room is a match's
    /// only row (the word histories read it): no line a member besides.
    async fn insert_matches(
        &self,
        batch: &[(&RoomRecord, [MatchSide<'_>; 2])],
    ) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        if batch.len() <= MATCHES_PER_STATEMENT {
            // One statement is a transaction of its own.
            return insert_rooms(&self.pool, batch).await;
        }
        let mut tx = self.pool.begin().await?;
        for chunk in batch.chunks(MATCHES_PER_STATEMENT) {
            insert_rooms(&mut *tx, chunk).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn mark_room_ended(&self, room_id: &str, ended_at: i64) -> Result<(), StoreError> {
        self.mark_rooms_ended(&[(room_id, ended_at)]).await
    }

    /// Records when rooms ended (room id, ms), many in one statement: at a round's busy
    /// end, one write for a batch instead of one per room. A room whose end is recorded
    /// already keeps it; a room not recorded yet is passed over (the archive records its
    /// end when it finishes it).
    pub async fn mark_rooms_ended(&self, ends: &[(&str, i64)]) -> Result<(), StoreError> {
        for chunk in ends.chunks(ENDS_PER_STATEMENT) {
            let mut sql = String::from("UPDATE rooms SET ended_at = CASE id");
            for i in 0..chunk.len() {
                let _ = write!(sql, " WHEN ${} THEN ${}", 2 * i + 1, 2 * i + 2);
            }
            sql.push_str(" END WHERE ended_at IS NULL AND id IN (");
            for i in 0..chunk.len() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(sql, "{sep}${}", 2 * chunk.len() + i + 1);
            }
            sql.push(')');
            let mut query = sqlx::query(&sql);
            for (room_id, ended_at) in chunk {
                query = query.bind(*room_id).bind(*ended_at);
            }
            for (room_id, _) in chunk {
                query = query.bind(*room_id);
            }
            query.execute(&self.pool).await?;
        }
        Ok(())
    }

    pub async fn room_record(&self, room_id: &str) -> Result<Option<RoomRecord>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, word, round, user_a, user_b, created_at, ended_at FROM rooms WHERE id = $1",
        )
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The latest room of `user_id` with `partner_id` on `word`.
    pub async fn latest_room_with(
        &self,
        user_id: i64,
        partner_id: i64,
        word: &str,
    ) -> Result<Option<RoomRecord>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, word, round, user_a, user_b, created_at, ended_at FROM rooms
             WHERE word = $1 AND ((user_a = $2 AND user_b = $3) OR (user_a = $3 AND user_b = $2))
             ORDER BY created_at DESC LIMIT 1",
        )
        .bind(word)
        .bind(user_id)
        .bind(partner_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Stores messages; one already stored (same room and id) is skipped, so any node may
    /// archive any batch any number of times. One transaction, multi-row inserts.
    ///
    /// Should the database refuse the batch for anything but an outage, each message is
    /// stored alone, so a message it refuses (a text it cannot hold, a room it does not
    /// know yet) holds back no other: the answer lists the messages refused (by their
    /// place in `messages`).
    pub async fn archive_messages(
        &self,
        messages: &[ArchivedMessage],
    ) -> Result<Batch, StoreError> {
        match self.insert_messages(messages).await {
            Ok(stored) => Ok(Batch::whole(stored)),
            Err(e) if e.is_outage() => Err(e),
            Err(_) => isolate(messages, |one| self.insert_messages(one)).await,
        }
    }

    async fn insert_messages(&self, messages: &[ArchivedMessage]) -> Result<u64, StoreError> {
        /// Rows per statement: 5 parameters each stays under SQLite's 999.
        const ROWS: usize = 150;
        let mut tx = self.pool.begin().await?;
        let mut stored = 0;
        for chunk in messages.chunks(ROWS) {
            // `$N` placeholders written out: they are what both backends read through Any.
            let rows: Vec<String> = (0..chunk.len())
                .map(|i| {
                    let n = i * 5;
                    format!(
                        "(${}, ${}, ${}, ${}, ${})",
                        n + 1,
                        n + 2,
                        n + 3,
                        n + 4,
                        n + 5
                    )
                })
                .collect();
            let sql = format!(
                "INSERT INTO messages (room_id, msg_id, sender_id, body, sent_at) VALUES {}
                 ON CONFLICT (room_id, msg_id) DO NOTHING",
                rows.join(", ")
            );
            let mut insert = sqlx::query(&sql);
            for m in chunk {
                insert = insert
                    .bind(&m.room_id)
                    .bind(&m.msg_id)
                    .bind(m.sender_id)
                    .bind(&m.body)
                    .bind(m.sent_at);
            }
            stored += insert.execute(&mut *tx).await?.rows_affected();
        }
        tx.commit().await?;
        Ok(stored)
    }

    /// A room's archived conversation, oldest first (for the operations team).
    pub async fn transcript(&self, room_id: &str) -> Result<Vec<ArchivedMessage>, StoreError> {
        let rows: Vec<(String, String, i64, String, i64)> = sqlx::query_as(
            "SELECT room_id, msg_id, sender_id, body, sent_at FROM messages WHERE room_id = $1 ORDER BY sent_at, msg_id",
        )
        .bind(room_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(room_id, msg_id, sender_id, body, sent_at)| ArchivedMessage {
                    room_id,
                    msg_id,
                    sender_id,
                    body,
                    sent_at,
                },
            )
            .collect())
    }

    /// Deletes archived messages sent before `cutoff` (the retention period).
    pub async fn purge_messages_before(&self, cutoff: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query("DELETE FROM messages WHERE sent_at < $1")
            .bind(cutoff)
            .execute(&self.pool)
            .await?
            .rows_affected())
    }

    /// The user's word history, newest first.
    pub async fn word_history(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<HistoryItem>, StoreError> {
        // The rooms where the user was a, then b, each the newest `limit` by its own index
        // (rooms_user_a, rooms_user_b), merged: an OR of the two would read every room of
        // the user, or all rooms by time.
        Ok(sqlx::query_as(
            "SELECT h.word, h.partner_nickname, h.connected_at, h.room_id,
                    (SELECT COUNT(*) FROM again_invites i WHERE i.room_id = h.room_id) AS invites
             FROM (SELECT * FROM (SELECT word, nickname_b AS partner_nickname,
                                         created_at AS connected_at, id AS room_id
                                  FROM rooms WHERE user_a = $1
                                  ORDER BY created_at DESC LIMIT $2) AS mine_as_a
                   UNION ALL
                   SELECT * FROM (SELECT word, nickname_a AS partner_nickname,
                                         created_at AS connected_at, id AS room_id
                                  FROM rooms WHERE user_b = $3
                                  ORDER BY created_at DESC LIMIT $4) AS mine_as_b) AS h
             ORDER BY h.connected_at DESC LIMIT $5",
        )
        .bind(user_id)
        .bind(limit)
        .bind(user_id)
        .bind(limit)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The word of the most rooms made since `since` (Unix ms), with how many; of words
    /// tied, the one that got there first, and how many others made as many. None when no
    /// room was made.
    pub async fn top_word_since(&self, since: i64) -> Result<Option<TopWord>, StoreError> {
        let top: Option<(String, i64)> = sqlx::query_as(
            "SELECT word, COUNT(*) AS n FROM rooms WHERE created_at >= $1
             GROUP BY word ORDER BY n DESC, MIN(created_at) LIMIT 1",
        )
        .bind(since)
        .fetch_optional(&self.pool)
        .await?;
        let Some((word, rooms)) = top else {
            return Ok(None);
        };
        let same: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT word FROM rooms WHERE created_at >= $1
             GROUP BY word HAVING COUNT(*) = $2) AS tied",
        )
        .bind(since)
        .bind(rooms)
        .fetch_one(&self.pool)
        .await?;
        Ok(Some(TopWord {
            word,
            rooms,
            tied: (same - 1).max(0),
        }))
    }

    /// How many words the user shared with partners, all told.
    pub async fn word_history_total(&self, user_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM rooms WHERE user_a = $1)
                  + (SELECT COUNT(*) FROM rooms WHERE user_b = $2)",
        )
        .bind(user_id)
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Stores a mood feedback; false when the user already gave one for this room.
    pub async fn add_feedback(
        &self,
        user_id: i64,
        room: &RoomRecord,
        emotion: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let partner = room.partner_of(user_id).unwrap_or_default();
        let done = sqlx::query(
            "INSERT INTO feedback (user_id, room_id, partner_id, word, emotion, created_at)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id, room_id) DO NOTHING",
        )
        .bind(user_id)
        .bind(&room.id)
        .bind(partner)
        .bind(&room.word)
        .bind(emotion)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Keeps `user_id` and `blocked_id` apart from now on; false when already so.
    pub async fn add_block(
        &self,
        user_id: i64,
        blocked_id: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id, blocked_id) DO NOTHING",
        )
        .bind(user_id)
        .bind(blocked_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Everyone `user_id` must never be matched with: whom they blocked and who blocked
    /// them.
    pub async fn kept_apart(&self, user_id: i64) -> Result<Vec<i64>, StoreError> {
        let ids: Vec<i64> = sqlx::query_scalar(&kept_apart_from("$1", "$2"))
            .bind(user_id)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(ids)
    }
}

/// The ids (column `id`) of everyone the user `first` (and again `second`: the same user,
/// as SQL names it twice) must never be matched with: whom they blocked and who blocked
/// them.
pub(crate) fn kept_apart_from(first: &str, second: &str) -> String {
    format!(
        "SELECT blocked_id AS id FROM blocks WHERE user_id = {first}
         UNION SELECT user_id FROM blocks WHERE blocked_id = {second}"
    )
}

/// Writes `rooms` (at most [`MATCHES_PER_STATEMENT`]) in one statement, each with its
/// members' nicknames; a room recorded already (by the recorder, or by a report that needed
/// it first) is left as it is.
async fn insert_rooms<'c, E>(
    executor: E,
    rooms: &[(&RoomRecord, [MatchSide<'_>; 2])],
) -> Result<(), StoreError>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    let mut sql = String::from(
        "INSERT INTO rooms (id, word, round, user_a, user_b, created_at, nickname_a, nickname_b) \
         VALUES ",
    );
    values(&mut sql, rooms.len(), 8);
    sql.push_str(" ON CONFLICT (id) DO NOTHING");
    let mut insert = sqlx::query(&sql);
    for (room, sides) in rooms {
        insert = insert
            .bind(&room.id)
            .bind(&room.word)
            .bind(room.round)
            .bind(room.user_a)
            .bind(room.user_b)
            .bind(room.created_at)
            .bind(nickname_of(sides, room.user_a, 0))
            .bind(nickname_of(sides, room.user_b, 1));
    }
    insert.execute(executor).await?;
    Ok(())
}

/// The nickname of `user_id` of a match's sides: the side of that user, or else the one at
/// `place` (the sides come in the room's order, a then b).
fn nickname_of<'a>(sides: &[MatchSide<'a>; 2], user_id: i64, place: usize) -> &'a str {
    sides
        .iter()
        .find(|side| side.user_id == user_id)
        .unwrap_or(&sides[place])
        .nickname
}

/// Appends `rows` parenthesised rows of `width` numbered placeholders (`($1, $2), ($3, $4)`).
fn values(sql: &mut String, rows: usize, width: usize) {
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..width {
            let sep = if column == 0 { "" } else { ", " };
            let _ = write!(sql, "{sep}${}", row * width + column + 1);
        }
        sql.push(')');
    }
}
