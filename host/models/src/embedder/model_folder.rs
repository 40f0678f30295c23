//! # A model folder: what the model says about itself
//!
//! The in-process embedder runs any BERT-style sentence-transformers model,
//! and what differs between them — how token vectors become one text
//! vector, how many tokens the model reads, what a query must be prefixed
//! with — is read from the folder's own sentence-transformers files, never
//! guessed from the model's name:
//!
//! | file | what is read | when absent |
//! |---|---|---|
//! | `modules.json` | the module list: the `Pooling` module's folder, and whether a `Normalize` module follows | error |
//! | `<pooling folder>/config.json` (`1_Pooling/config.json`) | which `pooling_mode_*` is on: `cls_token`, `mean_tokens` or `max_tokens` | error |
//! | `sentence_bert_config.json` | `max_seq_length`, the token window (special tokens included) | error |
//! | `config_sentence_transformers.json` | `prompts`: `{"query": "…", "document": "…"}`, prepended to texts of each kind | no prompts |
//! | `SHA256SUMS` | `sha256sum` lines: the checksum of each file the host reads | nothing is verified |
//!
//! The vectors are always L2-normalised (the store's cosines assume it), so
//! a missing `Normalize` module changes nothing but is worth knowing; it is
//! kept in [`ModelFolder::normalize`] for the status surfaces.
//!
//! The folder's name is the model's name in the fingerprint the store locks
//! its vectors to, so a switch of model is a switch of fingerprint.
//!
//! A file that is there but unreadable, not JSON, or of the wrong shape is a
//! [`ModelError::Invalid`] naming the file and the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::onnx::ModelError;

/// The checksum list inside a model folder (`sha256sum` format).
pub const CHECKSUMS_FILE: &str = "SHA256SUMS";
/// The sentence-transformers module list.
pub const MODULES_FILE: &str = "modules.json";
/// The sentence-transformers window file.
pub const SENTENCE_BERT_FILE: &str = "sentence_bert_config.json";
/// The sentence-transformers prompts file.
pub const PROMPTS_FILE: &str = "config_sentence_transformers.json";
/// The ONNX file names tried, in order: the int8 export this repository
/// names `model_int8.onnx`, the plain `model.onnx`, and the Hugging Face
/// layout's `onnx/model.onnx`.
pub const ONNX_CANDIDATES: [&str; 3] = ["model_int8.onnx", "model.onnx", "onnx/model.onnx"];
/// The tokenizer inside a model folder.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// How a text's token vectors become its one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pooling {
    /// The `[CLS]` token's vector (bge).
    Cls,
    /// The mean of the token vectors where the attention mask is 1 (MiniLM).
    Mean,
    /// The element-wise maximum over the unmasked tokens.
    Max,
}

/// What to prepend to texts of each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Prompts {
    /// Prepended to queries (`prompts.query`).
    pub query: String,
    /// Prepended to documents (`prompts.document`, else `passage`, else none).
    pub document: String,
}

/// A model folder's self-description.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelFolder {
    /// The model's name: the folder's name.
    pub name: String,
    /// The ONNX file.
    pub model_path: PathBuf,
    /// The tokenizer.
    pub tokenizer_path: PathBuf,
    /// The pooling mode.
    pub pooling: Pooling,
    /// The vector size the pooling config declares
    /// (`word_embedding_dimension`), when it does: the embedder's
    /// fingerprint is known from it before the model is loaded, and the
    /// model's output is checked against it at load.
    pub dimensions: Option<usize>,
    /// The token window.
    pub max_tokens: usize,
    /// The prompts per kind.
    pub prompts: Prompts,
    /// Whether `modules.json` ends in a `Normalize` module.
    pub normalize: bool,
    /// SHA-256 per file name (relative to the folder), from `SHA256SUMS`.
    pub checksums: BTreeMap<String, String>,
}

fn invalid(path: &Path, message: impl Into<String>) -> ModelError {
    ModelError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Read a JSON file: `Ok(None)` when it is absent.
fn read_json(path: &Path) -> Result<Option<Value>, ModelError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ModelError::Unreadable {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|error| invalid(path, format!("not valid JSON: {error}")))
}

fn require_json(path: &Path, hint: &str) -> Result<Value, ModelError> {
    read_json(path)?.ok_or_else(|| ModelError::Missing {
        path: path.to_path_buf(),
        hint: format!(
            "A sentence-transformers model folder needs it (see host/models/src/embedder/model_folder.rs). {hint}"
        ),
    })
}

