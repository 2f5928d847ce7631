//! The node's connections. hyper, under poem, answers a request whose head it cannot take
//! (a request line over 64 KiB: 414; a head over its 400 KB buffer or with more than 100
//! header lines: 431) by itself, before any of our code runs, and so without the headers
//! every other answer carries. [`Guarded`] wraps each accepted connection so that such an
//! answer is written with them: it recognises hyper's own error head by its first bytes
//! and inserts the security headers after the status line.
//!
//! Each connection also keeps a clock, so that a client cannot hold one open by sending
//! slowly or not at all (slowloris): a request's head must arrive within
//! [`Timeouts::head`] of its first byte, and a connection may stay silent for at most
//! [`Timeouts::idle`], between requests and on a WebSocket alike (the node pings a socket
//! every 25 s, and browsers answer). While a handler runs there is no clock here: it reads
//! the body under its own deadline (`security::limit_body`).
//!
//! The node speaks HTTP/1.1 (and WebSockets over it): a connection that opens with the
//! preface of HTTP/2 without TLS (h2c) is closed at once, however slowly the preface came.
//! HTTP/2's frames would carry requests past the head clock above, and the load balancer
//! in front of the nodes speaks HTTP/1.1 to them anyway (TLS and HTTP/2 end there).

use std::future::Future;
use std::io::Result as IoResult;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use poem::listener::{Acceptor, Listener, TcpAcceptor, TcpListener};
use tokio::net::ToSocketAddrs;

use crate::config::Config;
use crate::http::guards::answer_headers;
use crate::metrics::{Cut, Metrics};
use poem::http::uri::Scheme;
use poem::web::{LocalAddr, RemoteAddr};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Listens on `addr` for the node of `config`.
pub async fn bind(
    addr: impl ToSocketAddrs + Send + 'static,
    config: &Config,
    metrics: &Metrics,
) -> IoResult<Guarded<TcpAcceptor>> {
    let acceptor = TcpListener::bind(addr).into_acceptor().await?;
    let headers = answer_headers(config);
    Ok(Guarded::new(
        acceptor,
        headers.iter().map(|(name, value)| (*name, value.as_str())),
        Timeouts {
            head: config.request_timeout,
            idle: config.idle_timeout,
        },
        metrics.connections_cut.clone(),
    ))
}

/// How long a connection may take, by what it is doing.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// From a request's first byte to the end of its head.
    pub head: Duration,
    /// Silence between requests, and on an upgraded connection.
    pub idle: Duration,
}

/// What a connection is doing, for its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request (the first, or the next on a kept-alive connection).
    Idle,
    /// A request's head is arriving: how much of its final CR LF CR LF was seen.
    Head(usize),
    /// The head is in and the request is being answered: the handler's own deadlines hold.
    Busy,
    /// A WebSocket: frames both ways, any time.
    Stream,
}

/// The end of a request's head.
const HEAD_END: &[u8] = b"\r\n\r\n";

/// The first bytes of an answer's head (hyper answers an HTTP/1.0 request in kind).
const ANSWER: &[u8] = b"HTTP/1.";

/// The answer that turns a connection into a WebSocket.
const SWITCHING: &[u8] = b"HTTP/1.1 101 ";

/// What a client sends first over HTTP/2 without TLS.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// A connection's clock: its phase and when its allowance runs out.
struct Clock {
    phase: Phase,
    /// The connection's first bytes, until there are enough to tell an h2c preface.
    opening: Option<Vec<u8>>,
    timeouts: Timeouts,
    cut: Cut,
    /// When a read still pending is given up (Idle, Head, Stream).
    deadline: Instant,
    /// Wakes the reader at `deadline` or earlier; set again only when it fires early, so
    /// a busy socket does not move a timer on every read.
    timer: Pin<Box<Sleep>>,
}

impl Clock {
    fn new(timeouts: Timeouts, cut: Cut) -> Self {
        let deadline = Instant::now() + timeouts.idle;
        Self {
            phase: Phase::Idle,
            opening: Some(Vec::with_capacity(H2_PREFACE.len())),
            timeouts,
            cut,
            deadline,
            timer: Box::pin(tokio::time::sleep_until(deadline)),
        }
    }

