//! Real `telepathy` processes for the process-level tests, with the calls they need, and
//! Redis and PostgreSQL servers that a test starts and stops itself.

// Each test binary uses a different part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::ws_client::Client;

pub struct Node {
    pub child: Child,
    pub base: String,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A free port whose cluster bus port (10,000 above it) is free too.
#[allow(dead_code)]
fn free_cluster_port() -> u16 {
    loop {
        let port = free_port();
        let bus = port.checked_add(10_000);
        if bus.is_some_and(|bus| std::net::TcpListener::bind(("127.0.0.1", bus)).is_ok()) {
            return port;
        }
    }
}

/// The machine's Redis, which the cluster tests share (each under its own key prefix).
pub fn test_redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The Redis Cluster of the tests (`scripts/redis-cluster`).
#[allow(dead_code)]
pub fn test_redis_cluster_url() -> String {
    std::env::var("TEST_REDIS_CLUSTER_URL")
        .unwrap_or_else(|_| "redis-cluster://127.0.0.1:7101".into())
}

/// Starts a node on the machine's Redis and waits until it is ready.
pub async fn start_node(port: u16, origins: &str, database_url: &str, prefix: &str) -> Node {
    start_node_with(port, origins, database_url, &test_redis_url(), prefix, &[]).await
}

/// Starts a node on the given Redis, with extra variables, and waits until it is ready.
pub async fn start_node_with(
    port: u16,
    origins: &str,
    database_url: &str,
    redis_url: &str,
    prefix: &str,
    extra: &[(&str, &str)],
) -> Node {
    let log =
        std::fs::File::create(std::env::temp_dir().join(format!("telepathy-cluster-{port}.log")))
            .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_telepathy"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url)
        .env("REDIS_URL", redis_url)
        .env("TELEPATHY_REDIS_PREFIX", prefix)
        .env("TELEPATHY_DEMO", "true")
        .env("TELEPATHY_LISTEN", format!("127.0.0.1:{port}"))
        .env("TELEPATHY_PUBLIC_ORIGIN", origins)
        .env("TELEPATHY_STATIC_DIR", std::env::temp_dir())
        .env("TELEPATHY_NODE_ID", format!("node-{port}"))
        .env("RUST_LOG", "info")
        .envs(extra.iter().copied())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let node = Node {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    assert!(
        wait_ready(&node.base, true, Duration::from_secs(10)).await,
        "node on port {port} did not become ready"
    );
    node
}

/// Waits until `/readyz` of `base` says `ready` (true or false); whether it did in time.
pub async fn wait_ready(base: &str, ready: bool, within: Duration) -> bool {
    let http = reqwest::Client::new();
    let start = tokio::time::Instant::now();
    while start.elapsed() < within {
        let answer = http
            .get(format!("{base}/readyz"))
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        if let Ok(r) = answer {
            if r.status().is_success() == ready {
                return true;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

pub async fn connect(node: &Node, cookie: &str) -> Client {
    let addr = node.base.trim_start_matches("http://");
    Client::connect(addr, Some(cookie), &node.base)
        .await
        .unwrap()
}

/// A request answered with any status: (status, JSON body, the session cookie set).
pub async fn request(
    base: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> (u16, Value, Option<String>) {
    let mut req = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .header("origin", base)
        .timeout(Duration::from_secs(30));
    if let Some(body) = body {
        req = req.json(&body);
    }
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let resp = req.send().await.unwrap();
    // The session's cookie; a login or sign-up sets the device's too.
    let cookie = resp
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| !v.starts_with("tp_device="))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned());
    let status = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    (status, body, cookie)
}

/// A POST that must succeed: (JSON body, the session cookie set).
pub async fn post(
    base: &str,
    path: &str,
    body: Value,
    cookie: Option<&str>,
) -> (Value, Option<String>) {
    let (status, body, cookie) =
        request(base, reqwest::Method::POST, path, Some(body), cookie).await;
    assert!((200..300).contains(&status), "{path}: {status} {body}");
    (body, cookie)
}

/// Signs up through `base` (whose demo outbox holds the code) and sets a nickname.
pub async fn sign_up(base: &str, username: &str, phone: &str) -> String {
    // The code belongs to this browser's code flow: its cookie goes with the check.
    let (_, flow) = post(
        base,
        "/api/verify-mvp/send",
        json!({ "phone": phone }),
        None,
    )
    .await;
    let outbox: Value = reqwest::get(format!("{base}/api/dev/sms-outbox?phone={phone}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    post(
        base,
        "/api/verify-mvp/check",
        json!({ "phone": phone, "code": outbox["code"] }),
        flow.as_deref(),
    )
    .await;
    let body = json!({ "username": username, "password": "abcdefg1", "phone": phone, "gender": "남성", "birthdate": "19990101", "service": true, "privacy": true, "youth": true });
    let (_, cookie) = post(base, "/api/register", body, None).await;
    let cookie = cookie.unwrap();
    post(
        base,
        "/api/nickname/set-nickname",
        json!({ "nickname": format!("닉{username}") }),
        Some(&cookie),
    )
    .await;
    cookie
}

/// The current round, once it has at least `seconds` left.
pub async fn round_with(base: &str, seconds: i64) -> Value {
    loop {
        let round: Value = reqwest::get(format!("{base}/api/match/current-round"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if round["remaining"].as_i64().unwrap() >= seconds {
            return round;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Seeds `n` users with sessions through `telepathy seed`; answers (user id, cookie).
pub fn seed(database_url: &str, n: usize) -> Vec<(i64, String)> {
    let out = std::env::temp_dir().join(format!("telepathy-seed-{}.json", rand::random::<u64>()));
    let status = Command::new(env!("CARGO_BIN_EXE_telepathy"))
        .args(["seed", "--users", &n.to_string(), "--out"])
        .arg(&out)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url)
        .env("TELEPATHY_DEMO", "true")
        .env("TELEPATHY_STATIC_DIR", std::env::temp_dir())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "telepathy seed failed");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    file["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = match &s["userId"] {
                Value::String(id) => id.parse().unwrap(),
                other => other.as_i64().unwrap(),
            };
            (id, s["cookie"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// A Redis server of the test's own, on a free port, keeping nothing on disk: stopping it
/// is an outage, starting it again an empty Redis coming back (as after a restart).
pub struct OwnRedis {
    pub port: u16,
    child: Option<Child>,
}

impl OwnRedis {
    pub async fn start() -> Self {
        let mut redis = Self {
            port: free_port(),
            child: None,
        };
        redis.restart().await;
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server at once, as a crash would.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing is answered, as
    /// when Redis stalls; what was sent meanwhile runs when it is thawed.
    pub fn freeze(&self) {
        self.signal("-STOP");
    }

    /// Lets a frozen server go on (SIGCONT).
    pub fn thaw(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("the server runs");
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill is on PATH");
        assert!(status.success(), "kill {signal} failed");
    }

    /// Starts the server (again) on the same port and waits until it answers.
    pub async fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is on PATH");
        self.child = Some(child);
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server on port {} did not start", self.port);
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A socket of the user on the node at `base` that said hello, and its hello: connects a
/// second apart, as the web app reconnects, up to `attempts` times. A node that is starting
/// over (after Redis came back, say) refuses the upgrade until it is ready.
#[allow(dead_code)]
pub async fn reconnect_to(base: &str, cookie: &str, attempts: u32) -> (Client, Value) {
    for _ in 0..attempts {
        if let Ok(mut client) =
            Client::connect(base.trim_start_matches("http://"), Some(cookie), base).await
        {
            if let Some(hello) = client.try_expect("hello", Duration::from_secs(5)).await {
                return (client, hello);
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    panic!("no socket at {base} said hello");
}

/// A Redis Cluster of the test's own: three masters and a replica of each, on free ports,
/// keeping nothing on disk but each node's cluster config (in a temporary folder). A
/// master killed with SIGKILL is replaced by its replica within a few seconds
/// (`cluster-node-timeout` 2 s).
#[allow(dead_code)]
pub struct OwnCluster {
    /// The masters' ports first, then the replicas'.
    pub ports: Vec<u16>,
    children: Vec<Option<Child>>,
    dir: PathBuf,
}

#[allow(dead_code)]
impl OwnCluster {
    pub async fn start() -> Self {
        let dir =
            std::env::temp_dir().join(format!("telepathy-cluster-{:016x}", rand::random::<u64>()));
        let ports: Vec<u16> = (0..6).map(|_| free_cluster_port()).collect();
        let mut children = Vec::new();
        for port in &ports {
            let node_dir = dir.join(port.to_string());
            std::fs::create_dir_all(&node_dir).unwrap();
            let child = Command::new("redis-server")
                .current_dir(&node_dir)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args([
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                ])
                .args([
                    "--cluster-node-timeout",
                    "2000",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                // A replica syncs at once, and takes over however old its data.
                .args(["--repl-diskless-sync-delay", "0"])
                .args(["--cluster-replica-validity-factor", "0"])
                .arg("--logfile")
                .arg(node_dir.join("redis.log"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server is on PATH");
            children.push(Some(child));
        }
        for port in &ports {
            wait_port(*port).await;
        }
        let addrs: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let created = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(created.success(), "redis-cli --cluster create failed");
        let cluster = Self {
            ports,
            children,
            dir,
        };
        // A loaded machine delays the gossip that spreads the slots' owners (seconds, with
        // other suites running beside).
        assert!(
            cluster.wait_ok(Duration::from_secs(60)).await,
            "the cluster did not come up within 60 s:\n{}\n{}\n{}",
            cluster.ask("info"),
            cluster.ask("nodes"),
            cluster.logs()
        );
        cluster
    }

    pub fn url(&self) -> String {
        let nodes: Vec<String> = self.ports[1..]
            .iter()
            .map(|p| format!("node=127.0.0.1:{p}"))
            .collect();
        format!(
            "redis-cluster://127.0.0.1:{}?{}",
            self.ports[0],
            nodes.join("&")
        )
    }

    /// What `CLUSTER <what>` answers on the first node that answers.
    pub fn ask(&self, what: &str) -> String {
        for (i, port) in self.ports.iter().enumerate() {
            if self.children[i].is_none() {
                continue;
            }
            let out = Command::new("redis-cli")
                .args(["-p", &port.to_string(), "cluster", what])
                .output()
                .unwrap();
            if out.status.success() && !out.stdout.is_empty() {
                return String::from_utf8_lossy(&out.stdout).into_owned();
            }
        }
        String::new()
    }

    /// The last lines of each server's log.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for port in &self.ports {
            let log = std::fs::read_to_string(self.dir.join(port.to_string()).join("redis.log"))
                .unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            out.push_str(&format!(
                "== {port}\n{}\n",
                lines[lines.len().saturating_sub(12)..].join("\n")
            ));
        }
        out
    }

    /// How many nodes are replicas whose link to their master is up.
    fn replicas_in_sync(&self) -> usize {
        self.ports
            .iter()
            .filter(|port| {
                Command::new("redis-cli")
                    .args(["-p", &port.to_string(), "info", "replication"])
                    .output()
                    .is_ok_and(|out| {
                        String::from_utf8_lossy(&out.stdout).contains("master_link_status:up")
                    })
            })
            .count()
    }

    /// Waits until the cluster says it is ok and every slot has a live master.
    pub async fn wait_ok(&self, within: Duration) -> bool {
        let until = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < until {
            let nodes = self.ask("nodes");
            let masters = nodes
                .lines()
                .filter(|l| l.contains("master") && !l.contains("fail") && l.split(' ').count() > 8)
                .count();
            if self.ask("info").contains("cluster_state:ok") && masters >= 3 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    /// The port of the live master that serves `slot`, if the cluster says it is ok.
    pub fn master_of(&self, slot: u16) -> Option<u16> {
        if !self.ask("info").contains("cluster_state:ok") {
            return None;
        }
        let nodes = self.ask("nodes");
        let line = nodes.lines().find(|l| {
            l.contains("master")
                && !l.contains("fail")
                && l.split(' ').skip(8).any(|range| {
                    let (lo, hi) = range.split_once('-').unwrap_or((range, range));
                    matches!((lo.parse::<u16>(), hi.parse::<u16>()), (Ok(lo), Ok(hi)) if lo <= slot && slot <= hi)
                })
        })?;
        let addr = line.split(' ').nth(1)?;
        addr.split(['@', ':']).nth(1)?.parse().ok()
    }

    /// Kills (SIGKILL) the master that serves `slot`; answers its port.
    pub fn kill_master_of(&mut self, slot: u16) -> u16 {
        let port = self
            .master_of(slot)
            .unwrap_or_else(|| panic!("no master serves slot {slot}"));
        let i = self.ports.iter().position(|p| *p == port).unwrap();
        let mut child = self.children[i].take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        port
    }

    /// Moves `slot` and its keys to another master, as `redis-cli --cluster reshard` does
    /// (importing, migrating, the keys, then the slot's new owner told to every master);
    /// answers the ports it moved from and to.
    pub fn move_slot(&self, slot: u16) -> (u16, u16) {
        let from = self
            .master_of(slot)
            .unwrap_or_else(|| panic!("no master serves slot {slot}"));
        let nodes = self.ask("nodes");
        let masters: Vec<(String, u16)> = nodes
            .lines()
            .filter(|l| l.contains("master") && !l.contains("fail"))
            .filter_map(|l| {
                let mut parts = l.split(' ');
                let id = parts.next()?.to_owned();
                let port = parts.next()?.split(['@', ':']).nth(1)?.parse().ok()?;
                Some((id, port))
            })
            .collect();
        let id_of = |port: u16| masters.iter().find(|(_, p)| *p == port).unwrap().0.clone();
        let to = masters
            .iter()
            .map(|(_, p)| *p)
            .find(|p| *p != from)
            .unwrap();
        let (from_id, to_id) = (id_of(from), id_of(to));
        let cli = |port: u16, args: &[&str]| -> String {
            let out = Command::new("redis-cli")
                .arg("-p")
                .arg(port.to_string())
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "redis-cli {args:?}");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let slot = slot.to_string();
        cli(to, &["cluster", "setslot", &slot, "importing", &from_id]);
        cli(from, &["cluster", "setslot", &slot, "migrating", &to_id]);
        loop {
            let keys = cli(from, &["cluster", "getkeysinslot", &slot, "100"]);
            let keys: Vec<&str> = keys.lines().filter(|k| !k.is_empty()).collect();
            if keys.is_empty() {
                break;
            }
            let to_port = to.to_string();
            let mut args = vec!["migrate", "127.0.0.1", &to_port, "", "0", "5000", "keys"];
            args.extend(keys);
            let answer = cli(from, &args);
            assert!(answer.trim() == "OK", "MIGRATE answered {answer}");
        }
        for port in std::iter::once(to).chain(masters.iter().map(|(_, p)| *p).filter(|p| *p != to))
        {
            cli(port, &["cluster", "setslot", &slot, "node", &to_id]);
        }
        (from, to)
    }

    /// Waits until another master than `killed` serves `slot`.
    pub async fn wait_taken_over(&self, slot: u16, killed: u16, within: Duration) -> bool {
        let until = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < until {
            if self.master_of(slot).is_some_and(|p| p != killed) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        for child in self.children.iter_mut().flatten() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn wait_port(port: u16) {
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on port {port}");
}

/// A PostgreSQL server of the test's own (a fresh cluster in a temporary folder, on a
/// free port), which the test may stop and start again; its data survives a stop.
pub struct OwnPostgres {
    pub port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl OwnPostgres {
    pub async fn start() -> Self {
        let dir = std::env::temp_dir().join(format!("telepathy-pg-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        as_postgres_owner(&dir);
        let status = pg_command("initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "-D",
            ])
            .arg(dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "initdb failed");
        let mut pg = Self {
            port: free_port(),
            dir,
            child: None,
        };
        pg.restart().await;
        pg
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server with a fast shutdown (open connections are cut), as an operator
    /// or a failing machine would.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // The server's own pid is in its folder (as root, the child is `runuser`).
            let _ = pg_command("pg_ctl")
                .args(["stop", "-m", "fast", "-w", "-D"])
                .arg(self.dir.join("data"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
        }
    }

    /// Starts the server (again) on the same port and waits until it accepts queries.
    pub async fn restart(&mut self) {
        self.stop();
        let child = pg_command("postgres")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args([
                "-p",
                &self.port.to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
            ])
            .arg("-c")
            .arg(format!("unix_socket_directories={}", self.dir.display()))
            .args(["-c", "fsync=off", "-c", "full_page_writes=off"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        for _ in 0..200 {
            let ready = Command::new(pg_bin("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("postgres on port {} did not start", self.port);
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A PostgreSQL program of the newest version installed.
fn pg_bin(name: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    versions.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    match versions.last() {
        Some(v) => v.join("bin").join(name),
        None => PathBuf::from(name),
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// PostgreSQL refuses to run as root: as root, its programs run as `postgres`.
fn pg_command(name: &str) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(pg_bin(name));
        c
    } else {
        Command::new(pg_bin(name))
    }
}

fn as_postgres_owner(dir: &Path) {
    if is_root() {
        let status = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
}
