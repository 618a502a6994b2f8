//! Just enough dense linear algebra for Newton's method on ratings.
//!
//! The negative Hessian of the rating likelihood is symmetric positive
//! definite and at most a few hundred rows wide (one row per bot), so a
//! plain row-major Cholesky factorisation is both the simplest and the
//! fastest tool; pulling in a linear-algebra crate would buy nothing.

/// A square matrix stored row-major.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matrix {
    n: usize,
    data: Vec<f64>,
}

impl Matrix {
    pub(crate) fn zeros(n: usize) -> Self {
        Self {
            n,
            data: vec![0.0; n * n],
        }
    }

    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.n + j]
    }

    pub(crate) fn add(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.n + j] += value;
    }

    /// Adds `value` to every entry.
    pub(crate) fn add_to_all(&mut self, value: f64) {
        self.data.iter_mut().for_each(|x| *x += value);
    }

    pub(crate) fn trace(&self) -> f64 {
        (0..self.n).map(|i| self.get(i, i)).sum()
    }

    /// `self * v`.
    pub(crate) fn mul_vec(&self, v: &[f64]) -> Vec<f64> {
        self.data.chunks_exact(self.n).map(|row| dot(row, v)).collect()
    }

    /// The Cholesky factor `L` (`self = L Lᵀ`), or `None` when the matrix
    /// is not numerically positive definite.
    pub(crate) fn cholesky(&self) -> Option<Cholesky> {
        let n = self.n;
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let partial = dot(&l[i * n..i * n + j], &l[j * n..j * n + j]);
                let value = self.get(i, j) - partial;
                if i == j {
                    if !(value > 0.0 && value.is_finite()) {
                        return None;
                    }
                    l[i * n + i] = value.sqrt();
                } else {
                    l[i * n + j] = value / l[j * n + j];
                }
            }
        }
        Some(Cholesky { n, l })
    }
}

/// A Cholesky factorisation, for solving and inverting.
#[derive(Debug, Clone)]
pub(crate) struct Cholesky {
    n: usize,
    l: Vec<f64>,
}

impl Cholesky {
    /// Solves `A x = b`.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut x = b.to_vec();
        for i in 0..n {
            let row = &self.l[i * n..i * n + i];
            x[i] = (x[i] - dot(row, &x[..i])) / self.l[i * n + i];
        }
        for i in (0..n).rev() {
            // Column i of L below the diagonal, against the solved tail.
            let below = self.l[i * n + i..].iter().step_by(n).skip(1);
            let known: f64 = below.zip(&x[i + 1..]).map(|(l, x)| l * x).sum();
            x[i] = (x[i] - known) / self.l[i * n + i];
        }
        x
    }

    /// `A⁻¹`, column by column.
    pub(crate) fn inverse(&self) -> Matrix {
        let n = self.n;
        let mut inverse = Matrix::zeros(n);
        let mut unit = vec![0.0; n];
        for j in 0..n {
            unit[j] = 1.0;
            for (i, value) in self.solve(&unit).into_iter().enumerate() {
                inverse.data[i * n + j] = value;
            }
            unit[j] = 0.0;
        }
        inverse
    }
}

/// `Σ aᵢbᵢ` over the shorter of the two.
///
/// Four running sums rather than one: with one, every addition waits for
/// the one before (four cycles on today's cores), and the compiler may not
/// reorder it; with four, they overlap and fill a vector register. The
/// Cholesky factorisation is nearly all dot products, and a profile fit of
/// 200 bots factorises one matrix per bot: this made it about three times
/// as fast (docs/performance.md).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let len = a.len().min(b.len());
    let (a, b) = (a[..len].chunks_exact(4), b[..len].chunks_exact(4));
    let tail: f64 = a.remainder().iter().zip(b.remainder()).map(|(x, y)| x * y).sum();
    let mut sums = [0.0; 4];
    for (x, y) in a.zip(b) {
        for lane in 0..4 {
            sums[lane] += x[lane] * y[lane];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Matrix {
        let mut m = Matrix::zeros(3);
        for (i, row) in [[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]].iter().enumerate() {
            for (j, value) in row.iter().enumerate() {
                m.add(i, j, *value);
            }
        }
        m
    }

    #[test]
    fn solve_and_inverse_agree_with_the_matrix() {
        let m = example();
        let chol = m.cholesky().expect("positive definite");
        let b = [1.0, -2.0, 0.5];
        let x = chol.solve(&b);
        for (got, want) in m.mul_vec(&x).iter().zip(b) {
            assert!((got - want).abs() < 1e-12);
        }
        let inv = chol.inverse();
        for i in 0..3 {
            let column: Vec<f64> = (0..3).map(|k| inv.get(k, i)).collect();
            let product = m.mul_vec(&column);
            for (k, value) in product.iter().enumerate() {
                let want = if k == i { 1.0 } else { 0.0 };
                assert!((value - want).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn dot_products_of_any_length_are_exact_on_integers() {
        for len in 0..11 {
            let a: Vec<f64> = (0..len).map(|i| f64::from(i) + 1.0).collect();
            let b: Vec<f64> = (0..len).map(|i| 2.0 - f64::from(i)).collect();
            let want: f64 = (0..len).map(|i| (f64::from(i) + 1.0) * (2.0 - f64::from(i))).sum();
            assert_eq!(dot(&a, &b), want, "length {len}");
            assert_eq!(
                dot(&a, &b[..len as usize / 2]),
                dot(&a[..len as usize / 2], &b),
                "length {len}"
            );
        }
    }

    #[test]
    fn indefinite_matrices_are_refused() {
        let mut m = example();
        m.add(2, 2, -10.0);
        assert!(m.cholesky().is_none());
        assert!(Matrix::zeros(2).cholesky().is_none());
    }
}
