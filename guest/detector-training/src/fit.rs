//! Fitting the logistic regression and quantising it.

use hive_mind_core::detector::model::{Model, feature_value};
use hive_mind_core::detector::{features, windows};

use crate::corpus::Row;

/// A row as the fit sees it: its buckets and label.
pub struct Example {
    buckets: Vec<u32>,
    label: f64,
}

/// The AdaGrad step size.
const LEARNING_RATE: f64 = 0.2;

/// The L2 penalty per update: small, the hashed weights of rare n-grams
/// would otherwise grow on a handful of rows.
const L2: f64 = 1e-6;

/// The features of every row (on both cores: most of the trainer's time).
/// A row longer than one detector window is represented by its first
/// window, as the corpus's texts are cut to a window's length.
pub fn featurise(rows: &[Row], bits: u32) -> Vec<Example> {
    let half = rows.len().div_ceil(2).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .chunks(half)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|row| Example {
                            buckets: features::buckets(
                                windows(&row.text).first().copied().unwrap_or_default(),
                                bits,
                            ),
                            label: f64::from(row.label),
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_default())
            .collect()
    })
}

/// Fit the weights (the last one is the bias): AdaGrad on the logistic
/// loss, classes weighed so each counts as much as the other, rows in a
/// fresh seeded order each pass.
pub fn fit<E: std::borrow::Borrow<Example>>(
    examples: &[E],
    bits: u32,
    epochs: usize,
    seed: u64,
) -> Vec<f64> {
    let size = 1usize << bits;
    let mut weights = vec![0.0f64; size + 1];
    let mut squares = vec![1e-8f64; size + 1];
    let positives = examples
        .iter()
        .filter(|e| e.borrow().label > 0.5)
        .count()
        .max(1) as f64;
    let negatives = (examples.len() as f64 - positives).max(1.0);
    let total = examples.len() as f64;
    let class_weight = |label: f64| {
        if label > 0.5 {
            total / (2.0 * positives)
        } else {
            total / (2.0 * negatives)
        }
    };
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = SplitMix(seed);
    for _ in 0..epochs {
        shuffle(&mut order, &mut rng);
        for &index in &order {
            let Some(example) = examples.get(index).map(E::borrow) else {
                continue;
            };
            let value = feature_value(example.buckets.len());
            let bias = weights.get(size).copied().unwrap_or(0.0);
            let z = bias
                + example
                    .buckets
                    .iter()
                    .map(|&b| weights.get(b as usize).copied().unwrap_or(0.0))
                    .sum::<f64>()
                    * value;
            let p = 1.0 / (1.0 + (-z).exp());
            let gradient = (p - example.label) * class_weight(example.label);
            for index in example
                .buckets
                .iter()
                .map(|&b| b as usize)
                .chain(std::iter::once(size))
            {
                let x = if index == size { 1.0 } else { value };
                if let (Some(w), Some(g2)) = (weights.get_mut(index), squares.get_mut(index)) {
                    let g = gradient * x + L2 * *w;
                    *g2 += g * g;
                    *w -= LEARNING_RATE * g / g2.sqrt();
                }
            }
        }
    }
    weights
}

/// The model file's form of `weights`: `i8` with one scale (the largest
/// weight at ±127), the bias and the threshold kept as floats.
pub fn quantise(weights: &[f64], bits: u32, threshold: f64) -> Model {
    let size = 1usize << bits;
    let body = weights.get(..size).unwrap_or_default();
    let largest = body.iter().fold(0.0f64, |m, w| m.max(w.abs())).max(1e-12);
    let scale = largest / 127.0;
    let quantised = body
        .iter()
        .map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    let bias = weights.get(size).copied().unwrap_or(0.0);
    Model::new(bits, bias as f32, scale as f32, threshold as f32, quantised)
}

/// SplitMix64: a seeded generator, so the shuffles are the same each run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Fisher–Yates.
fn shuffle(order: &mut [usize], rng: &mut SplitMix) {
    for i in (1..order.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
}
