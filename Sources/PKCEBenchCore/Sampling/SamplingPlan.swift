/// How long to warm up and to sample each case, and how often.
package struct SamplingPlan: Sendable, Equatable, Codable {
    /// How long each case runs before its samples start, after calibration.
    package var warmup: Duration
    /// How long one sample should last; calibration picks the iterations to match.
    package var sampleTime: Duration
    package var samples: Int

    /// The sample time must be positive, the warm-up not negative, and the samples at least 2;
    /// the command line checks them first.
    package init(warmup: Duration, sampleTime: Duration, samples: Int) {
        precondition(sampleTime > .zero && warmup >= .zero && samples >= 2, "invalid sampling plan")
        self.warmup = warmup
        self.sampleTime = sampleTime
        self.samples = samples
    }

    /// Decodes a plan, refusing one that ``init(warmup:sampleTime:samples:)`` would not make.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let warmup = try container.decode(Duration.self, forKey: .warmup)
        let sampleTime = try container.decode(Duration.self, forKey: .sampleTime)
        let samples = try container.decode(Int.self, forKey: .samples)
        guard sampleTime > .zero && warmup >= .zero && samples >= 2 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "an invalid sampling plan"))
        }
        self.init(warmup: warmup, sampleTime: sampleTime, samples: samples)
    }

    /// The default: 90 samples of 5 ms per case, after 20 ms of warm-up: on a shared machine,
    /// fewer samples leave a slowdown of a few percent unseen in many cases.
    package static let standard = SamplingPlan(warmup: .milliseconds(20), sampleTime: .milliseconds(5), samples: 90)

    /// `--quick`: the whole default suite in a few seconds, for smoke tests and CI, not for decisions.
    package static let quick = SamplingPlan(warmup: .milliseconds(10), sampleTime: .milliseconds(5), samples: 10)

    /// `bench ab`'s default, per build and look: 600 samples of 0.25 ms per case, shared out among
    /// the look's pairs (30 turns a pair); the article "Comparing two builds" says why.
    package static let ab = SamplingPlan(warmup: .milliseconds(1), sampleTime: .microseconds(250), samples: 600)

    /// `bench ab --quick`: a smoke test of the whole suite, not for decisions.
    package static let abQuick = SamplingPlan(warmup: .milliseconds(1), sampleTime: .microseconds(250), samples: 40)
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}