/// Parse `sha256sum` output (`hive_mind_checksums`, the one reader of the
/// format); a malformed line names the file and the line.
pub fn parse_checksums(path: &Path, text: &str) -> Result<BTreeMap<String, String>, ModelError> {
    hive_mind_checksums::parse(text).map_err(|error| invalid(path, error.to_string()))
}

/// The pooling mode of a `1_Pooling/config.json` value (`path` for errors).
pub fn parse_pooling(path: &Path, config: &Value) -> Result<Pooling, ModelError> {
    let Some(object) = config.as_object() else {
        return Err(invalid(
            path,
            "expected a JSON object of pooling_mode_* flags",
        ));
    };
    let mut on = Vec::new();
    for (key, value) in object {
        let Some(mode) = key.strip_prefix("pooling_mode_") else {
            continue;
        };
        match value {
            Value::Bool(true) => on.push(mode),
            Value::Bool(false) | Value::Null => {}
            other => {
                return Err(invalid(
                    path,
                    format!("{key} must be true or false, found {other}"),
                ));
            }
        }
    }
    match on.as_slice() {
        ["cls_token"] => Ok(Pooling::Cls),
        ["mean_tokens"] => Ok(Pooling::Mean),
        ["max_tokens"] => Ok(Pooling::Max),
        [] => Err(invalid(
            path,
            "no pooling_mode_* is true: expected exactly one of pooling_mode_cls_token, \
             pooling_mode_mean_tokens, pooling_mode_max_tokens",
        )),
        [one] => Err(invalid(
            path,
            format!(
                "pooling_mode_{one} is not supported by the in-process embedder \
                 (supported: cls_token, mean_tokens, max_tokens)"
            ),
        )),
        many => Err(invalid(
            path,
            format!(
                "several pooling modes are on ({}): concatenated pooling is not supported; \
                 expected exactly one",
                many.iter()
                    .map(|m| format!("pooling_mode_{m}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The `max_seq_length` of a `sentence_bert_config.json` value.
pub fn parse_window(path: &Path, config: &Value) -> Result<usize, ModelError> {
    match config.get("max_seq_length") {
        Some(Value::Number(n)) => n
            .as_u64()
            .filter(|&n| n >= 2)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                invalid(
                    path,
                    format!(
                        "max_seq_length must be a whole number of at least 2 ([CLS] and [SEP]), found {n}"
                    ),
                )
            }),
        Some(other) => Err(invalid(
            path,
            format!("max_seq_length must be a number, found {other}"),
        )),
        None => Err(invalid(path, "has no max_seq_length (the model's token window)")),
    }
}

/// The prompts of a `config_sentence_transformers.json` value. A missing
/// `prompts` key means none.
pub fn parse_prompts(path: &Path, config: &Value) -> Result<Prompts, ModelError> {
    let prompts = match config.get("prompts") {
        None | Some(Value::Null) => return Ok(Prompts::default()),
        Some(Value::Object(prompts)) => prompts,
        Some(other) => {
            return Err(invalid(
                path,
                format!("prompts must be an object of name → text, found {other}"),
            ));
        }
    };
    let text = |name: &str| -> Result<Option<String>, ModelError> {
        match prompts.get(name) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(invalid(
                path,
                format!("prompts.{name} must be a string, found {other}"),
            )),
        }
    };
    Ok(Prompts {
        query: text("query")?.unwrap_or_default(),
        // sentence-transformers models name the stored side either way.
        document: match text("document")? {
            Some(text) => text,
            None => text("passage")?.unwrap_or_default(),
        },
    })
}

/// The `modules.json` value: the pooling module's folder and whether a
/// `Normalize` module is listed.
pub fn parse_modules(path: &Path, modules: &Value) -> Result<(String, bool), ModelError> {
    let Some(list) = modules.as_array() else {
        return Err(invalid(path, "expected a JSON list of modules"));
    };
    let mut pooling = None;
    let mut normalize = false;
    for module in list {
        let kind = module.get("type").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with(".Pooling") || kind == "Pooling" {
            let folder = module
                .get("path")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(path, "the Pooling module has no \"path\" (its folder)"))?;
            pooling = Some(folder.to_string());
        } else if kind.ends_with(".Normalize") || kind == "Normalize" {
            normalize = true;
        }
    }
    let pooling = pooling.ok_or_else(|| {
        invalid(
            path,
            "lists no sentence_transformers.models.Pooling module: how the token vectors \
             become one vector is unknown",
        )
    })?;
    Ok((pooling, normalize))
}

impl ModelFolder {
    /// Read the folder `dir` (see the module docs). `hint` says how to get
    /// the model; it ends up in missing-file errors.
    pub fn read(dir: &Path, hint: &str) -> Result<ModelFolder, ModelError> {
        let model_path = ONNX_CANDIDATES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.is_file());
        let tokenizer_path = dir.join(TOKENIZER_FILE);
        if !tokenizer_path.is_file() {
            return Err(ModelError::Missing {
                path: tokenizer_path,
                hint: hint.to_string(),
            });
        }
        let Some(model_path) = model_path else {
            return Err(ModelError::Missing {
                path: dir.join(ONNX_CANDIDATES[0]),
                hint: format!(
                    "No ONNX file ({}) in {}. {hint}",
                    ONNX_CANDIDATES.join(", "),
                    dir.display()
                ),
            });
        };
        let modules_path = dir.join(MODULES_FILE);
        let (pooling_dir, normalize) =
            parse_modules(&modules_path, &require_json(&modules_path, hint)?)?;
        let pooling_path = dir.join(&pooling_dir).join("config.json");
        let pooling_config = require_json(&pooling_path, hint)?;
        let pooling = parse_pooling(&pooling_path, &pooling_config)?;
        let dimensions = pooling_config
            .get("word_embedding_dimension")
            .and_then(Value::as_u64)
            .filter(|dimensions| *dimensions > 0)
            .and_then(|dimensions| usize::try_from(dimensions).ok());
        let window_path = dir.join(SENTENCE_BERT_FILE);
        let max_tokens = parse_window(&window_path, &require_json(&window_path, hint)?)?;
        let prompts_path = dir.join(PROMPTS_FILE);
        let prompts = match read_json(&prompts_path)? {
            Some(config) => parse_prompts(&prompts_path, &config)?,
            None => Prompts::default(),
        };
        let sums_path = dir.join(CHECKSUMS_FILE);
        let checksums = match std::fs::read_to_string(&sums_path) {
            Ok(text) => parse_checksums(&sums_path, &text)?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => {
                return Err(ModelError::Unreadable {
                    path: sums_path,
                    source,
                });
            }
        };
        let name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .filter(|name| !name.is_empty())
            .ok_or_else(|| invalid(dir, "a model folder needs a name (it names the model)"))?;
        Ok(ModelFolder {
            name,
            model_path,
            tokenizer_path,
            pooling,
            dimensions,
            max_tokens,
            prompts,
            normalize,
            checksums,
        })
    }

    /// The SHA-256 `SHA256SUMS` gives for `path` (a file of this folder).
    pub fn checksum_of(&self, dir: &Path, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(dir).ok()?;
        let key = relative.to_string_lossy().replace('\\', "/");
        self.checksums.get(&key).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p() -> &'static Path {
        Path::new("m/1_Pooling/config.json")
    }

    #[test]
    fn each_pooling_mode() {
        let mode = |key: &str| {
            let mut config = json!({
                "word_embedding_dimension": 384,
                "pooling_mode_cls_token": false,
                "pooling_mode_mean_tokens": false,
                "pooling_mode_max_tokens": false,
                "pooling_mode_mean_sqrt_len_tokens": false,
            });
            config[key] = json!(true);
            parse_pooling(p(), &config)
        };
        assert_eq!(mode("pooling_mode_cls_token").unwrap(), Pooling::Cls);
        assert_eq!(mode("pooling_mode_mean_tokens").unwrap(), Pooling::Mean);
        assert_eq!(mode("pooling_mode_max_tokens").unwrap(), Pooling::Max);
        let error = mode("pooling_mode_mean_sqrt_len_tokens")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("mean_sqrt_len_tokens") && error.contains("not supported"),
            "{error}"
        );
        assert!(error.contains("1_Pooling/config.json"), "{error}");
        let error = mode("pooling_mode_lasttoken").unwrap_err().to_string();
        assert!(error.contains("lasttoken"), "{error}");
    }

    #[test]
    fn no_or_several_pooling_modes_are_errors() {
        let none = json!({"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false});
        let error = parse_pooling(p(), &none).unwrap_err().to_string();
        assert!(error.contains("no pooling_mode_"), "{error}");
        let both = json!({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true});
        let error = parse_pooling(p(), &both).unwrap_err().to_string();
        assert!(error.contains("several pooling modes"), "{error}");
        let typed = json!({"pooling_mode_cls_token": "yes"});
        let error = parse_pooling(p(), &typed).unwrap_err().to_string();
        assert!(
            error.contains("pooling_mode_cls_token must be true or false"),
            "{error}"
        );
        assert!(parse_pooling(p(), &json!([1])).is_err());
    }

    #[test]
    fn window_and_prompts() {
        let path = Path::new("sentence_bert_config.json");
        assert_eq!(
            parse_window(path, &json!({"max_seq_length": 512, "do_lower_case": true})).unwrap(),
            512
        );
        for bad in [
            json!({}),
            json!({"max_seq_length": "512"}),
            json!({"max_seq_length": 1}),
            json!({"max_seq_length": -3}),
        ] {
            let error = parse_window(path, &bad).unwrap_err().to_string();
            assert!(
                error.contains("sentence_bert_config.json") && error.contains("max_seq_length"),
                "{error}"
            );
        }
        let path = Path::new("config_sentence_transformers.json");
        let bge = json!({"prompts": {"query": "Represent this: ", "document": ""}});
        assert_eq!(
            parse_prompts(path, &bge).unwrap(),
            Prompts {
                query: "Represent this: ".into(),
                document: String::new()
            }
        );
        let e5 = json!({"prompts": {"query": "query: ", "passage": "passage: "}});
        assert_eq!(parse_prompts(path, &e5).unwrap().document, "passage: ");
        assert_eq!(
            parse_prompts(path, &json!({"__version__": {}})).unwrap(),
            Prompts::default()
        );
        let error = parse_prompts(path, &json!({"prompts": {"query": 3}}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("prompts.query must be a string"), "{error}");
    }

    #[test]
    fn modules_and_checksums() {
        let path = Path::new("modules.json");
        let modules = json!([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
        ]);
        assert_eq!(
            parse_modules(path, &modules).unwrap(),
            ("1_Pooling".to_string(), true)
        );
        let error = parse_modules(path, &json!([modules[0].clone()]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("modules.json") && error.contains("Pooling"),
            "{error}"
        );

        let sums = Path::new("SHA256SUMS");
        let hash = "a".repeat(64);
        let parsed = parse_checksums(
            sums,
            &format!("# c\n{hash}  model.onnx\n\n{hash} *tokenizer.json\n"),
        )
        .unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed["tokenizer.json"], hash);
        let error = parse_checksums(sums, "abc  model.onnx\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("SHA256SUMS") && error.contains("line 1"),
            "{error}"
        );
    }

    #[test]
    fn missing_and_malformed_files_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("some-model");
        std::fs::create_dir_all(root.join("1_Pooling")).unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(
            error.contains(TOKENIZER_FILE) && error.contains("HINT"),
            "{error}"
        );
        std::fs::write(root.join(TOKENIZER_FILE), "{}").unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(
            error.contains("model_int8.onnx") && error.contains("No ONNX file"),
            "{error}"
        );
        std::fs::write(root.join("model.onnx"), "x").unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(
            error.contains(MODULES_FILE) && error.contains("missing"),
            "{error}"
        );
        std::fs::write(root.join(MODULES_FILE), "[{").unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(
            error.contains(MODULES_FILE) && error.contains("not valid JSON"),
            "{error}"
        );
        std::fs::write(
            root.join(MODULES_FILE),
            r#"[{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#,
        )
        .unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(error.contains("1_Pooling/config.json"), "{error}");
        std::fs::write(
            root.join("1_Pooling/config.json"),
            r#"{"pooling_mode_cls_token": true}"#,
        )
        .unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(error.contains(SENTENCE_BERT_FILE), "{error}");
        std::fs::write(root.join(SENTENCE_BERT_FILE), r#"{"max_seq_length": 512}"#).unwrap();
        std::fs::write(root.join(PROMPTS_FILE), "nope").unwrap();
        let error = ModelFolder::read(&root, "HINT").unwrap_err().to_string();
        assert!(error.contains(PROMPTS_FILE), "{error}");
        std::fs::write(root.join(PROMPTS_FILE), r#"{"prompts": {"query": "q: "}}"#).unwrap();
        let folder = ModelFolder::read(&root, "HINT").unwrap();
        assert_eq!(folder.name, "some-model");
        assert_eq!(folder.pooling, Pooling::Cls);
        assert_eq!(folder.max_tokens, 512);
        assert_eq!(folder.prompts.query, "q: ");
        assert!(!folder.normalize);
        assert!(folder.checksums.is_empty());
        assert_eq!(folder.model_path, root.join("model.onnx"));
    }
}
