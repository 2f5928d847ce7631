use std::time::Duration;

use async_trait::async_trait;
use fred::prelude::*;

use crate::{duration_ms, Engine, EngineError, Hit};

/// INCR and the window's expiry in one step, so two nodes never both start a window.
const HIT_SCRIPT: &str = r"
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
";

/// The engine of a cluster: state shared through one Redis server.
pub struct RedisEngine {
    client: Client,
    prefix: String,
}

impl RedisEngine {
    /// Connects to `url` (`redis://host:port/db`). Every key is put under `prefix`, so
    /// several deployments or test runs can share one server.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, EngineError> {
        let config = Config::from_url(url)?;
        let client = Builder::from_config(config)
            .with_connection_config(|c| {
                c.connection_timeout = Duration::from_secs(5);
                c.internal_command_timeout = Duration::from_secs(5);
            })
            .set_policy(ReconnectPolicy::new_exponential(0, 100, 5_000, 2))
            .build()?;
        client.init().await?;
        Ok(Self {
            client,
            prefix: prefix.to_owned(),
        })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{}", self.prefix, key)
    }
}

#[async_trait]
impl Engine for RedisEngine {
    fn name(&self) -> &'static str {
        "redis"
    }

    async fn ping(&self) -> Result<(), EngineError> {
        let _: String = self.client.ping(None).await?;
        Ok(())
    }

    async fn hit(&self, key: &str, limit: u32, window: Duration) -> Result<Hit, EngineError> {
        let reply: Vec<i64> = self
            .client
            .eval(HIT_SCRIPT, vec![self.key(key)], vec![duration_ms(window)])
            .await?;
        let [count, ttl] = reply[..] else {
            return Err(EngineError::Protocol(format!("hit returned {reply:?}")));
        };
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        Ok(Hit {
            allowed: count <= limit,
            count,
            retry_after: Duration::from_millis(u64::try_from(ttl).unwrap_or(0)),
        })
    }

    async fn clear(&self, key: &str) -> Result<(), EngineError> {
        let _: i64 = self.client.del(self.key(key)).await?;
        Ok(())
    }
}
