//! `train-change-judge`: trains the change judge the engine ships
//! (`models/change-judge/<embedder>.json`, read by
//! [`hive_mind_core::heads`]): does a newer statement replace an older one
//! ("we finally moved to Porto" after "I live in Lisbon"), or do both stay
//! true (two trips; my sister's city and my brother's)?
//!
//! ```text
//! HIVE_MIND_IN_PROCESS_MODEL=bge-small-en-v1.5 cargo run --release -p hive-mind-head-training -- \
//!     guest/head-training/data/train-*.jsonl --out models/change-judge \
//!     --validate host/lab/data/timelines-a.jsonl
//! ```
//!
//! The data (`guest/head-training/data/`, the timelines format of
//! `host/lab/data/README.md`) was written for the project by four writers
//! working apart, each on its own themes and style; none saw the lab's
//! timelines files. Three kinds of pairs come from it ([`PairKind`]):
//!
//! - **replacing**: a timeline's statement and every later one;
//! - **both stay**: a negative pair, written to tempt a careless rule;
//! - **neighbours**: a statement and the [`NEIGHBOURS`] most similar earlier
//!   statements of *other* lines of its file. The engine judges a new
//!   memory against its nearest neighbours in a mind, most of which are
//!   about something else; a judge that never saw such pairs calls many of
//!   them replacements.
//!
//! 1. **Embed** every statement with the configured in-process embedder,
//!    as the engine embeds a memory (documents, normalised).
//! 2. **Validate by held-out source**: for each data file, fit on the
//!    others and score it ([`fit`]). The thresholds are read off these
//!    held-out scores, each the higher of two: `sure` is passed by at most
//!    [`SURE_FALSE_ALARMS`] of the held-out both-stay pairs and
//!    [`SURE_NEIGHBOUR_ALARMS`] of the neighbours, `likely` and `possible`
//!    likewise by their two rates (a new memory meets several neighbours,
//!    so their rates are lower).
//! 3. **Fit** on every file and write the head, with the report in it.
//! 4. **Report** the held-out figures per source and on `--validate`
//!    files (never fitted or thresholded on).
//!
//! Deterministic: full-batch optimisation from zero weights, no threads,
//! no random order, so the same data and embedder give the same file.

mod fit;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Parser;
use hive_mind_core::heads::{HeadThresholds, PAIR_FEATURES, PairHead, pair_features};
use serde::Deserialize;

/// The share of held-out both-stay pairs `sure` lets through.
pub const SURE_FALSE_ALARMS: f64 = 0.01;

/// The share of held-out neighbour pairs `sure` lets through.
pub const SURE_NEIGHBOUR_ALARMS: f64 = 0.002;

/// The share of held-out both-stay pairs `likely` lets through.
pub const LIKELY_FALSE_ALARMS: f64 = 0.05;

/// The share of held-out neighbour pairs `likely` lets through.
pub const LIKELY_NEIGHBOUR_ALARMS: f64 = 0.01;

/// The share of held-out both-stay pairs `possible` lets through.
pub const POSSIBLE_FALSE_ALARMS: f64 = 0.20;

/// The share of held-out neighbour pairs `possible` lets through.
pub const POSSIBLE_NEIGHBOUR_ALARMS: f64 = 0.05;

/// Earlier statements of other lines paired with each statement as
/// negatives (see the module docs).
pub const NEIGHBOURS: usize = 5;

/// The weight of a neighbour pair in the fit, against 1 for the others:
/// there are twenty times as many of them as of both-stay pairs, and at
/// full weight the judge learns "different subject" and little of "both
/// true" (held-out AUC against the both-stay pairs fell from 0.78 to 0.75;
/// 0.2 keeps both).
pub const NEIGHBOUR_WEIGHT: f64 = 0.2;

/// Texts embedded per call.
const BATCH: usize = 32;

