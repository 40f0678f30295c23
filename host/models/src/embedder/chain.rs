//! # The provider chain: which embedder is active
//!
//! [`resolve`] turns an [`EmbedderConfig`] into the active embedder:
//!
//! - **A named provider** (`provider = "ollama"`, `HIVE_MIND_EMBEDDER=voyage`,
//!   …) is the only one tried; if it does not work, that is the error — the
//!   user asked for it, so nothing else is silently substituted.
//! - **`auto`** (the default) probes in order **in-process → Ollama → Voyage
//!   → OpenAI-compatible** and halts at the first that embeds a probe text.
//!   Voyage is skipped without an API key, the OpenAI-compatible server
//!   without a key or a configured base URL (there is no point asking
//!   api.openai.com anonymously).
//! - **The mock is never probed.** It exists only when chosen by name, and
//!   [`ActiveEmbedder::status_lines`] then says, loudly, that recall will
//!   rank at random.
//!
//! Every attempt is kept in [`ActiveEmbedder::attempts`] (and in the
//! [`EmbedError::Unavailable`] message when all fail), so `hive-mind embed
//! --status` can show why the chain ended where it did.
//!
//! The in-process model is loaded once per process and shared
//! ([`shared_in_process`]), and only when something is embedded: its
//! fingerprint (name, and the dimension its folder declares) is known from
//! the folder, so a command that embeds nothing — `status`, `export`, a
//! review, a forget by reference — never pays for planning the model
//! (measured: 1.2 s of each such command in a debug build, about 0.3 s in a
//! release one). The folder's files are checked at once (a missing file is
//! an error now); a model that cannot be loaded fails the first embedding
//! with the load's own message. A folder that declares no dimension is
//! loaded at once, as before.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::config::{EmbedderConfig, InProcessConfig, ProviderChoice};
use super::in_process::{self, InProcessEmbedder, LoadOptions, MODEL_HINT, ModelSpec};
use super::model_folder::TOKENIZER_FILE;
use super::{
    EmbedError, Embedded, Embedder, EmbedderInfo, InputKind, MockEmbedder, ollama, openai, voyage,
};
use crate::onnx::ModelError;

/// What happened when the chain tried one provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It worked and is the active embedder.
    Active(EmbedderInfo),
    /// It was tried and failed; why.
    Failed(String),
    /// It was not tried; why.
    Skipped(String),
}

/// One provider the chain considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The provider name.
    pub provider: &'static str,
    /// What happened.
    pub outcome: Outcome,
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Active(info) => write!(f, "{}: active ({info})", self.provider),
            Outcome::Failed(why) => write!(f, "{}: failed ({why})", self.provider),
            Outcome::Skipped(why) => write!(f, "{}: skipped ({why})", self.provider),
        }
    }
}

/// The embedder the chain settled on, and how.
#[derive(Clone)]
pub struct ActiveEmbedder {
    /// The embedder; cheap to clone and share.
    pub embedder: Arc<dyn Embedder>,
    /// Its fingerprint.
    pub info: EmbedderInfo,
    /// What the config asked for.
    pub choice: ProviderChoice,
    /// Every provider considered, in order.
    pub attempts: Vec<Attempt>,
}

impl fmt::Debug for ActiveEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActiveEmbedder")
            .field("info", &self.info)
            .field("choice", &self.choice)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl ActiveEmbedder {
    /// A human report of the active embedder, for `status` surfaces. The
    /// mock is announced loudly: recall over it ranks at random.
    pub fn status_lines(&self) -> Vec<String> {
        let how = match self.choice {
            ProviderChoice::Auto => "chosen by auto-probe",
            _ => "chosen by configuration",
        };
        let mut lines = Vec::new();
        if self.info.is_mock() {
            lines.push(format!(
                "embedder: !!! MOCK ({}, {}-d) — vectors carry NO meaning; recall ranks at RANDOM !!!",
                self.info.model, self.info.dimensions
            ));
            lines.push(
                "          (selected explicitly; unset HIVE_MIND_EMBEDDER=mock or \
                 `provider = \"mock\"` for real embeddings)"
                    .to_string(),
            );
        } else {
            lines.push(format!("embedder: {} — {how}", self.info));
        }
        for attempt in &self.attempts {
            lines.push(format!("  {attempt}"));
        }
        lines
    }
}

