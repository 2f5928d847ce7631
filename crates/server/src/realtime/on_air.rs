//! The megaphones on air or waiting for their turn, as this node heard them go by on the
//! bus, so that a screen that opens meanwhile (a page loaded, a socket reconnected) sees
//! them too, for the rest of their turn. Each node keeps its own list: every node hears
//! every megaphone. A node started after one went out does not know it.

use std::sync::Mutex;

use serde::Deserialize;

use crate::wire::{frame, Megaphone};

/// One megaphone's turn, in the shared clock's milliseconds.
struct Turn {
    megaphone: Megaphone,
    start_ms: i64,
    end_ms: i64,
}

#[derive(Default)]
pub struct OnAir {
    turns: Mutex<Vec<Turn>>,
}

#[derive(Deserialize)]
struct Heard<T> {
    event: String,
    data: T,
}

#[derive(Deserialize)]
struct Hidden {
    id: i64,
}

impl OnAir {
    fn turns(&self) -> std::sync::MutexGuard<'_, Vec<Turn>> {
        self.turns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes note of a frame sent to every socket, heard at `now_ms`: a megaphone joins
    /// the list, a hidden one leaves it. Any other frame is passed over unread.
    pub fn heard(&self, text: &str, now_ms: i64) {
        const MEGAPHONE: &str = r#"{"event":"megaphone","#;
        const HIDDEN: &str = r#"{"event":"megaphoneHidden","#;
        if text.starts_with(MEGAPHONE) {
            if let Ok(Heard { event, data }) = serde_json::from_str::<Heard<Megaphone>>(text) {
                if event == "megaphone" {
                    let start_ms = now_ms + data.wait_ms.max(0);
                    let end_ms = start_ms + data.show_ms;
                    let mut turns = self.turns();
                    turns.retain(|t| t.end_ms > now_ms && t.megaphone.id != data.id);
                    turns.push(Turn {
                        megaphone: data,
                        start_ms,
                        end_ms,
                    });
                }
            }
        } else if text.starts_with(HIDDEN) {
            if let Ok(Heard { data, .. }) = serde_json::from_str::<Heard<Hidden>>(text) {
                self.turns().retain(|t| t.megaphone.id != data.id);
            }
        }
    }

    /// The `megaphone` frames for a socket opening at `now_ms`: each megaphone not yet
    /// over, with the wait and the time on screen it has left.
    pub fn frames(&self, now_ms: i64) -> Vec<String> {
        let mut turns = self.turns();
        turns.retain(|t| t.end_ms > now_ms);
        turns
            .iter()
            .map(|t| {
                let shown_from = t.start_ms.max(now_ms);
                let left = Megaphone {
                    wait_ms: shown_from - now_ms,
                    show_ms: t.end_ms - shown_from,
                    ..t.megaphone.clone()
                };
                frame("megaphone", &left)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn megaphone(id: i64, wait_ms: i64) -> String {
        frame(
            "megaphone",
            &Megaphone {
                id,
                nickname: "달빛".into(),
                message: "안녕".into(),
                sent_at: 0,
                wait_ms,
                show_ms: 5_000,
            },
        )
    }

    fn waits(frames: &[String]) -> Vec<(i64, i64, i64)> {
        frames
            .iter()
            .map(|f| {
                let v: serde_json::Value = serde_json::from_str(f).unwrap_or_default();
                let d = &v["data"];
                (
                    d["id"].as_i64().unwrap_or(-1),
                    d["waitMs"].as_i64().unwrap_or(-1),
                    d["showMs"].as_i64().unwrap_or(-1),
                )
            })
            .collect()
    }

    #[test]
    fn a_socket_opening_meanwhile_gets_the_rest_of_each_turn() {
        let on_air = OnAir::default();
        on_air.heard(&megaphone(1, 0), 10_000);
        on_air.heard(&megaphone(2, 5_000), 10_000);
        on_air.heard(r#"{"event":"round","data":{}}"#, 10_000);
        // 2 s in: the first has 3 s left, the second starts in 3 s.
        assert_eq!(
            waits(&on_air.frames(12_000)),
            [(1, 0, 3_000), (2, 3_000, 5_000)]
        );
        // 6 s in: the first is over, the second on air for 4 s more.
        assert_eq!(waits(&on_air.frames(16_000)), [(2, 0, 4_000)]);
        assert!(on_air.frames(20_000).is_empty());
    }

    #[test]
    fn a_hidden_megaphone_is_forgotten() {
        let on_air = OnAir::default();
        on_air.heard(&megaphone(1, 0), 0);
        on_air.heard(&megaphone(1, 0), 0);
        assert_eq!(on_air.frames(1_000).len(), 1, "heard twice, kept once");
        on_air.heard(r#"{"event":"megaphoneHidden","data":{"id":1}}"#, 1_000);
        assert!(on_air.frames(1_000).is_empty());
    }
}
