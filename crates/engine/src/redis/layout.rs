//! Where things live: the partitions' anchors and the names of keys and channels (see
//! "Layout" in the engine's notes).

use super::PARTITIONS;
use crate::EngineError;

/// The keys of a deployment: its prefix and the partitions' anchors.
pub(super) struct Layout {
    pub(super) anchors: Vec<String>,
    /// The channel of what is for every node (partition 0's).
    pub(super) everyone: String,
}

impl Layout {
    pub(super) fn new(prefix: &str) -> Result<Self, EngineError> {
        if prefix.contains(['{', '}']) {
            return Err(EngineError::Protocol(format!(
                "the key prefix {prefix:?} must not hold braces: they would name the hash slot"
            )));
        }
        let anchors: Vec<String> = (0..PARTITIONS)
            .map(|i| format!("{prefix}{{{}}}", tag(i)))
            .collect();
        let everyone = format!("{}bus", anchors[0]);
        Ok(Self { anchors, everyone })
    }

    /// The inboxes of node instance `instance`, one per partition.
    pub(super) fn inboxes(&self, instance: &str) -> Vec<String> {
        self.anchors
            .iter()
            .map(|a| format!("{a}in:{instance}"))
            .collect()
    }

    pub(super) fn anchor(&self, partition: usize) -> &str {
        &self.anchors[partition % PARTITIONS]
    }

    pub(super) fn user(&self, user_id: i64) -> &str {
        self.anchor(user_partition(user_id))
    }

    pub(super) fn of(&self, name: &str) -> &str {
        self.anchor(partition_of(name))
    }
}

/// The hash tag of partition `i`: the first of `i.0`, `i.1`, … whose slot lies in the
/// middle half of the partition's share of the slots.
pub(super) fn tag(i: usize) -> String {
    const SLOTS: usize = 16_384;
    let low = (4 * i + 1) * SLOTS / (4 * PARTITIONS);
    let high = (4 * i + 3) * SLOTS / (4 * PARTITIONS);
    (0u32..)
        .map(|k| format!("{i}.{k}"))
        .find(|t| (low..high).contains(&usize::from(fred::util::redis_keyslot(t.as_bytes()))))
        .unwrap_or_else(|| i.to_string())
}

pub(super) fn user_partition(user_id: i64) -> usize {
    usize::try_from(user_id.rem_euclid(PARTITIONS as i64)).unwrap_or(0)
}

/// The partition of a room or a queue, by its name.
pub(super) fn partition_of(name: &str) -> usize {
    usize::from(fred::util::redis_keyslot(name.as_bytes())) % PARTITIONS
}

/// The key of a room's hash in its partition, `anchor` (its stream and client ids are
/// this key with `:s` and `:c`).
pub(super) fn room_key_in(anchor: &str, room_id: &str) -> String {
    format!("{anchor}room:{room_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_spread_evenly_over_masters() {
        for masters in [2, 3, 4, 6, 8] {
            let share = 16_384 / masters;
            let mut owned = vec![0; masters];
            for p in 0..PARTITIONS {
                let slot = usize::from(fred::util::redis_keyslot(tag(p).as_bytes()));
                owned[(slot / share).min(masters - 1)] += 1;
            }
            assert!(
                owned.iter().all(|n| *n == PARTITIONS / masters),
                "{masters} masters own {owned:?}"
            );
        }
    }
}