#[derive(Debug, Parser)]
#[command(about = "Train hive-mind's change judge and report its validation by held-out source")]
struct Args {
    /// The training files (timelines format); each is one source.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// The folder the head is written to, as `<embedder model>.json`.
    #[arg(long, default_value = "models/change-judge")]
    out: PathBuf,
    /// Files scored with the final head, never trained or thresholded on.
    #[arg(long)]
    validate: Vec<PathBuf>,
    /// The inverse strength of the L2 penalty (larger: a closer fit).
    #[arg(long, default_value_t = fit::DEFAULT_C)]
    c: f64,
    /// The data directory whose config selects the embedder (default:
    /// $HIVE_MIND_HOME, else ~/.hive-mind).
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

/// One line of a timelines file, as far as training reads it.
#[derive(Debug, Deserialize)]
struct Line {
    #[serde(default)]
    negative: bool,
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
struct Step {
    at: String,
    text: String,
}

/// What a training pair is (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairKind {
    /// The newer statement replaces the older.
    Replacing,
    /// Both stay true.
    BothStay,
    /// Statements of two different lines: different facts.
    Neighbours,
}

/// An (older, newer) pair.
#[derive(Debug, Clone)]
pub struct Pair {
    older: String,
    newer: String,
    kind: PairKind,
}

/// A statement of a file: when, what, and which line said it.
struct Said {
    at: String,
    text: String,
    line: usize,
}

/// The lines' own pairs of one file and its statements.
fn read_file(path: &Path) -> Result<(Vec<Pair>, Vec<Said>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut pairs = Vec::new();
    let mut said = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() || raw.trim_start().starts_with("//") {
            continue;
        }
        let line: Line = serde_json::from_str(raw)
            .with_context(|| format!("{}:{}: not a timeline", path.display(), index + 1))?;
        if line.steps.len() < 2 {
            bail!("{}:{}: needs two statements", path.display(), index + 1);
        }
        let kind = if line.negative {
            PairKind::BothStay
        } else {
            PairKind::Replacing
        };
        for (at, older) in line.steps.iter().enumerate() {
            for newer in line.steps.iter().skip(at + 1) {
                pairs.push(Pair {
                    older: older.text.clone(),
                    newer: newer.text.clone(),
                    kind,
                });
            }
            said.push(Said {
                at: older.at.clone(),
                text: older.text.clone(),
                line: index,
            });
        }
    }
    Ok((pairs, said))
}

/// The neighbour pairs of a file's statements: each with the
/// [`NEIGHBOURS`] most similar earlier statements of other lines (RFC 3339
/// times in UTC compare as strings).
fn neighbours(said: &[Said], vectors: &BTreeMap<String, Vec<f32>>) -> Vec<Pair> {
    let mut order: Vec<&Said> = said.iter().collect();
    order.sort_by(|a, b| (&a.at, &a.text).cmp(&(&b.at, &b.text)));
    let mut pairs = Vec::new();
    for (at, newer) in order.iter().enumerate() {
        let Some(new_vector) = vectors.get(&newer.text) else {
            continue;
        };
        let mut near: Vec<(f64, &Said)> = order
            .iter()
            .take(at)
            .filter(|older| older.line != newer.line)
            .filter_map(|older| {
                let vector = vectors.get(&older.text)?;
                Some((hive_mind_core::vectors::cosine(vector, new_vector), *older))
            })
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        pairs.extend(near.into_iter().take(NEIGHBOURS).map(|(_, older)| Pair {
            older: older.text.clone(),
            newer: newer.text.clone(),
            kind: PairKind::Neighbours,
        }));
    }
    pairs
}

/// A source: its name and its pairs' features and kinds.
struct Source {
    name: String,
    features: Vec<Vec<f64>>,
    kinds: Vec<PairKind>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dir = args.data_dir.clone().unwrap_or_else(|| {
        hive_mind_models::config::hive_mind_home(&hive_mind_models::config::process_env)
    });
    let config = hive_mind_models::config::Config::load_in(&dir)?;
    let active = hive_mind_models::embedder::resolve(&config.embedder)?;
    let info = active.embedder.info();
    if info.is_mock() {
        bail!("the mock embedder is active: its vectors mean nothing to train on");
    }
    eprintln!("embedder: {} ({}-d)", info.model, info.dimensions);
    let mut vectors: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    let mut read = |paths: &[PathBuf]| -> Result<Vec<(String, Vec<Pair>)>> {
        let mut out = Vec::new();
        for path in paths {
            let (mut pairs, said) = read_file(path)?;
            let missing: Vec<String> = said
                .iter()
                .map(|s| s.text.clone())
                .filter(|text| !vectors.contains_key(text))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            for batch in missing.chunks(BATCH) {
                let embedded = active.embedder.embed(batch)?;
                for (text, vector) in batch.iter().zip(embedded) {
                    vectors.insert(text.clone(), vector);
                }
            }
            pairs.extend(neighbours(&said, &vectors));
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            out.push((name, pairs));
        }
        Ok(out)
    };
    let train = read(&args.data)?;
    let validate = read(&args.validate)?;
    let source = |(name, pairs): &(String, Vec<Pair>)| -> Result<Source> {
        let mut features = Vec::new();
        let mut kinds = Vec::new();
        for pair in pairs {
            let (Some(a), Some(b)) = (vectors.get(&pair.older), vectors.get(&pair.newer)) else {
                bail!("a statement of {name} was not embedded");
            };
            features.push(pair_features(a, b).context("vectors of different lengths")?);
            kinds.push(pair.kind);
        }
        Ok(Source {
            name: name.clone(),
            features,
            kinds,
        })
    };
    let train: Vec<Source> = train.iter().map(source).collect::<Result<_>>()?;
    let validate: Vec<Source> = validate.iter().map(source).collect::<Result<_>>()?;

