//! Goodness-of-fit helpers for the generator tests.

/// How often each of `n` outcomes comes up in `draws` draws.
pub fn counts(n: usize, draws: usize, mut next: impl FnMut() -> usize) -> Vec<u64> {
    let mut c = vec![0u64; n];
    for _ in 0..draws {
        c[next()] += 1;
    }
    c
}

/// Pearson's chi-square test of `observed` counts against probabilities
/// `p` (outcomes expected fewer than 5 times pooled into one cell), read
/// through the Wilson-Hilferty normal approximation: an error when the
/// fit is rejected at about p < 0.0002 (z > 3.5).
pub fn chi_square_fits(observed: &[u64], p: &[f64]) -> Result<(), String> {
    let total: u64 = observed.iter().sum();
    let (mut chi2, mut cells) = (0.0, 0usize);
    let (mut pool_o, mut pool_e) = (0.0, 0.0);
    for (&o, &pi) in observed.iter().zip(p) {
        let e = pi * total as f64;
        if e < 5.0 {
            pool_o += o as f64;
            pool_e += e;
            continue;
        }
        chi2 += (o as f64 - e).powi(2) / e;
        cells += 1;
    }
    if pool_e > 0.0 {
        chi2 += (pool_o - pool_e).powi(2) / pool_e.max(1e-9);
        cells += 1;
    }
    let df = (cells.max(2) - 1) as f64;
    let z = ((chi2 / df).powf(1.0 / 3.0) - (1.0 - 2.0 / (9.0 * df))) / (2.0 / (9.0 * df)).sqrt();
    if z > 3.5 {
        Err(format!(
            "chi-square {chi2:.1} on {df} degrees of freedom (z = {z:.2})"
        ))
    } else {
        Ok(())
    }
}
