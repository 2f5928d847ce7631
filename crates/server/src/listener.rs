//! The node's connections. hyper, under poem, answers a request whose head it cannot take
//! (a request line over 64 KiB: 414; a head over its 400 KB buffer or with more than 100
//! header lines: 431) by itself, before any of our code runs, and so without the headers
//! every other answer carries. [`Guarded`] wraps each accepted connection so that such an
//! answer is written with them: it recognises hyper's own error head by its first bytes
//! and inserts the security headers after the status line. Nothing else is touched.

use std::io::Result as IoResult;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use poem::listener::{Acceptor, Listener, TcpAcceptor, TcpListener};
use tokio::net::ToSocketAddrs;

use crate::config::Config;
use crate::security::answer_headers;
use poem::http::uri::Scheme;
use poem::web::{LocalAddr, RemoteAddr};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Listens on `addr` for the node of `config`.
pub async fn bind(
    addr: impl ToSocketAddrs + Send + 'static,
    config: &Config,
) -> IoResult<Guarded<TcpAcceptor>> {
    let acceptor = TcpListener::bind(addr).into_acceptor().await?;
    let headers = answer_headers(config);
    Ok(Guarded::new(
        acceptor,
        headers.iter().map(|(name, value)| (*name, value.as_str())),
    ))
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
}

impl<A> Guarded<A> {
    pub fn new<'a>(inner: A, headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
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
        Pin::new(&mut self.inner).poll_read(cx, buf)
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
    use tokio::io::AsyncWriteExt;

    fn io(out: Vec<u8>) -> GuardedIo<Vec<u8>> {
        let guarded = Guarded::new(
            (),
            [("x-frame-options", "DENY"), ("cache-control", "no-store")],
        );
        GuardedIo {
            inner: out,
            headers: guarded.headers,
            pending: None,
        }
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
