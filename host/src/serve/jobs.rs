//! Import jobs over HTTP: upload an export (or give a URL), then follow the
//! job's progress.
//!
//! `POST /api/imports` spools the upload to a file first (within
//! [`MAX_UPLOAD_BYTES`] and the body deadline), then starts the engine's
//! import job on an instance taken from the pool for the job's length (an
//! import job lives in one instance) and answers `202` with the job's id at
//! once. `GET /api/imports/{id}` answers its state, the items done of those
//! planned, and at the end the report (the same JSON as `hive-mind import
//! --json`). The server keeps the last [`KEPT_JOBS`] jobs; at most one runs
//! at a time, so imports never take every instance from the readers.
//!
//! ## Queued uploads cost disk, not memory
//!
//! Jobs wait for one another, and an upload can be hundreds of megabytes,
//! so a queued upload is never held in memory: it is written as it
//! arrives to a file of its own in `<data-dir>/server/` (`upload-<pid>-*`,
//! readable by the owner only, removed when its job ends or the upload
//! fails, or by the next server when this one's process died), and read only when its job runs — the server's memory holds
//! one upload at most, the running job's. The files together stay within
//! the spool quota (`--upload-spool`; an upload that would pass it is cut
//! and answered 503 with `Retry-After`), and at most `--import-queue` jobs
//! wait or run at once, at most half of them one client's (one more is
//! answered 429 with `Retry-After` before its body is read).
//!
//! ## Job ids
//!
//! A job's id is random (53 bits, so a JavaScript number holds it), not a
//! counter, and a job is shown only to the token that started it: another
//! token asking for it is answered 404, as for a job that does not exist,
//! so ids cannot be walked and a job's mind is not told to a stranger.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value as JsonValue;
use utoipa::ToSchema;

use hive_mind_runtime::engine::convert;
use hive_mind_runtime::engine::wit_harvest::{Document, Input};

use super::App;
use super::extract::ApiQuery;
use super::fair::{Client, Share, Shares};
use super::problem::{PROBLEM_JSON, Problem};
use crate::tokens::Grant;
use hive_mind_terminal::Progress;

/// The largest upload an import takes.
pub const MAX_UPLOAD_BYTES: usize = 256 * 1024 * 1024;

/// How long an upload may take to arrive.
pub const UPLOAD_DEADLINE: std::time::Duration = std::time::Duration::from_secs(600);

/// How many jobs the server remembers.
pub const KEPT_JOBS: usize = 64;

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
    /// The token that started it (its name).
    owner: String,
}

/// The server's jobs.
pub struct Jobs {
    jobs: std::sync::Mutex<BTreeMap<u64, Job>>,
    running: tokio::sync::Mutex<()>,
    /// Where uploads wait for their job.
    spool_dir: PathBuf,
    /// The most bytes spooled at once.
    spool_quota: u64,
    spooled: Arc<AtomicU64>,
    /// The most jobs waiting or running at once.
    max_queued: usize,
    queued: Arc<AtomicUsize>,
    /// Each client's jobs waiting or running: at most half the queue, so
    /// one token's slow uploads leave room for the others'.
    queued_by_client: Arc<Shares>,
}

/// An upload on disk, waiting for its job; the file is removed and its
/// bytes given back to the quota on drop.
struct Spooled {
    file: tempfile::NamedTempFile,
    bytes: u64,
    spooled: Arc<AtomicU64>,
}

