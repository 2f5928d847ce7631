use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::{Engine, EngineError, Hit};

/// Past this many counters, expired ones are swept on the next hit.
const SWEEP_AT: usize = 10_000;

/// The engine of the single embedded node: everything in this process's memory.
#[derive(Default)]
pub struct MemoryEngine {
    counters: Mutex<HashMap<String, (u32, Instant)>>,
}

impl MemoryEngine {
    pub fn new() -> Self {
        Self::default()
    }

    fn counters(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u32, Instant)>> {
        // A panic while holding the lock cannot leave a counter half-written, so a
        // poisoned lock is still consistent.
        self.counters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl Engine for MemoryEngine {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn ping(&self) -> Result<(), EngineError> {
        Ok(())
    }

    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError> {
        let now = Instant::now();
        let mut counters = self.counters();
        if counters.len() >= SWEEP_AT {
            counters.retain(|_, (_, ends)| *ends > now);
        }
        let entry = counters.entry(key.to_owned()).or_insert((0, now + window));
        if entry.1 <= now {
            *entry = (0, now + window);
        }
        entry.0 = entry.0.saturating_add(1);
        Ok(Hit {
            allowed: entry.0 <= limit,
            count: entry.0,
            retry_after: entry.1.saturating_duration_since(now),
        })
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        self.counters().remove(key);
        Ok(())
    }
}
