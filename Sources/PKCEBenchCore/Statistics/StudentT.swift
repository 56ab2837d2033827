import Foundation

/// Student's t distribution, with degrees of freedom that may be fractional (Welch's): `P(|T| > t)
/// = I_{ν/(ν+t²)}(ν/2, 1/2)` by its continued fraction (Numerical Recipes §6.4, Lentz's method),
/// the quantile by bisection; both agree with scipy's `stats.t` on the committed reference values.
package struct StudentT: Sendable, Equatable {
    /// ν: more than 0.
    package let degreesOfFreedom: Double

    package init(degreesOfFreedom: Double) {
        precondition(degreesOfFreedom.isFinite && degreesOfFreedom > 0, "t needs more than 0 degrees of freedom")
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// The two-sided tail probability `P(|T| ≥ |t|)`: a two-sided test's p-value.
    package func twoSidedTail(_ t: Double) -> Double {
        guard t.isFinite else { return t.isNaN ? .nan : 0 }
        let nu = degreesOfFreedom
        return Self.regularizedIncompleteBeta(nu / (nu + t * t), a: nu / 2, b: 0.5)
    }

    /// The `t` with `P(|T| ≥ t) = tail`: the half-width, in standard errors, of a confidence
    /// interval at level `1 − tail`.
    package func twoSidedCriticalValue(tail: Double) -> Double {
        precondition(tail > 0 && tail < 1, "a tail probability is between 0 and 1")
        // The tail falls as t grows: widen the bracket until it holds the answer, then halve it.
        var low = 0.0
        var high = 1.0
        while twoSidedTail(high) > tail { (low, high) = (high, high * 2) }
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if middle == low || middle == high { break }
            if twoSidedTail(middle) > tail { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// `I_x(a, b)`, the regularized incomplete beta function, for `0 ≤ x ≤ 1` and `a, b > 0`.
    static func regularizedIncompleteBeta(_ x: Double, a: Double, b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logFront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)
        let front = exp(logFront)
        // The continued fraction converges quickly for x < (a + 1) / (a + b + 2); beyond it, use
        // the symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
        if x < (a + 1) / (a + b + 2) {
            return front * continuedFraction(x, a: a, b: b) / a
        }
        return 1 - front * continuedFraction(1 - x, a: b, b: a) / b
    }

    /// The continued fraction of the incomplete beta function, by the modified Lentz method.
    private static func continuedFraction(_ x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        let epsilon = 1e-16
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        /// One step of the fraction, with its numerator; returns the factor it multiplied by.
        func step(_ numerator: Double) -> Double {
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            return d * c
        }
        for m in 1...10_000 {
            let m = Double(m)
            _ = step(m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)))
            if abs(step(-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))) - 1) < epsilon { break }
        }
        return result
    }
}