/// The in-process model folder: `model_dir` when configured, else the
/// first of the search folders (the `models/` folders) that holds a folder
/// named `model` (default [`in_process::DEFAULT_MODEL`]) with a tokenizer.
pub fn in_process_spec(config: &InProcessConfig) -> Result<ModelSpec, ModelError> {
    if let Some(dir) = &config.model_dir {
        return ModelSpec::from_dir(dir);
    }
    let name = config.model.as_deref().unwrap_or(in_process::DEFAULT_MODEL);
    let mut candidates: Vec<PathBuf> = config
        .search_dirs
        .iter()
        .map(|dir| dir.join(name))
        .collect();
    if candidates.is_empty() {
        candidates.push(in_process::repository_models_dir().join(name));
    }
    if let Some(dir) = candidates
        .iter()
        .find(|dir| dir.join(TOKENIZER_FILE).is_file())
    {
        return ModelSpec::from_dir(dir);
    }
    let looked: Vec<String> = candidates
        .iter()
        .map(|dir| dir.display().to_string())
        .collect();
    Err(ModelError::Missing {
        path: candidates
            .first()
            .cloned()
            .unwrap_or_else(|| PathBuf::from(name)),
        hint: format!(
            "No model folder {name:?} (with a {TOKENIZER_FILE}) in: {}. {MODEL_HINT}",
            looked.join(", ")
        ),
    })
}

type Loaded = Vec<(ModelSpec, usize, Arc<InProcessEmbedder>)>;

/// Load the in-process model once per process: later calls with the same
/// spec get the same instance.
pub fn shared_in_process(
    spec: &ModelSpec,
    batch_size: Option<usize>,
) -> Result<Arc<InProcessEmbedder>, ModelError> {
    static LOADED: Mutex<Loaded> = Mutex::new(Vec::new());
    let options = LoadOptions {
        batch_size: batch_size.unwrap_or(in_process::DEFAULT_BATCH_SIZE),
        ..LoadOptions::default()
    };
    // Holding the lock while loading makes concurrent first calls wait for
    // one load instead of racing to do several.
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, _, embedder)) = loaded
        .iter()
        .find(|(s, b, _)| s == spec && *b == options.batch_size)
    {
        return Ok(Arc::clone(embedder));
    }
    let embedder = Arc::new(InProcessEmbedder::load_with(spec, options)?);
    loaded.push((spec.clone(), options.batch_size, Arc::clone(&embedder)));
    Ok(embedder)
}

/// The in-process model, loaded on its first embedding (see the module
/// docs); everything it answers before that comes from its folder.
struct InProcessOnFirstUse {
    spec: ModelSpec,
    batch_size: Option<usize>,
    dimensions: usize,
    loaded: std::sync::OnceLock<Result<Arc<InProcessEmbedder>, String>>,
}

impl InProcessOnFirstUse {
    fn model(&self) -> Result<&InProcessEmbedder, EmbedError> {
        match self.loaded.get_or_init(|| {
            shared_in_process(&self.spec, self.batch_size).map_err(|error| error.to_string())
        }) {
            Ok(model) => Ok(model),
            Err(why) => Err(EmbedError::Unavailable(format!(
                "the in-process model {} could not be loaded: {why}",
                self.spec.name
            ))),
        }
    }
}

impl Embedder for InProcessOnFirstUse {
    fn info(&self) -> EmbedderInfo {
        EmbedderInfo {
            provider: in_process::PROVIDER.to_string(),
            model: self.spec.name.clone(),
            dimensions: u32::try_from(self.dimensions).unwrap_or(u32::MAX),
        }
    }

    fn token_window(&self) -> u32 {
        u32::try_from(self.spec.max_tokens).unwrap_or(u32::MAX)
    }

    fn embed_marked(&self, texts: &[String]) -> Result<Embedded, EmbedError> {
        self.model()?.embed_marked(texts)
    }

    fn embed_marked_as(&self, texts: &[String], kind: InputKind) -> Result<Embedded, EmbedError> {
        self.model()?.embed_marked_as(texts, kind)
    }
}