impl Drop for Spooled {
    fn drop(&mut self) {
        self.spooled.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// What a job imports.
enum Upload {
    /// A page to fetch.
    Url(String),
    /// A file, by its name, spooled.
    File(String, Spooled),
}

/// A job's place in the import queue; given back on drop.
/// With the client's share of the queue (given back with it).
struct QueuePlace {
    queued: Arc<AtomicUsize>,
    _share: Share,
}

impl Drop for QueuePlace {
    fn drop(&mut self) {
        self.queued.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An upload over [`MAX_UPLOAD_BYTES`].
fn too_large() -> Problem {
    Problem::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the upload is over {} MiB, the largest an import takes",
            MAX_UPLOAD_BYTES >> 20
        ),
    )
}

/// A random job id below 2^53 (exact in a JavaScript number), never 0.
fn random_id() -> Result<u64, Problem> {
    let raw = getrandom::u64()
        .map_err(|error| Problem::internal(format!("no randomness for a job id: {error}")))?;
    Ok((raw & ((1 << 53) - 1)).max(1))
}

impl Jobs {
    /// No jobs yet; uploads spool in `spool_dir`, at most `spool_quota`
    /// bytes together, and at most `max_queued` jobs wait or run.
    pub fn new(spool_dir: PathBuf, spool_quota: u64, max_queued: usize) -> Jobs {
        Jobs {
            jobs: std::sync::Mutex::default(),
            running: tokio::sync::Mutex::default(),
            spool_dir,
            spool_quota,
            spooled: Arc::default(),
            max_queued: max_queued.max(1),
            queued: Arc::default(),
            queued_by_client: Shares::new(max_queued / 2),
        }
    }

    /// Bytes spooled now.
    pub fn spooled_bytes(&self) -> u64 {
        self.spooled.load(Ordering::SeqCst)
    }

    /// An upload that would pass the spool quota.
    fn spool_full(&self) -> Problem {
        Problem::retry(
            StatusCode::SERVICE_UNAVAILABLE,
            60,
            format!(
                "the uploads waiting for their imports would pass the server's spool quota ({} bytes); retry when they are done",
                self.spool_quota
            ),
        )
    }

    /// A place in the queue, or a 429.
    fn enqueue(&self, client: &Client) -> Result<QueuePlace, Problem> {
        let Some(share) = self.queued_by_client.try_take(client) else {
            return Err(Problem::retry(
                StatusCode::TOO_MANY_REQUESTS,
                30,
                format!(
                    "{client} already has {} imports waiting or running (its share of the server's {}); retry later",
                    self.queued_by_client.per_client, self.max_queued
                ),
            ));
        };
        if self.queued.fetch_add(1, Ordering::SeqCst) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(Problem::retry(
                StatusCode::TOO_MANY_REQUESTS,
                30,
                format!(
                    "{} imports are already waiting or running (the server's limit); retry later",
                    self.max_queued
                ),
            ));
        }
        Ok(QueuePlace {
            queued: Arc::clone(&self.queued),
            _share: share,
        })
    }

    /// Write `body` (of `declared` bytes, when its length is told) to a
    /// spool file as it arrives, within the upload's limit, its deadline
    /// and the spool quota.
    async fn spool(
        &self,
        body: axum::body::Body,
        declared: Option<u64>,
    ) -> Result<Spooled, Problem> {
        // A told length is checked before a byte is read.
        if let Some(declared) = declared {
            if declared > MAX_UPLOAD_BYTES as u64 {
                return Err(too_large());
            }
            if self.spooled.load(Ordering::SeqCst) + declared > self.spool_quota {
                return Err(self.spool_full());
            }
        }
        std::fs::create_dir_all(&self.spool_dir)
            .map_err(|error| Problem::internal(format!("the upload spool folder: {error}")))?;
        let file = tempfile::Builder::new()
            .prefix(&format!("upload-{}-", std::process::id()))
            .tempfile_in(&self.spool_dir)
            .map_err(|error| Problem::internal(format!("a spool file for the upload: {error}")))?;
        let writer = file
            .as_file()
            .try_clone()
            .map_err(|error| Problem::internal(format!("the upload's spool file: {error}")))?;
        let mut spooled = Spooled {
            file,
            bytes: 0,
            spooled: Arc::clone(&self.spooled),
        };
        let mut writer = tokio::fs::File::from_std(writer);
        let copy = async {
            let mut body = body;
            while let Some(frame) = http_body_util::BodyExt::frame(&mut body).await {
                let frame = frame.map_err(|error| {
                    Problem::new(
                        StatusCode::REQUEST_TIMEOUT,
                        format!("the upload did not arrive whole: {error}"),
                    )
                })?;
                let Ok(chunk) = frame.into_data() else {
                    continue;
                };
                let size = chunk.len() as u64;
                if spooled.bytes + size > MAX_UPLOAD_BYTES as u64 {
                    return Err(too_large());
                }
                if self.spooled.fetch_add(size, Ordering::SeqCst) + size > self.spool_quota {
                    self.spooled.fetch_sub(size, Ordering::SeqCst);
                    return Err(self.spool_full());
                }
                spooled.bytes += size;
                // Each chunk is on disk before the next is read: what the
                // upload holds in memory is one chunk.
                let written = async {
                    tokio::io::AsyncWriteExt::write_all(&mut writer, &chunk).await?;
                    tokio::io::AsyncWriteExt::flush(&mut writer).await
                };
                written
                    .await
                    .map_err(|error| Problem::internal(format!("spooling the upload: {error}")))?;
            }
            Ok(())
        };
        tokio::time::timeout(UPLOAD_DEADLINE, copy)
            .await
            .map_err(|_| {
                Problem::new(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the upload did not arrive within {} s",
                        UPLOAD_DEADLINE.as_secs()
                    ),
                )
            })??;
        Ok(spooled)
    }