    /// Notes bytes read; false when they open HTTP/2 without TLS, which is refused.
    fn read(&mut self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return true;
        }
        if let Some(opening) = &mut self.opening {
            let wanted = H2_PREFACE.len() - opening.len();
            opening.extend_from_slice(&bytes[..wanted.min(bytes.len())]);
            if !H2_PREFACE.starts_with(opening) {
                self.opening = None;
            } else if opening.len() == H2_PREFACE.len() {
                return false;
            }
        }
        match self.phase {
            Phase::Idle => {
                // The one move to an earlier deadline: the timer follows at once.
                self.deadline = Instant::now() + self.timeouts.head;
                self.timer.as_mut().reset(self.deadline);
                self.phase = Phase::Head(0);
                self.scan(bytes);
            }
            Phase::Head(_) => self.scan(bytes),
            Phase::Busy => {}
            Phase::Stream => self.deadline = Instant::now() + self.timeouts.idle,
        }
        true
    }

    /// Looks for the end of the head in `bytes`, which follow what was seen.
    fn scan(&mut self, bytes: &[u8]) {
        let Phase::Head(mut seen) = self.phase else {
            return;
        };
        for &b in bytes {
            seen = if b == HEAD_END[seen] {
                seen + 1
            } else if b == HEAD_END[0] {
                1
            } else {
                0
            };
            if seen == HEAD_END.len() {
                self.phase = Phase::Busy;
                return;
            }
        }
        self.phase = Phase::Head(seen);
    }

    /// Notes bytes written: an answer's head ends the request. The reader is woken, so
    /// that a read it left waiting while the request was answered is given the clock.
    fn wrote(&mut self, bytes: &[u8], cx: &Context<'_>) {
        if self.phase == Phase::Stream || !bytes.starts_with(ANSWER) {
            return;
        }
        cx.waker().wake_by_ref();
        self.phase = if bytes.starts_with(SWITCHING) {
            Phase::Stream
        } else {
            Phase::Idle
        };
        self.deadline = Instant::now() + self.timeouts.idle;
    }

    /// Whether a read that waits has waited too long; if not, the reader is woken when
    /// it might have.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        if self.phase == Phase::Busy {
            return false;
        }
        loop {
            if self.timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            if Instant::now() >= self.deadline {
                match self.phase {
                    Phase::Head(_) => self.cut.head.inc(),
                    Phase::Stream => self.cut.socket.inc(),
                    Phase::Idle | Phase::Busy => self.cut.idle.inc(),
                };
                return true;
            }
            self.timer.as_mut().reset(self.deadline);
        }
    }
}

/// The answers hyper writes by itself, by their status lines.
const HYPER_OWN: [&[u8]; 2] = [
    b"HTTP/1.1 414 URI Too Long\r\n",
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
];

/// A header every answer of ours carries: its presence tells ours from hyper's.
const OURS: &[u8] = b"\r\nx-content-type-options:";

/// An acceptor whose connections carry `headers` on the answers hyper writes by itself.
pub struct Guarded<A> {
    inner: A,
    /// The header lines to insert, each ending in CR LF.
    headers: std::sync::Arc<[u8]>,
    timeouts: Timeouts,
    cut: Cut,
}

impl<A> Guarded<A> {
    pub fn new<'a>(
        inner: A,
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
        timeouts: Timeouts,
        cut: Cut,
    ) -> Self {
        let mut block = Vec::new();
        for (name, value) in headers {
            block.extend_from_slice(name.as_bytes());
            block.extend_from_slice(b": ");
            block.extend_from_slice(value.as_bytes());
            block.extend_from_slice(b"\r\n");
        }
        Self {
            inner,
            headers: block.into(),
            timeouts,
            cut,
        }
    }
}

impl<A: Acceptor> Acceptor for Guarded<A> {
    type Io = GuardedIo<A::Io>;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.inner.local_addr()
    }

    async fn accept(&mut self) -> IoResult<(Self::Io, LocalAddr, RemoteAddr, Scheme)> {
        let (io, local, remote, scheme) = self.inner.accept().await?;
        let io = GuardedIo {
            inner: io,
            headers: self.headers.clone(),
            pending: None,
            clock: Clock::new(self.timeouts, self.cut.clone()),
        };
        Ok((io, local, remote, scheme))
    }
}

/// One connection of [`Guarded`].
pub struct GuardedIo<T> {
    inner: T,
    headers: std::sync::Arc<[u8]>,
    /// An answer of hyper's being written with the headers inserted: the bytes, how many
    /// are written, and the length of the caller's buffer, reported once all are.
    pending: Option<(Vec<u8>, usize, usize)>,
    clock: Clock,
}