    // 2. Held out by source.
    let mut held_out: Vec<(f64, PairKind)> = Vec::new();
    let mut per_source = Vec::new();
    for (index, left_out) in train.iter().enumerate() {
        let (features, kinds) = gather(
            train
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != index)
                .map(|(_, source)| source),
        );
        let model = fit::fit(&features, &labels_of(&kinds), &weights_of(&kinds), args.c);
        let scored = scored(&model, left_out);
        per_source.push((left_out.name.clone(), scored.clone()));
        held_out.extend(scored);
    }
    let cut = |both_stay: f64, neighbours: f64| {
        let against = |kind: PairKind| -> Vec<(f64, bool)> {
            held_out
                .iter()
                .filter(|(_, k)| *k == kind || *k == PairKind::Replacing)
                .map(|(p, k)| (*p, *k == PairKind::Replacing))
                .collect()
        };
        fit::threshold_at(&against(PairKind::BothStay), both_stay).max(fit::threshold_at(
            &against(PairKind::Neighbours),
            neighbours,
        ))
    };
    let thresholds = HeadThresholds {
        sure: cut(SURE_FALSE_ALARMS, SURE_NEIGHBOUR_ALARMS),
        likely: cut(LIKELY_FALSE_ALARMS, LIKELY_NEIGHBOUR_ALARMS),
        possible: cut(POSSIBLE_FALSE_ALARMS, POSSIBLE_NEIGHBOUR_ALARMS),
    };

    // 3. The final fit.
    let (features, kinds) = gather(train.iter());
    let labels = labels_of(&kinds);
    let model = fit::fit(&features, &labels, &weights_of(&kinds), args.c);

    // 4. Report.
    let mut rows = Vec::new();
    for (name, scored) in &per_source {
        rows.push(fit::Figures::of(
            &format!("held out: {name}"),
            scored,
            thresholds,
        ));
    }
    rows.push(fit::Figures::of("held out: all", &held_out, thresholds));
    for source in &validate {
        let scored = scored(&model, source);
        rows.push(fit::Figures::of(
            &format!("validation: {}", source.name),
            &scored,
            thresholds,
        ));
    }
    let head = PairHead {
        head: "change-judge".into(),
        embedder: info.model.clone(),
        dimensions: usize::try_from(info.dimensions)?,
        features: PAIR_FEATURES.into(),
        weights: model.weights.iter().map(|w| fit::round(*w)).collect(),
        bias: fit::round(model.bias),
        thresholds: HeadThresholds {
            sure: fit::round(thresholds.sure),
            likely: fit::round(thresholds.likely),
            possible: fit::round(thresholds.possible),
        },
        report: serde_json::json!({
            "trained-on": train.iter().map(|s| &s.name).collect::<Vec<_>>(),
            "pairs": labels.len(),
            "replacing-pairs": labels.iter().filter(|l| **l).count(),
            "c": args.c,
            "figures": rows,
        }),
    };
    std::fs::create_dir_all(&args.out)?;
    let file = args.out.join(format!("{}.json", info.model));
    std::fs::write(&file, serde_json::to_string(&head)? + "\n")
        .with_context(|| format!("writing {}", file.display()))?;
    println!("{}", fit::Figures::table(&rows));
    println!(
        "thresholds: sure {:.3} · likely {:.3} · possible {:.3}\nwrote {}",
        head.thresholds.sure,
        head.thresholds.likely,
        head.thresholds.possible,
        file.display()
    );
    Ok(())
}

/// Each pair of `source` scored by `model`, with its kind.
fn scored(model: &fit::Model, source: &Source) -> Vec<(f64, PairKind)> {
    source
        .features
        .iter()
        .zip(&source.kinds)
        .map(|(x, &kind)| (model.probability(x), kind))
        .collect()
}

/// The features and kinds of some sources, concatenated.
fn gather<'a>(sources: impl Iterator<Item = &'a Source>) -> (Vec<Vec<f64>>, Vec<PairKind>) {
    let mut features = Vec::new();
    let mut kinds = Vec::new();
    for source in sources {
        features.extend(source.features.iter().cloned());
        kinds.extend(source.kinds.iter().copied());
    }
    (features, kinds)
}

/// Each pair's weight in the fit ([`NEIGHBOUR_WEIGHT`]).
fn weights_of(kinds: &[PairKind]) -> Vec<f64> {
    kinds
        .iter()
        .map(|k| {
            if *k == PairKind::Neighbours {
                NEIGHBOUR_WEIGHT
            } else {
                1.0
            }
        })
        .collect()
}

/// Whether each pair replaces: the label the fit learns.
fn labels_of(kinds: &[PairKind]) -> Vec<bool> {
    kinds.iter().map(|k| *k == PairKind::Replacing).collect()
}
