import Foundation

/// Many variances, each estimated from few degrees of freedom, each moved toward what all of
/// them have in common: the empirical Bayes estimate of limma (Smyth 2004, §6; limma's `fitFDist`
/// and `squeezeVar`): `(d₀ s₀² + dᵢ s²ᵢ) / (d₀ + dᵢ)`, with `d₀ + dᵢ` degrees of freedom.
package struct ModeratedVariances: Sendable, Equatable {
    /// Each variance after moderation, in the order given.
    package let variances: [Double]
    /// Each variance's degrees of freedom after moderation: its own plus `priorDegreesOfFreedom`.
    package let degreesOfFreedom: [Double]
    /// `d₀`: infinite when the variances scatter no more than sampling explains, 0 when there is
    /// only one. A variance's total is capped at the sum of all of theirs.
    package let priorDegreesOfFreedom: Double
    /// `s₀²`: the common prior variance.
    package let priorVariance: Double

    /// Moderates sample `variances` (at least 0) with their `degreesOfFreedom` (more than 0).
    package init(_ variances: [Double], degreesOfFreedom: [Double]) {
        precondition(variances.count == degreesOfFreedom.count, "a variance needs its degrees of freedom")
        guard variances.count >= 2 else {
            (self.variances, self.degreesOfFreedom) = (variances, degreesOfFreedom)
            (priorDegreesOfFreedom, priorVariance) = (0, variances.first ?? 0)
            return
        }
        // A variance of exactly 0 has no logarithm; limma offsets it by a small fraction of the median
        // (of all of them, 1 when that is 0).
        let median = Statistics(variances)?.median ?? 0
        let floor = 1e-5 * (median > 0 ? median : 1)
        let halves = degreesOfFreedom.map { $0 / 2 }
        let e = zip(variances, halves).map { variance, half in
            log(max(variance, floor)) - Self.digamma(half) + log(half)
        }
        let n = Double(e.count)
        let mean = e.reduce(0, +) / n
        let spread =
            e.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1) - halves.reduce(0) { $0 + Self.trigamma($1) } / n
        let prior: Double
        if spread > 0 {
            prior = 2 * Self.trigammaInverse(spread)
            priorVariance = exp(mean + Self.digamma(prior / 2) - log(prior / 2))
        } else {
            // No more scatter than sampling explains: the pooled variance, limma's estimate since
            // 2017 (the limit of the formula above is larger).
            prior = .infinity
            priorVariance = variances.reduce(0, +) / n
        }
        priorDegreesOfFreedom = prior
        let common = priorVariance
        self.variances = zip(variances, degreesOfFreedom).map { variance, d in
            prior.isInfinite ? common : (prior * common + d * variance) / (prior + d)
        }
        // As limma's eBayes does, no case is worth more than all of them together.
        let total = degreesOfFreedom.reduce(0, +)
        self.degreesOfFreedom = degreesOfFreedom.map { min($0 + prior, total) }
    }

    // MARK: - Polygamma functions

    /// ψ(x), the digamma function, for `x > 0`: the recurrence `ψ(x) = ψ(x + 1) − 1/x` up to 10,
    /// then the asymptotic series (Abramowitz and Stegun 6.3.18).
    static func digamma(_ x: Double) -> Double {
        var (x, result) = (x, 0.0)
        while x < 10 {
            result -= 1 / x
            x += 1
        }
        let r = 1 / (x * x)
        return result + log(x) - 0.5 / x
            - r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r / 132))))
    }

    /// ψ′(x), the trigamma function, for `x > 0` (Abramowitz and Stegun 6.4.12).
    static func trigamma(_ x: Double) -> Double {
        var (x, result) = (x, 0.0)
        while x < 10 {
            result += 1 / (x * x)
            x += 1
        }
        let r = 1 / (x * x)
        return result + 1 / x + r / 2
            + r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * 5 / 66))))
    }

    /// ψ″(x), the tetragamma function, for `x > 0` (Abramowitz and Stegun 6.4.13).
    static func tetragamma(_ x: Double) -> Double {
        var (x, result) = (x, 0.0)
        while x < 10 {
            result -= 2 / (x * x * x)
            x += 1
        }
        let r = 1 / (x * x)
        return result - r - r / x
            - r * r * (0.5 - r * (1.0 / 6 - r * (1.0 / 6 - r * (3.0 / 10 - r * 5 / 6))))
    }

    /// The `y` with `ψ′(y) = x`, by limma's Newton iteration (`trigammaInverse`).
    static func trigammaInverse(_ x: Double) -> Double {
        if x > 1e7 { return 1 / x.squareRoot() }
        if x < 1e-6 { return 1 / x }
        var y = 0.5 + 1 / x
        for _ in 0..<50 {
            let tri = trigamma(y)
            let step = tri * (1 - tri / x) / tetragamma(y)
            y += step
            if -step / y < 1e-8 { break }
        }
        return y
    }
}