impl<T> GuardedIo<T> {
    /// `buf` with the headers inserted after its status line, if it is one of hyper's
    /// own answers.
    fn rewrite(&self, buf: &[u8]) -> Option<Vec<u8>> {
        let line = HYPER_OWN.iter().find(|line| buf.starts_with(line))?;
        // Our own 414 (a path over `URI_MAX`) carries the headers already.
        let head_end = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or(buf.len());
        if buf[..head_end]
            .windows(OURS.len())
            .any(|w| w.eq_ignore_ascii_case(OURS))
        {
            return None;
        }
        let mut out = Vec::with_capacity(buf.len() + self.headers.len());
        out.extend_from_slice(line);
        out.extend_from_slice(&self.headers);
        out.extend_from_slice(&buf[line.len()..]);
        Some(out)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for GuardedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<IoResult<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if this.clock.read(&buf.filled()[before..]) => Poll::Ready(Ok(())),
            Poll::Ready(Ok(())) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "HTTP/2 without TLS is not served",
            ))),
            Poll::Pending if this.clock.expired(cx) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client sent too slowly or went silent",
            ))),
            other => other,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for GuardedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<IoResult<usize>> {
        let this = &mut *self;
        if this.pending.is_none() {
            // A WebSocket's frames are neither an answer's head nor one of hyper's.
            if this.clock.phase == Phase::Stream {
                return Pin::new(&mut this.inner).poll_write(cx, buf);
            }
            this.clock.wrote(buf, cx);
            match this.rewrite(buf) {
                Some(bytes) => this.pending = Some((bytes, 0, buf.len())),
                None => return Pin::new(&mut this.inner).poll_write(cx, buf),
            }
        }
        // A rewritten answer: reported as the caller's buffer once all of it is out (a
        // writer that got `Pending` calls again with the same buffer).
        while let Some((bytes, written, _)) = &mut this.pending {
            if *written == bytes.len() {
                break;
            }
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        let reported = this.pending.take().map_or(0, |(_, _, len)| len);
        Poll::Ready(Ok(reported))
    }

    /// Vectored writes pass through as the connection takes them (hyper writes a head and
    /// its body apart, without copying); one that starts with hyper's own answer is
    /// written as above, its first buffer alone.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<IoResult<usize>> {
        let first = bufs.iter().find(|b| !b.is_empty());
        if self.pending.is_none() && self.clock.phase != Phase::Stream {
            if let Some(first) = first {
                self.clock.wrote(first, cx);
            }
        }
        let ours = self.pending.is_some()
            || first.is_some_and(|b| HYPER_OWN.iter().any(|line| b.starts_with(line)));
        match first {
            Some(first) if ours => self.poll_write(cx, first),
            _ => Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<IoResult<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<IoResult<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const TIMEOUTS: Timeouts = Timeouts {
        head: Duration::from_secs(20),
        idle: Duration::from_secs(75),
    };

    fn guarded<T>(inner: T) -> GuardedIo<T> {
        let guarded = Guarded::new(
            (),
            [("x-frame-options", "DENY"), ("cache-control", "no-store")],
            TIMEOUTS,
            Metrics::new().connections_cut,
        );
        GuardedIo {
            inner,
            headers: guarded.headers,
            pending: None,
            clock: Clock::new(TIMEOUTS, guarded.cut),
        }
    }

    fn io(out: Vec<u8>) -> GuardedIo<Vec<u8>> {
        guarded(out)
    }

    /// A connection's server end, and the client's.
    fn connection() -> (GuardedIo<tokio::io::DuplexStream>, tokio::io::DuplexStream) {
        let (server, client) = tokio::io::duplex(4096);
        (guarded(server), client)
    }

    /// Reads until the connection gives up on the client: how long that took.
    async fn given_up(server: &mut GuardedIo<tokio::io::DuplexStream>) -> Duration {
        let start = Instant::now();
        let mut buf = [0u8; 256];
        loop {
            match server.read(&mut buf).await {
                Ok(0) => panic!("the client closed"),
                Ok(_) => continue,
                Err(e) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
                    return start.elapsed();
                }
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_sent_slowly_is_given_up() {
        let (mut server, mut client) = connection();
        let start = Instant::now();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n")
            .await
            .unwrap();
        tokio::spawn(async move {
            // One header line every 5 s, never the end of the head.
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                if client.write_all(b"X-Slow: 1\r\n").await.is_err() {
                    return;
                }
            }
        });
        given_up(&mut server).await;
        assert_eq!(start.elapsed(), TIMEOUTS.head);
    }

    /// HTTP/2 without TLS would carry requests past the head clock: its preface closes
    /// the connection, whether it comes at once or a byte at a time.
    #[tokio::test(start_paused = true)]
    async fn http_2_without_tls_is_refused() {
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
        let (mut server, mut client) = connection();
        client.write_all(preface).await.unwrap();
        let mut buf = [0u8; 256];
        let e = server.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);

        let (mut server, mut client) = connection();
        let start = Instant::now();
        tokio::spawn(async move {
            for b in preface {
                if client.write_all(&[*b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            // A HEADERS frame trickled one byte every 10 s, never finished.
            loop {
                tokio::time::sleep(Duration::from_secs(10)).await;
                if client.write_all(&[0]).await.is_err() {
                    return;
                }
            }
        });
        let read = async {
            loop {
                match server.read(&mut buf).await {
                    Ok(0) => panic!("the client closed"),
                    Ok(_) => continue,
                    Err(e) => break e,
                }
            }
        };
        let refused = tokio::time::timeout(Duration::from_secs(120), read)
            .await
            .expect("the connection is still open");
        assert_eq!(refused.kind(), std::io::ErrorKind::InvalidData);
        assert!(start.elapsed() < TIMEOUTS.head, "{:?}", start.elapsed());
    }

    /// A request that only begins like the preface is an ordinary one.
    #[tokio::test(start_paused = true)]
    async fn a_request_like_the_preface_is_served() {
        let (mut server, mut client) = connection();
        client
            .write_all(b"PRIX / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        assert!(server.read(&mut buf).await.unwrap() > 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_connection_is_given_up() {
        let (mut server, _client) = connection();
        assert_eq!(given_up(&mut server).await, TIMEOUTS.idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_being_answered_has_no_clock_and_the_next_one_does() {
        let (mut server, mut client) = connection();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        let n = server.read(&mut buf).await.unwrap();
        assert!(n > 0);
        // The handler takes long: nothing is given up meanwhile.
        let waited = tokio::time::timeout(TIMEOUTS.idle * 2, server.read(&mut buf)).await;
        assert!(waited.is_err(), "a request being answered was cut off");
        server
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(given_up(&mut server).await, TIMEOUTS.idle);
    }

    #[tokio::test(start_paused = true)]
    async fn an_http_1_0_connection_kept_alive_has_the_idle_clock() {
        let (mut server, mut client) = connection();
        client
            .write_all(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        assert!(server.read(&mut buf).await.unwrap() > 0);
        server
            .write_all(b"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(given_up(&mut server).await, TIMEOUTS.idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_websocket_lives_while_it_hears_from_its_client() {
        let (mut server, mut client) = connection();
        client
            .write_all(b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        assert!(server.read(&mut buf).await.unwrap() > 0);
        server
            .write_all(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
            .await
            .unwrap();
        let start = Instant::now();
        let talker = tokio::spawn(async move {
            // A pong every 25 s, for ten minutes; then silence.
            for _ in 0..24 {
                tokio::time::sleep(Duration::from_secs(25)).await;
                client.write_all(b"\x8a\x00").await.unwrap();
            }
            client
        });
        let lasted = given_up(&mut server).await;
        assert_eq!(lasted, Duration::from_secs(24 * 25) + TIMEOUTS.idle);
        assert_eq!(start.elapsed(), lasted);
        drop(talker);
    }

    #[tokio::test]
    async fn hypers_own_answers_get_the_headers() {
        let mut conn = io(Vec::new());
        conn.write_all(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n",
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            String::from_utf8_lossy(&conn.inner),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nx-frame-options: DENY\r\ncache-control: no-store\r\ncontent-length: 0\r\n\r\n"
        );
    }

    #[tokio::test]
    async fn our_own_answers_are_left_alone() {
        let mut conn = io(Vec::new());
        let answer = b"HTTP/1.1 414 URI Too Long\r\nX-Content-Type-Options: nosniff\r\n\r\n{}";
        conn.write_all(answer)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&conn.inner[..], answer);
    }

    #[tokio::test]
    async fn every_other_write_passes_as_it_is() {
        let mut conn = io(Vec::new());
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
        conn.write_all(answer)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        conn.write_all(b"\x81\x05hello")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&conn.inner[..answer.len()], answer);
        assert_eq!(&conn.inner[answer.len()..], b"\x81\x05hello");
    }
}