    fn with<T>(&self, work: impl FnOnce(&mut BTreeMap<u64, Job>) -> T) -> T {
        let mut jobs = self
            .jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        work(&mut jobs)
    }

    /// Job `id`, if `owner` started it.
    fn view(&self, id: u64, owner: &str) -> Option<JobView> {
        self.with(|jobs| {
            jobs.get(&id).filter(|job| job.owner == owner).map(|job| {
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
#[utoipa::path(post, path = "/api/imports", tag = "imports", params(crate::ops::import::ImportRequest),
    request_body(content = Vec<u8>, content_type = "application/octet-stream",
        description = "The file to import (empty with `url`)"),
    security(("bearer" = ["write"])),
    responses((status = 202, body = JobView),
        (status = "4XX", body = Problem, content_type = PROBLEM_JSON)))]
pub async fn start_import(
    State(app): State<Arc<App>>,
    Extension(grant): Extension<Grant>,
    ApiQuery(request): ApiQuery<crate::ops::import::ImportRequest>,
    headers: axum::http::HeaderMap,
    body: axum::body::Body,
) -> Result<Response, Problem> {
    if request.path.is_some() || request.data.is_some() {
        return Err(Problem::bad_request(
            "the server reads no path and takes no data parameter: send the file as the body, or give ?url=",
        ));
    }
    // An import makes a workspace's mind by its first write, so the grant
    // is all there is to judge, before the body is read.
    let import = request
        .import(crate::ops::WritePolicy::HTTP)?
        .admit(&crate::ops::Caller::Token(grant.clone()))?;
    let url = match request.input()? {
        Some(crate::ops::import::ImportInput::Url(url)) => Some(url),
        _ => None,
    };
    let label = convert::mind_name(import.mind());
    // A place in the queue first (a 429 before the body is read), then the
    // upload to disk before the job takes an engine, within its own limit
    // (an export is larger than any JSON body), deadline and the quota.
    let client = super::fair::current_client().unwrap_or(Client::Server);
    let place = app.jobs.enqueue(&client)?;
    let (input, name) = match url {
        Some(url) => {
            if axum::body::to_bytes(body, 0).await.is_err() {
                return Err(Problem::bad_request("give a body or ?url=, not both"));
            }
            (Upload::Url(url.clone()), url)
        }
        None => {
            let name = request.name.clone().unwrap_or_else(|| "upload".to_string());
            let declared = headers
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse().ok());
            let upload = app.jobs.spool(body, declared).await?;
            if upload.bytes == 0 {
                return Err(Problem::bad_request(
                    "the body is empty: send the file to import, or give ?url=",
                ));
            }
            (Upload::File(name.clone(), upload), name)
        }
    };
    let owner = grant.name.clone();
    let progress = Progress::hidden();
    let mut view = JobView {
        id: 0,
        mind: label,
        input: name,
        state: JobState::Running,
        done: 0,
        total: None,
        report: None,
        error: None,
    };
    view.id = app.jobs.with(|jobs| {
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
        let mut id = random_id()?;
        while jobs.contains_key(&id) {
            id = random_id()?;
        }
        let mut view = view.clone();
        view.id = id;
        jobs.insert(
            id,
            Job {
                view,
                progress: progress.clone(),
                owner,
            },
        );
        Ok::<_, Problem>(id)
    })?;
    let id = view.id;
    let worker = Arc::clone(&app);
    tokio::spawn(async move {
        let _place = place;
        let _one_at_a_time = worker.jobs.running.lock().await;
        let outcome = worker
            .pool
            .run(move |engine| {
                // The upload is read from its spool file only now, the one
                // job that runs; the file goes when the job is done.
                let input = match input {
                    Upload::Url(url) => Input::Url(url),
                    Upload::File(name, spooled) => match std::fs::read(spooled.file.path()) {
                        Ok(bytes) => Input::Document(Document { name, bytes }),
                        Err(error) => return Err(format!("reading the spooled upload: {error}")),
                    },
                };
                hive_mind_runtime::engine::import::run_job(
                    engine,
                    &[input],
                    import.options(),
                    &progress,
                )
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
    // Another token's job is answered as one that does not exist: its mind
    // is not told, and ids cannot be probed.
    let unknown = || Problem::not_found(format!("no import job {id}"));
    let view = app.jobs.view(id, &grant.name).ok_or_else(unknown)?;
    let mind = crate::ops::resolve_mind_name(&view.mind).map_err(|_| unknown())?;
    crate::ops::Caller::Token(grant)
        .authorize(&crate::ops::Access::read(mind))
        .map_err(|_| unknown())?;
    Ok(Json(view))
}
