//! The built web app: `index.html` for every route of the app, revalidated on each visit;
//! the hashed files under `/assets/` cached for a year and served in the compression the
//! browser takes, from the `.br` and `.gz` files the build writes beside them
//! (`webapp/scripts/compress.mjs`). A node compresses nothing itself: the work is done
//! once, at build time, at the best level.

use std::path::{Path, PathBuf};

use poem::endpoint::StaticFilesEndpoint;
use poem::http::{header, HeaderValue, Method, StatusCode};
use poem::web::StaticFileRequest;
use poem::{Endpoint, EndpointExt, FromRequest, IntoResponse, Request, Response};

/// The folder of the build's hashed files: a new build names every changed file anew.
const ASSETS: &str = "/assets/";
/// Hashed files never change under their name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else (the page, the service worker, the manifest, icons): asked again each time.
const REVALIDATE: &str = "no-cache";

/// The encodings written by the build, best first: (token in Accept-Encoding, file suffix).
const ENCODINGS: [(&str, &str); 2] = [("br", "br"), ("gzip", "gz")];

/// The web app's endpoint, served from `dir`.
pub fn endpoint(dir: PathBuf) -> impl Endpoint<Output = Response> {
    let files = StaticFilesEndpoint::new(&dir)
        .index_file("index.html")
        .fallback_to_index()
        .no_cache_index();
    files.around(move |next, mut req| {
        let dir = dir.clone();
        async move {
            // Uptime monitors and link checkers ask pages with HEAD: answered as GET (the
            // static files endpoint knows only GET); the server sends the head alone.
            if req.method() == Method::HEAD {
                req.set_method(Method::GET);
            }
            let path = req.uri().path().to_owned();
            if let Some(name) = path.strip_prefix(ASSETS) {
                return asset(&dir, name, &req).await;
            }
            let mut response = next.call(req).await?.into_response();
            if !response.headers().contains_key(header::CACHE_CONTROL) {
                response
                    .headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE));
            }
            Ok(response)
        }
    })
}

/// One hashed file, in the best encoding the request takes; a file that is not there is
/// a 404, never the page (a tab of an older build must not read HTML as its script).
async fn asset(dir: &Path, name: &str, req: &Request) -> poem::Result<Response> {
    let plain = match file_name(name) {
        Some(name) => dir.join("assets").join(name),
        None => return Ok(StatusCode::NOT_FOUND.into_response()),
    };
    if !plain.is_file() {
        return Ok(StatusCode::NOT_FOUND.into_response());
    }
    let accepted = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let encoded = ENCODINGS
        .iter()
        .filter(|(token, _)| accepts(accepted, token))
        .map(|(token, suffix)| (*token, sibling(&plain, suffix)))
        .find(|(_, path)| path.is_file());
    let file = StaticFileRequest::from_request_without_body(req).await?;
    let served = encoded.as_ref().map_or(&plain, |(_, path)| path);
    let answer = file.create_response(served, true, false)?;
    // The type of the file the encoded one stands for, charset included.
    let answer = match content_type(&plain) {
        Some(kind) => answer.with_content_type(kind),
        None => answer,
    };
    let mut response = answer.into_response();
    let headers = response.headers_mut();
    if let Some((token, _)) = encoded {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
    }
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    Ok(response)
}

/// A file name the build writes (letters, digits, `-`, `_`, `.`), never a way out of the
/// folder.
fn file_name(name: &str) -> Option<&str> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    plain.then_some(name)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether `Accept-Encoding` takes `token` (and does not refuse it with `q=0`).
fn accepts(header: &str, token: &str) -> bool {
    header.split(',').any(|part| {
        let mut fields = part.split(';').map(str::trim);
        let name = fields.next().unwrap_or_default();
        let refused = fields.any(|f| {
            f.strip_prefix("q=")
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q == 0.0)
        });
        name.eq_ignore_ascii_case(token) && !refused
    })
}

/// The type of the file the encoded one stands for.
fn content_type(path: &Path) -> Option<&'static str> {
    Some(match path.extension()?.to_str()? {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" | "map" => "application/json",
        "html" => "text/html; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_accept_encoding() {
        assert!(accepts("gzip, deflate, br, zstd", "br"));
        assert!(accepts("br;q=1.0, gzip;q=0.8", "gzip"));
        assert!(!accepts("gzip, br;q=0", "br"));
        assert!(!accepts("gzip", "br"));
        assert!(!accepts("", "gzip"));
    }

    #[test]
    fn only_plain_file_names_are_served() {
        assert_eq!(file_name("index-Ab_9.js"), Some("index-Ab_9.js"));
        for bad in ["../secret", "a/b.js", "", ".env", "a%2f.js", "..", "a\\b"] {
            assert_eq!(file_name(bad), None, "{bad}");
        }
    }
}
