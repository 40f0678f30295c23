//! Import jobs over HTTP: upload an export (or give a URL), then follow the
//! job's progress.
//!
//! `POST /api/imports` reads the whole upload first (within
//! [`MAX_UPLOAD_BYTES`] and the body deadline), then starts the engine's
//! import job on an instance taken from the pool for the job's length (an
//! import job lives in one instance) and answers `202` with the job's id at
//! once. `GET /api/imports/{id}` answers its state, the items done of those
//! planned, and at the end the report (the same JSON as `hive-mind import
//! --json`). The server keeps the last [`KEPT_JOBS`] jobs; at most one runs
//! at a time, so imports never take every instance from the readers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value as JsonValue;
use utoipa::{IntoParams, ToSchema};

use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_harvest::{Distillation, Document, ImportOptions, Input};
use hive_mind_runtime::engine::wit_names::one_of;

use super::App;
use super::api::{WriteQuery, write_mind};
use super::extract::ApiQuery;
use super::problem::{PROBLEM_JSON, Problem};
use crate::progress::Progress;
use crate::tokens::{Grant, Scope};

/// The largest upload an import takes.
pub const MAX_UPLOAD_BYTES: usize = 256 * 1024 * 1024;

/// How long an upload may take to arrive.
pub const UPLOAD_DEADLINE: std::time::Duration = std::time::Duration::from_secs(600);

/// How many jobs the server remembers.
pub const KEPT_JOBS: usize = 64;

/// `POST /api/imports`' parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// `personal` or `workspace` (required).
    pub mind: Option<String>,
    /// The workspace, with `mind=workspace`.
    pub workspace: Option<String>,
    /// The upload's file name (helps detection; default `upload`).
    pub name: Option<String>,
    /// An http(s) URL to fetch instead of a body.
    pub url: Option<String>,
    /// The format, overriding detection.
    pub format: Option<String>,
}

/// A job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum JobState {
    /// Waiting for an engine or working.
    Running,
    /// Finished; the report is there.
    Done,
    /// Failed; the error says why.
    Failed,
}

/// An import job as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct JobView {
    /// Its id.
    pub id: u64,
    /// The mind it imports into.
    pub mind: String,
    /// What is imported (file name or URL).
    pub input: String,
    /// running, done or failed.
    pub state: JobState,
    /// Items done.
    pub done: u64,
    /// Items planned, once known.
    pub total: Option<u64>,
    /// The report, when done.
    #[schema(value_type = Option<Object>)]
    pub report: Option<JsonValue>,
    /// Why it failed.
    pub error: Option<String>,
}

/// A job's record on the server.
struct Job {
    view: JobView,
    progress: Progress,
}

/// The server's jobs.
#[derive(Default)]
pub struct Jobs {
    next: AtomicU64,
    jobs: std::sync::Mutex<BTreeMap<u64, Job>>,
    running: tokio::sync::Mutex<()>,
}

impl Jobs {
    fn with<T>(&self, work: impl FnOnce(&mut BTreeMap<u64, Job>) -> T) -> T {
        let mut jobs = self
            .jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        work(&mut jobs)
    }

    fn view(&self, id: u64) -> Option<JobView> {
        self.with(|jobs| {
            jobs.get(&id).map(|job| {
                let mut view = job.view.clone();
                if view.state == JobState::Running {
                    view.done = job.progress.done();
                    view.total = job.progress.total();
                }
                view
            })
        })
    }

    fn finish(&self, id: u64, outcome: Result<JsonValue, String>) {
        self.with(|jobs| {
            if let Some(job) = jobs.get_mut(&id) {
                job.view.done = job.progress.done();
                job.view.total = job.progress.total();
                match outcome {
                    Ok(report) => {
                        job.view.state = JobState::Done;
                        job.view.report = Some(report);
                    }
                    Err(error) => {
                        job.view.state = JobState::Failed;
                        job.view.error = Some(error);
                    }
                }
            }
        });
    }
}

