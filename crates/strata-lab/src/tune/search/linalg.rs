//! The little dense linear algebra the Gaussian process needs: a Cholesky
//! factor of a symmetric positive definite matrix and triangular solves.
//! Matrices are `n * n` row-major slices.

/// Replaces the lower triangle of `a` (n x n, symmetric positive definite)
/// with its Cholesky factor `L` (`a = L Lᵀ`) and zeroes the upper triangle;
/// false if `a` is not numerically positive definite.
pub(crate) fn cholesky(a: &mut [f64], n: usize) -> bool {
    debug_assert_eq!(a.len(), n * n);
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
        for k in j + 1..n {
            a[j * n + k] = 0.0;
        }
    }
    true
}

/// Solves `L x = b` for lower-triangular `l`.
pub(crate) fn solve_lower(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut x = b.to_vec();
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= l[i * n + k] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
    x
}

/// Solves `Lᵀ x = b` for lower-triangular `l`.
pub(crate) fn solve_upper_t(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut x = b.to_vec();
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul_t(l: &[f64], n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = (0..n).map(|k| l[i * n + k] * l[j * n + k]).sum();
            }
        }
        out
    }

    #[test]
    fn cholesky_factors_and_solves() {
        let a = vec![4.0, 12.0, -16.0, 12.0, 37.0, -43.0, -16.0, -43.0, 98.0];
        let mut l = a.clone();
        assert!(cholesky(&mut l, 3));
        assert_eq!(
            l,
            vec![2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0],
            "the textbook factor"
        );
        assert_eq!(matmul_t(&l, 3), a);
        // A x = b through L (Lᵀ x) = b.
        let b = [1.0, 2.0, 3.0];
        let x = solve_upper_t(&l, 3, &solve_lower(&l, 3, &b));
        for i in 0..3 {
            let ax: f64 = (0..3).map(|k| a[i * 3 + k] * x[k]).sum();
            assert!((ax - b[i]).abs() < 1e-9, "{ax} {}", b[i]);
        }
    }

    #[test]
    fn cholesky_refuses_an_indefinite_matrix() {
        let mut a = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky(&mut a, 2));
        let mut singular = vec![1.0, 1.0, 1.0, 1.0];
        assert!(!cholesky(&mut singular, 2));
    }
}
