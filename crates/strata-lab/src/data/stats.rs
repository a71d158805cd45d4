//! Summary statistics over repeats and two-sample significance tests.

/// Summary of a sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Summary {
    /// Sample size.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for n < 2).
    pub stddev: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Half-width of the 95% confidence interval (Student t).
    pub ci95: f64,
}

/// Summarises `xs` (ignores NaN); `None` when empty.
pub(crate) fn summarize(xs: &[f64]) -> Option<Summary> {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let stddev = var.sqrt();
    let ci95 = if n > 1 {
        t975(n - 1) * stddev / (n as f64).sqrt()
    } else {
        0.0
    };
    Some(Summary {
        n,
        mean,
        stddev,
        min: v.iter().cloned().fold(f64::MAX, f64::min),
        max: v.iter().cloned().fold(f64::MIN, f64::max),
        ci95,
    })
}

/// Two-sided 97.5% quantile of Student's t with `df` degrees of freedom.
pub(crate) fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        d if d <= 30 => T[d - 1],
        _ => 1.96,
    }
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos approximation (g = 7, n = 9).
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < 1e-300 {
        d = 1e-300;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < 1e-300 { 1e-300 } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < 1e-300 { 1e-300 } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < 1e-300 { 1e-300 } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < 1e-300 { 1e-300 } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-12 {
            break;
        }
    }
    h
}

/// Regularised incomplete beta function I_x(a, b).
pub(crate) fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let bt = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        bt * beta_cf(a, b, x) / a
    } else {
        1.0 - bt * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Two-sided p-value of Welch's t test; 1 when both samples are constant and equal.
pub(crate) fn welch_p(a: &[f64], b: &[f64]) -> f64 {
    let (Some(sa), Some(sb)) = (summarize(a), summarize(b)) else {
        return 1.0;
    };
    if sa.n < 2 || sb.n < 2 {
        return 1.0;
    }
    let va = sa.stddev.powi(2) / sa.n as f64;
    let vb = sb.stddev.powi(2) / sb.n as f64;
    if va + vb == 0.0 {
        return if sa.mean == sb.mean { 1.0 } else { 0.0 };
    }
    let t = (sa.mean - sb.mean) / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va.powi(2) / (sa.n - 1) as f64 + vb.powi(2) / (sb.n - 1) as f64);
    inc_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// Two-sided p-value of the Mann-Whitney U test (exact without ties for
/// small samples, normal approximation with tie correction otherwise).
pub(crate) fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    let mut all: Vec<(f64, usize)> = a
        .iter()
        .map(|x| (*x, 0))
        .chain(b.iter().map(|x| (*x, 1)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut ranks = vec![0.0; all.len()];
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for rk in ranks.iter_mut().take(j + 1).skip(i) {
            *rk = r;
        }
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let r1: f64 = all
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| x.1 == 0)
        .map(|(_, r)| r)
        .sum();
    let u1 = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let u = u1.min((n1 * n2) as f64 - u1);
    if ties == 0.0 && n1 * n2 <= 400 {
        // Exact: count arrangements with U <= u.
        let counts = u_distribution(n1, n2);
        let total: f64 = counts.iter().sum();
        let le: f64 = counts.iter().take(u.floor() as usize + 1).sum();
        return (2.0 * le / total).min(1.0);
    }
    let n = (n1 + n2) as f64;
    let mu = (n1 * n2) as f64 / 2.0;
    let var = (n1 * n2) as f64 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mu).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * normal_sf(z)).min(1.0)
}

/// Frequencies of U = 0..=n1*n2 under the null hypothesis.
fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    // f[i][j] = distribution for sizes i, j; recurrence f(i,j,u) = f(i-1,j,u-j) + f(i,j-1,u).
    let mut f: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); n2 + 1]; n1 + 1];
    for (i, row) in f.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            if i == 0 || j == 0 {
                *cell = {
                    let mut v = vec![0.0; i * j + 1];
                    v[0] = 1.0;
                    v
                };
            }
        }
    }
    for i in 1..=n1 {
        for j in 1..=n2 {
            let mut v = vec![0.0; i * j + 1];
            for (u, slot) in v.iter_mut().enumerate() {
                let a = if u >= j {
                    f[i - 1][j].get(u - j).copied().unwrap_or(0.0)
                } else {
                    0.0
                };
                let b = f[i][j - 1].get(u).copied().unwrap_or(0.0);
                *slot = a + b;
            }
            f[i][j] = v;
        }
    }
    f[n1][n2].clone()
}

/// Upper tail of the standard normal distribution.
fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' erfcc, relative
/// error below 1.2e-7).
pub(crate) fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_known_values() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        assert!((s.stddev - 1.290_994_448_7).abs() < 1e-9);
        assert!((s.ci95 - 3.182 * 1.290_994_448_7 / 2.0).abs() < 1e-9);
        assert_eq!((s.min, s.max), (1.0, 4.0));
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn welch_matches_reference() {
        // t = -2 with 8 degrees of freedom: two-sided p = 0.0805.
        let p = welch_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 4.0, 5.0, 6.0, 7.0]);
        assert!((p - 0.0805).abs() < 0.0005, "{p}");
        assert_eq!(welch_p(&[1.0, 2.0], &[1.0, 2.0]), 1.0);
    }

    #[test]
    fn mann_whitney_exact() {
        // Complete separation of 5 vs 5: p = 2/252.
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 2.0 / 252.0).abs() < 1e-12, "{p}");
        // 3 vs 3 can never reach 0.05.
        assert!(mann_whitney_p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]) > 0.05);
        let same = [3.0, 1.0, 2.0, 5.0];
        assert_eq!(mann_whitney_p(&same, &same), 1.0);
    }
}
