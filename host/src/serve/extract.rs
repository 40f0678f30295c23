//! The request extractors: a query string and a JSON body that answer a
//! [`Problem`] when refused.
//!
//! [`ApiQuery`] parses the query string into a type that refuses unknown
//! fields, so a typo is a 400 naming the valid parameters. [`ApiJson`]
//! reads the body within the router's size limit (a 413 past it) and the
//! server's body deadline (a 408 for a client that stops sending, or that
//! sends nothing for the body timeout: a slow client never holds an engine,
//! since the body is read before one is taken), then parses it (a 400 naming the field and the place).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::problem::Problem;

/// How long a client may take to send its body.
pub const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// A query string parsed into `T`.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        serde_urlencoded::from_str(query)
            .map(ApiQuery)
            .map_err(|error| Problem::bad_request(format!("bad query parameter: {error}")))
    }
}

/// Whether `error` (or one of its causes) is a body cut for stalling.
fn stalled(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<super::fair::StallError>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// A JSON body parsed into `T`.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Problem;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = tokio::time::timeout(BODY_DEADLINE, Bytes::from_request(request, state))
            .await
            .map_err(|_| {
                Problem::new(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the body did not arrive within {} s",
                        BODY_DEADLINE.as_secs()
                    ),
                )
            })?
            .map_err(|rejection| {
                // A body cut for stalling (the guard's body timeout) is a
                // timeout, not a bad request.
                if stalled(&rejection) {
                    return Problem::new(StatusCode::REQUEST_TIMEOUT, rejection.body_text());
                }
                let status = rejection.status();
                Problem::new(status, rejection.body_text())
            })?;
        let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(body_refusal)?;
        deserializer
            .end()
            .map_err(|error| Problem::bad_request(format!("bad JSON body: {error}")))?;
        Ok(ApiJson(value))
    }
}

/// A body's refusal, naming the place in it.
fn body_refusal<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> Problem {
    let path = error.path().to_string();
    let inner = error.into_inner();
    if path == "." {
        Problem::bad_request(format!("bad JSON body: {inner}"))
    } else {
        Problem::bad_request(format!("bad JSON body at {path}: {inner}"))
    }
}

/// An operation's request from a route that names its item in the path
/// (`/api/memories/{ref}/correct`): the JSON `body` (none: an empty
/// object) with the path's value as its `field`. A body that names another
/// item is refused; one that repeats the path's is fine.
pub fn addressed<T: DeserializeOwned>(
    body: Option<serde_json::Value>,
    field: &str,
    value: &str,
) -> Result<T, Problem> {
    let mut object = match body {
        None => serde_json::Map::new(),
        Some(serde_json::Value::Object(object)) => object,
        Some(_) => return Err(Problem::bad_request("bad JSON body: expected an object")),
    };
    match object.get(field) {
        Some(given) if given.as_str() != Some(value) => {
            return Err(Problem::bad_request(format!(
                "the path names {field} {value:?} but the body {given}: drop the body's"
            )));
        }
        _ => {
            object.insert(field.to_string(), serde_json::Value::from(value));
        }
    }
    serde_path_to_error::deserialize(serde_json::Value::Object(object)).map_err(body_refusal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Change {
        memory: String,
        pinned: Option<bool>,
    }

    #[test]
    fn the_path_names_the_item_and_a_body_may_not_name_another() {
        let change: Change = addressed(
            Some(serde_json::json!({"pinned": true})),
            "memory",
            "personal:4",
        )
        .unwrap();
        assert_eq!(
            (change.memory.as_str(), change.pinned),
            ("personal:4", Some(true))
        );
        let same: Change = addressed(
            Some(serde_json::json!({"memory": "personal:4"})),
            "memory",
            "personal:4",
        )
        .unwrap();
        assert_eq!(same.memory, "personal:4");
        let other = addressed::<Change>(
            Some(serde_json::json!({"memory": "workspace:b:1"})),
            "memory",
            "personal:4",
        );
        assert!(other.is_err());
        let typo = addressed::<Change>(
            Some(serde_json::json!({"pined": true})),
            "memory",
            "personal:4",
        );
        assert!(typo.is_err());
        assert!(addressed::<Change>(Some(serde_json::json!([1])), "memory", "personal:4").is_err());
    }
}
