//! Vector arithmetic the pure logic shares: the cosine of two embeddings
//! (recall's change detection, the wiki's topic coherence).

/// The cosine of two vectors (0 for empty or mismatched ones, or a zero
/// vector).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na <= 0.0 || nb <= 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The mean cosine of every pair among `vectors` (0 for fewer than two).
pub fn mean_pairwise_cosine(vectors: &[&[f32]]) -> f64 {
    let mut sum = 0.0;
    let mut pairs = 0u64;
    for (at, a) in vectors.iter().enumerate() {
        for b in vectors.iter().skip(at + 1) {
            sum += cosine(a, b);
            pairs += 1;
        }
    }
    if pairs == 0 { 0.0 } else { sum / pairs as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosines_of_alike_opposite_and_broken_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-9);
        assert!((cosine(&[1.0, 0.0], &[-1.0, 0.0]) + 1.0).abs() < 1e-9);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        let (a, b, c): (&[f32], &[f32], &[f32]) = (&[1.0, 0.0], &[1.0, 0.0], &[0.0, 1.0]);
        assert!((mean_pairwise_cosine(&[a, b, c]) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(mean_pairwise_cosine(&[a]), 0.0);
    }
}
