//! The memory browser: one page and its assets, built into the binary.
//!
//! `/` is the page (`page/index.html`), `/assets/app.js` and
//! `/assets/app.css` its script and style, `/docs` a page that reads
//! `/openapi.json` for a person. No library is loaded from elsewhere: the
//! page is plain JavaScript against the REST API, and asks for a token
//! once (kept in the tab's session storage) when the server wants one.
//! Every answer carries a content security policy that allows this
//! server's own scripts and nothing else.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::App;

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const APP_CSS: &str = include_str!("page/app.css");
const DOCS_HTML: &str = include_str!("page/docs.html");

/// Only this server's own scripts, styles and requests.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn asset(body: &'static str, media: &'static str) -> Response {
    let mut response = ([(header::CONTENT_TYPE, media)], body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The page's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/assets/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/assets/app.css",
            get(|| async { asset(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route(
            "/docs",
            get(|| async { asset(DOCS_HTML, "text/html; charset=utf-8") }),
        )
}
