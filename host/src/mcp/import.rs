//! Imports over MCP: what a tool hands the engine (inline data, a URL, a
//! path under the allowed roots read on a blocking thread), the client's
//! roots, and the engine locked one import step at a time so a recall runs
//! while an import is under way.

use super::*;

/// A URL to import, checked for its scheme here (the host's `fetch` checks
/// the addresses it resolves to).
pub(super) fn url_input(url: &str) -> Result<wit_harvest::Input, McpError> {
    if !ops::import::is_url(url) {
        return Err(invalid(format!("{url:?} is not an http(s) URL")));
    }
    Ok(wit_harvest::Input::Url(url.trim().to_string()))
}

/// What an import call hands the engine: an input ready now (inline data,
/// a URL), or a path to resolve and read on the blocking thread.
pub(super) enum Pending {
    /// Inline data or a URL.
    Ready(wit_harvest::Input),
    /// A file or folder an agent named, and the roots it must lie under.
    Path {
        /// The path as given.
        path: String,
        /// The candidate roots (canonicalized on the blocking thread).
        roots: Vec<PathBuf>,
    },
}

/// The roots an agent's paths may lie under: the client's (asked with
/// `roots/list`, cached until `notifications/roots/list_changed`) and the
/// configured ones.
pub(super) struct ImportAccess {
    /// `[mcp] import_roots`.
    pub(super) configured: Vec<PathBuf>,
    /// The `config.toml` refusals point to.
    pub(super) config_path: PathBuf,
    /// The client's roots as last listed, with the [`ImportAccess::generation`]
    /// they were asked in; `None` until asked.
    pub(super) client: tokio::sync::Mutex<Option<(u64, Vec<PathBuf>)>>,
    /// Bumped by every `notifications/roots/list_changed`: a cached list of
    /// an older generation is asked for again.
    pub(super) generation: AtomicU64,
    /// Whether the client's roots count. Over stdio the client runs on the
    /// user's machine and its roots are the user's folders; over HTTP a
    /// client elsewhere would name folders of the server's machine, so
    /// only the configured roots count there.
    pub(super) client_roots: bool,
}

/// The client's roots (`roots/list`) as paths; `None` when the client did
/// not answer in [`ROOTS_TIMEOUT`] or answered with an error.
///
/// Roots are part of MCP 2025-11-25, which this server speaks; a later
/// revision deprecates them (SEP-2577) in favour of server configuration,
/// which `[mcp] import_roots` already is.
#[allow(deprecated)]
pub(super) async fn list_client_roots(peer: &Peer<RoleServer>) -> Option<Vec<PathBuf>> {
    match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(listed)) => Some(
            listed
                .roots
                .iter()
                .filter_map(|root| hive_mind_files::file_uri_path(&root.uri))
                .collect(),
        ),
        Ok(Err(error)) => {
            tracing::warn!("roots/list failed: {error}");
            None
        }
        Err(_) => {
            tracing::warn!("the client did not answer roots/list in time");
            None
        }
    }
}

/// Lock the engine. A trap restarts the engine's instance by itself; a
/// panic on a worker thread poisons the lock instead, and the engine behind
/// it may have stopped mid-call: it gets a fresh instance.
pub(super) fn lock_engine(
    engine: &Mutex<EngineRuntime>,
) -> Result<MutexGuard<'_, EngineRuntime>, String> {
    engine.lock().or_else(|poisoned| {
        engine.clear_poison();
        let mut guard = poisoned.into_inner();
        guard.restart().map_err(|error| error.to_string())?;
        Ok(guard)
    })
}

/// The engine behind its mutex, locked for one call at a time (an import
/// job's steps let other calls in between).
pub(super) struct Locked<'a>(pub(super) &'a Mutex<EngineRuntime>);

/// Why a locked turn failed.
pub(super) enum TurnError {
    /// The engine failed or refused.
    Engine(EngineError),
    /// The mutex was poisoned and the engine could not be restarted.
    Restart(String),
}

/// An import call's failure: a turn's, or the host's refusal to read a file.
pub(super) enum ImportFailure {
    /// A turn failed.
    Turn(TurnError),
    /// The path was refused or could not be read.
    Refused(McpError),
}

impl From<TurnError> for ImportFailure {
    fn from(error: TurnError) -> Self {
        ImportFailure::Turn(error)
    }
}

impl From<ImportFailure> for McpError {
    fn from(failure: ImportFailure) -> Self {
        match failure {
            ImportFailure::Turn(error) => error.into(),
            ImportFailure::Refused(error) => error,
        }
    }
}

impl From<EngineError> for TurnError {
    fn from(error: EngineError) -> Self {
        TurnError::Engine(error)
    }
}

impl From<TurnError> for McpError {
    fn from(error: TurnError) -> Self {
        match error {
            TurnError::Engine(error) => engine_error(error),
            TurnError::Restart(message) => internal(message),
        }
    }
}

impl EngineTurns for Locked<'_> {
    type Error = TurnError;
    fn turn<T>(
        &mut self,
        work: impl FnOnce(&mut EngineRuntime) -> Result<T, EngineError>,
    ) -> Result<T, TurnError> {
        let mut engine = lock_engine(self.0).map_err(TurnError::Restart)?;
        Ok(work(&mut engine)?)
    }
    fn engine_error(error: &TurnError) -> Option<&EngineError> {
        match error {
            TurnError::Engine(error) => Some(error),
            TurnError::Restart(_) => None,
        }
    }
}