/// Start an import: the body is the file (an export, a zip, Markdown, a
/// PDF…), or `?url=` names a page. Answers the job at once.
#[utoipa::path(post, path = "/api/imports", tag = "imports", params(ImportQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream",
        description = "The file to import (empty with `url`)"),
    security(("bearer" = ["write"])),
    responses((status = 202, body = JobView),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn start_import(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(query): ApiQuery<ImportQuery>,
    body: axum::body::Body,
) -> Result<Response, Problem> {
    let mind = write_mind(&WriteQuery {
        mind: query.mind.clone(),
        workspace: query.workspace.clone(),
    })?;
    let label = convert::mind_name(&mind);
    grant
        .require(Scope::Write, std::slice::from_ref(&label))
        .map_err(Problem::forbidden)?;
    // The upload is read whole before the job takes an engine, within its
    // own limit (an export is larger than any JSON body) and deadline.
    let body = tokio::time::timeout(
        UPLOAD_DEADLINE,
        axum::body::to_bytes(body, MAX_UPLOAD_BYTES),
    )
    .await
    .map_err(|_| {
        Problem::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the upload did not arrive within {} s",
                UPLOAD_DEADLINE.as_secs()
            ),
        )
    })?
    .map_err(|_| {
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the upload is over {} MiB, the largest an import takes",
                MAX_UPLOAD_BYTES >> 20
            ),
        )
    })?;
    let source = match query.format.as_deref() {
        None => None,
        Some(name) => Some(crate::harvest_cli::parse_format(name).ok_or_else(|| {
            Problem::bad_request(format!(
                "unknown format {name:?}: expected {}",
                one_of::<hive_mind_runtime::engine::wit_harvest::SourceFormat>()
            ))
        })?),
    };
    let (input, name) = match (&query.url, body.is_empty()) {
        (Some(url), true) => {
            crate::limits::check("url", url)
                .map_err(|error| Problem::bad_request(error.to_string()))?;
            if !crate::harvest_cli::is_url(url) {
                return Err(Problem::bad_request(format!(
                    "url {url:?} is not an http(s) URL"
                )));
            }
            (Input::Url(url.clone()), url.clone())
        }
        (None, false) => {
            let name = query.name.clone().unwrap_or_else(|| "upload".to_string());
            crate::limits::check("name", &name)
                .map_err(|error| Problem::bad_request(error.to_string()))?;
            (
                Input::Document(Document {
                    name: name.clone(),
                    bytes: body.to_vec(),
                }),
                name,
            )
        }
        (Some(_), false) => {
            return Err(Problem::bad_request("give a body or ?url=, not both"));
        }
        (None, true) => {
            return Err(Problem::bad_request(
                "the body is empty: send the file to import, or give ?url=",
            ));
        }
    };
    let options = ImportOptions {
        source,
        mind,
        distillation: Distillation::Auto,
        dry_run: false,
    };
    let id = app.jobs.next.fetch_add(1, Ordering::SeqCst) + 1;
    let progress = Progress::hidden();
    let view = JobView {
        id,
        mind: label,
        input: name,
        state: JobState::Running,
        done: 0,
        total: None,
        report: None,
        error: None,
    };
    app.jobs.with(|jobs| {
        while jobs.len() >= KEPT_JOBS {
            let oldest = jobs
                .iter()
                .find(|(_, job)| job.view.state != JobState::Running)
                .map(|(id, _)| *id);
            match oldest {
                Some(oldest) => {
                    jobs.remove(&oldest);
                }
                None => break,
            }
        }
        jobs.insert(
            id,
            Job {
                view: view.clone(),
                progress: progress.clone(),
            },
        );
    });
    let worker = Arc::clone(&app);
    tokio::spawn(async move {
        let _one_at_a_time = worker.jobs.running.lock().await;
        let outcome = worker
            .pool
            .run(move |engine| {
                crate::harvest_cli::run_job(engine, &[input], &options, &progress)
                    .map(|report| crate::harvest_cli::report_json(&report))
                    .map_err(|error| Problem::from(error).detail)
            })
            .await;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(error) => Err(super::busy_problem(&error).detail),
        };
        worker.jobs.finish(id, outcome);
    });
    Ok((StatusCode::ACCEPTED, Json(view)).into_response())
}

/// An import job's progress, and its report when done.
#[utoipa::path(get, path = "/api/imports/{id}", tag = "imports",
    params(("id" = u64, Path, description = "The job")), security(("bearer" = ["read"])),
    responses((status = 200, body = JobView),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn import_status(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    Path(id): Path<u64>,
) -> Result<Json<JobView>, Problem> {
    let view = app
        .jobs
        .view(id)
        .ok_or_else(|| Problem::not_found(format!("no import job {id}")))?;
    grant
        .require(Scope::Read, std::slice::from_ref(&view.mind))
        .map_err(Problem::forbidden)?;
    Ok(Json(view))
}
