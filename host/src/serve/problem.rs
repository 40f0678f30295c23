//! Errors as RFC 9457 problem details (`application/problem+json`).
//!
//! Every refusal and failure of the server is a [`Problem`]: the status,
//! a short title, a `detail` that names what was wrong (the parameter, the
//! valid values, the mind not granted), and for a 429 or 503 a
//! `Retry-After` header. [`Problem::from_engine`] maps the engine's typed
//! error cases (never its messages) to statuses: a missing mind or memory
//! is a 404, invalid input a 400, a database busy past its timeout a 503,
//! the rest a 500.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use hive_mind_runtime::engine::wit_types::StorageError;
use hive_mind_runtime::engine::{
    AdminError, EngineError, HarvestError, MemoryError, ReviewError, WikiError, wit_admin,
    wit_harvest, wit_memory, wit_review, wit_wiki,
};

/// The media type of a problem document.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// A problem document (RFC 9457).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem (`about:blank`: the status says it).
    #[serde(rename = "type")]
    pub kind: String,
    /// The status's short text.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What was wrong with this request.
    pub detail: String,
    /// Seconds to wait before retrying (429 and 503).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub retry_after: Option<u64>,
}

impl Problem {
    /// A problem with `status` and `detail`.
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            kind: "about:blank".to_string(),
            title: status.canonical_reason().unwrap_or("Error").to_string(),
            status: status.as_u16(),
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// 400: the request is malformed; `detail` names the parameter.
    pub fn bad_request(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, detail)
    }

    /// 401: no token, or one the server does not know.
    pub fn unauthorized(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::UNAUTHORIZED, detail)
    }

    /// 403: the token lacks the scope or the mind.
    pub fn forbidden(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::FORBIDDEN, detail)
    }

    /// 404: no such mind, memory, job or route.
    pub fn not_found(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::NOT_FOUND, detail)
    }

    /// 500: the server failed.
    pub fn internal(detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::INTERNAL_SERVER_ERROR, detail)
    }

    /// 429 or 503 with a `Retry-After`.
    pub fn retry(status: StatusCode, after_seconds: u64, detail: impl Into<String>) -> Problem {
        Problem {
            retry_after: Some(after_seconds),
            ..Problem::new(status, detail)
        }
    }

    /// The engine's error, by its typed case.
    pub fn from_engine(error: &EngineError) -> Problem {
        let storage = |error: &StorageError| {
            let message = hive_mind_runtime::engine::describe_storage_error(error);
            match error {
                StorageError::MindNotFound(_) | StorageError::NotFound(_) => {
                    Problem::not_found(message)
                }
                StorageError::InvalidArgument(_)
                | StorageError::AwarenessFull(_)
                | StorageError::Referenced(_)
                | StorageError::DimensionMismatch(_) => Problem::bad_request(message),
                StorageError::Busy => Problem::retry(StatusCode::SERVICE_UNAVAILABLE, 1, message),
                StorageError::NewerSchema(_)
                | StorageError::Corrupt(_)
                | StorageError::NoEmbedder
                | StorageError::Embedder(_)
                | StorageError::AccessDenied
                | StorageError::Full
                | StorageError::Sql(_) => Problem::internal(message),
            }
        };
        match error {
            EngineError::Memory(MemoryError(wit_memory::Error::InvalidArgument(why)))
            | EngineError::Admin(AdminError(wit_admin::Error::InvalidArgument(why)))
            | EngineError::Review(ReviewError(wit_review::Error::InvalidArgument(why)))
            | EngineError::Wiki(WikiError(wit_wiki::Error::InvalidArgument(why))) => {
                Problem::bad_request(why.clone())
            }
            EngineError::Memory(MemoryError(wit_memory::Error::Storage(error)))
            | EngineError::Admin(AdminError(wit_admin::Error::Storage(error)))
            | EngineError::Review(ReviewError(wit_review::Error::Storage(error)))
            | EngineError::Wiki(WikiError(wit_wiki::Error::Storage(error)))
            | EngineError::Harvest(HarvestError(wit_harvest::Error::Storage(error))) => {
                storage(error)
            }
            EngineError::Harvest(HarvestError(
                wit_harvest::Error::InvalidArgument(_)
                | wit_harvest::Error::Unrecognised(_)
                | wit_harvest::Error::Malformed(_)
                | wit_harvest::Error::Fetch(_),
            )) => Problem::bad_request(error.to_string()),
            EngineError::Wiki(WikiError(wit_wiki::Error::NotFound(what))) => {
                Problem::not_found(what.clone())
            }
            EngineError::Harvest(HarvestError(wit_harvest::Error::TooLarge(_))) => {
                Problem::new(StatusCode::PAYLOAD_TOO_LARGE, error.to_string())
            }
            EngineError::Harvest(HarvestError(wit_harvest::Error::Embedder(_)))
            | EngineError::Memory(MemoryError(
                wit_memory::Error::Embedder(_) | wit_memory::Error::Llm(_),
            ))
            | EngineError::Admin(AdminError(wit_admin::Error::Embedder(_)))
            | EngineError::Review(ReviewError(wit_review::Error::Embedder(_)))
            | EngineError::Host(_) => Problem::internal(error.to_string()),
        }
    }
}

impl From<EngineError> for Problem {
    fn from(error: EngineError) -> Problem {
        Problem::from_engine(&error)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let retry_after = self.retry_after;
        let body = serde_json::to_vec(&self).unwrap_or_default();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