/// The in-process embedder for `config`: on first use when its folder
/// declares its dimension, else loaded now.
fn in_process_embedder(config: &InProcessConfig) -> Result<Arc<dyn Embedder>, ModelError> {
    let spec = in_process_spec(config)?;
    match spec.dimensions {
        Some(dimensions) => Ok(Arc::new(InProcessOnFirstUse {
            spec,
            batch_size: config.batch_size,
            dimensions,
            loaded: std::sync::OnceLock::new(),
        })),
        None => Ok(shared_in_process(&spec, config.batch_size)? as Arc<dyn Embedder>),
    }
}

fn try_provider(
    choice: ProviderChoice,
    config: &EmbedderConfig,
    auto: bool,
) -> (&'static str, Result<Arc<dyn Embedder>, Outcome>) {
    match choice {
        ProviderChoice::InProcess | ProviderChoice::Auto => {
            let result = in_process_embedder(&config.in_process)
                .map_err(|error| Outcome::Failed(error.to_string()));
            (in_process::PROVIDER, result)
        }
        ProviderChoice::Ollama => (
            ollama::PROVIDER,
            ollama::connect(&config.ollama, &config.http())
                .map(|e| Arc::new(e) as Arc<dyn Embedder>)
                .map_err(|e| Outcome::Failed(reason(&e))),
        ),
        ProviderChoice::Voyage => {
            if config.voyage.api_key.is_none() {
                return (
                    voyage::PROVIDER,
                    Err(skip_or_fail(auto, "no API key (set VOYAGE_API_KEY)")),
                );
            }
            (
                voyage::PROVIDER,
                voyage::connect(&config.voyage, &config.http())
                    .map(|e| Arc::new(e) as Arc<dyn Embedder>)
                    .map_err(|e| Outcome::Failed(reason(&e))),
            )
        }
        ProviderChoice::Openai => {
            if auto && config.openai.api_key.is_none() && !config.openai.base_url_configured {
                return (
                    openai::PROVIDER,
                    Err(Outcome::Skipped(
                        "neither OPENAI_API_KEY nor OPENAI_BASE_URL is set".into(),
                    )),
                );
            }
            (
                openai::PROVIDER,
                openai::connect(&config.openai, &config.http())
                    .map(|e| Arc::new(e) as Arc<dyn Embedder>)
                    .map_err(|e| Outcome::Failed(reason(&e))),
            )
        }
        ProviderChoice::Mock => (
            super::mock::PROVIDER,
            Ok(Arc::new(MockEmbedder::new(config.mock.dimensions)) as Arc<dyn Embedder>),
        ),
    }
}

fn skip_or_fail(auto: bool, why: &str) -> Outcome {
    if auto {
        Outcome::Skipped(why.to_string())
    } else {
        Outcome::Failed(why.to_string())
    }
}

/// The message of an error without its variant's prefix.
fn reason(error: &EmbedError) -> String {
    match error {
        EmbedError::Unavailable(message) | EmbedError::Failed(message) => message.clone(),
    }
}

/// Choose the active embedder (see the module docs).
pub fn resolve(config: &EmbedderConfig) -> Result<ActiveEmbedder, EmbedError> {
    let (auto, order): (bool, Vec<ProviderChoice>) = match config.provider {
        ProviderChoice::Auto => (
            true,
            vec![
                ProviderChoice::InProcess,
                ProviderChoice::Ollama,
                ProviderChoice::Voyage,
                ProviderChoice::Openai,
            ],
        ),
        named => (false, vec![named]),
    };
    let mut attempts = Vec::new();
    for choice in order {
        let (provider, result) = try_provider(choice, config, auto);
        match result {
            Ok(embedder) => {
                let info = embedder.info();
                attempts.push(Attempt {
                    provider,
                    outcome: Outcome::Active(info.clone()),
                });
                if info.is_mock() {
                    tracing::warn!(
                        "the MOCK embedder is active: vectors carry no meaning and recall ranks at random"
                    );
                }
                return Ok(ActiveEmbedder {
                    embedder,
                    info,
                    choice: config.provider,
                    attempts,
                });
            }
            Err(outcome) => {
                tracing::info!(provider, ?outcome, "embedding provider not used");
                attempts.push(Attempt { provider, outcome });
            }
        }
    }
    let tried: Vec<String> = attempts.iter().map(ToString::to_string).collect();
    Err(EmbedError::Unavailable(format!(
        "{}. Configure a provider in $HIVE_MIND_HOME/config.toml [embedder] or with \
         HIVE_MIND_EMBEDDER (see README, \"Embeddings\").",
        tried.join("; ")
    )))
}