/// Run one import call on the blocking thread: the inline input or URL as
/// one job; a path's files read one at a time (capped per file and per
/// call), each its own job, the reports merged. A file the engine cannot
/// parse is reported in its source's `error` when the path named a folder;
/// a single file's failure is the call's.
pub(super) fn import_blocking(
    engine: &Mutex<EngineRuntime>,
    pending: Pending,
    import: &ops::import::Admitted,
    config_path: &std::path::Path,
) -> Result<wit_harvest::ImportReport, McpError> {
    let options = import.options();
    let progress = hive_mind_terminal::Progress::hidden();
    let mut locked = Locked(engine);
    let (path, roots) = match pending {
        Pending::Ready(input) => {
            return Ok(hive_mind_runtime::engine::import::run_job(
                &mut locked,
                &[input],
                options,
                &progress,
            )?);
        }
        Pending::Path { path, roots } => (path, AllowedRoots::new(roots, config_path)),
    };
    let refused = |error: FileAccessError| invalid(error.to_string());
    let files = roots.resolve(&path, MAX_FOLDER_FILES).map_err(refused)?;
    let mut total: u64 = 0;
    let inputs = files.into_iter().map(|file| {
        let left = MAX_CALL_BYTES.saturating_sub(total);
        let bytes = match roots.read(&file, MAX_FILE_BYTES.min(left)) {
            Err(FileAccessError::TooLarge { .. }) if left < MAX_FILE_BYTES => {
                return Err(ImportFailure::Refused(invalid(format!(
                    "{path}: its files hold more than the {MAX_CALL_BYTES} bytes one call reads; import its subfolders one by one"
                ))));
            }
            other => other.map_err(|error| ImportFailure::Refused(refused(error)))?,
        };
        total = total.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        Ok(wit_harvest::Input::Document(wit_harvest::Document {
            name: file.display().to_string(),
            bytes,
        }))
    });
    Ok(hive_mind_runtime::engine::import::import_each(
        &mut locked,
        inputs,
        options,
        &progress,
    )?)
}

impl MemoryServer {
    /// The candidate roots for an agent's path: the configured ones and,
    /// when the client declares the `roots` capability, its roots (asked
    /// with `roots/list` once, and again after each change notice).
    pub(super) async fn root_candidates(&self, peer: &Peer<RoleServer>) -> Vec<PathBuf> {
        let mut roots = self.access.configured.clone();
        let declares = self.access.client_roots
            && peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
        if !declares {
            return roots;
        }
        let mut cached = self.access.client.lock().await;
        let generation = self.access.generation.load(Ordering::SeqCst);
        match cached.as_ref() {
            Some((asked_in, paths)) if *asked_in == generation => {
                roots.extend(paths.iter().cloned());
            }
            _ => {
                if let Some(paths) = list_client_roots(peer).await {
                    roots.extend(paths.iter().cloned());
                    *cached = Some((generation, paths));
                }
            }
        }
        roots
    }

    /// Run an import to the end on a blocking thread (the engine locked one
    /// step at a time); its report as the tool's result.
    pub(super) async fn harvest(
        &self,
        pending: Pending,
        import: ops::import::Import,
    ) -> Result<CallToolResult, McpError> {
        // MCP imports into a mind that is there (create_workspace makes
        // one; [`ops::WritePolicy::AGENT`]), so a mistyped workspace is an
        // error, not a new mind.
        let import = self.run_op(import, |_, admitted| Ok(admitted)).await?;
        let name = mind_name(import.mind());
        let engine = Arc::clone(&self.engine);
        let access = Arc::clone(&self.access);
        let report = tokio::task::spawn_blocking(move || {
            import_blocking(&engine, pending, &import, &access.config_path)
        })
        .await
        .map_err(|error| internal(format!("the tool's worker failed: {error}")))??;
        let mut value = crate::harvest_cli::report_json(&report);
        if let Some(object) = value.as_object_mut() {
            object.insert("mind".to_string(), json!(name));
        }
        Ok(json_result(value))
    }

    /// Run an import request (`harvest_import`, `ingest_source`).
    pub(super) async fn import_request(
        &self,
        request: ops::import::ImportRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let import = request.import(ops::WritePolicy::AGENT).map_err(op_error)?;
        let pending = match request.input().map_err(op_error)? {
            None => {
                return Err(invalid(
                    "give exactly one of path, data or url (the thing to import)",
                ));
            }
            Some(ops::import::ImportInput::Url(url)) => Pending::Ready(url_input(&url)?),
            Some(ops::import::ImportInput::Data(data)) => {
                Pending::Ready(wit_harvest::Input::Document(wit_harvest::Document {
                    name: request.name.clone().unwrap_or_else(|| "data".to_string()),
                    bytes: data.into_bytes(),
                }))
            }
            Some(ops::import::ImportInput::Path(path)) => {
                self.path_import(path, &context.peer).await?
            }
        };
        self.harvest(pending, import).await
    }

    /// An import of the path an agent named, checked on the blocking
    /// thread against the roots of this moment.
    pub(super) async fn path_import(
        &self,
        path: String,
        peer: &Peer<RoleServer>,
    ) -> Result<Pending, McpError> {
        if path.trim().is_empty() {
            return Err(invalid("path is empty"));
        }
        let roots = self.root_candidates(peer).await;
        Ok(Pending::Path { path, roots })
    }
}
