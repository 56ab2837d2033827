/// One side of a comparison measured side by side.
package enum Side: Int, CaseIterable, Sendable {
    case baseline
    case current
}

/// What `bench ab` and `bench pair` measure side by side: two builds, or two backends of one. The
/// baseline side measures each selected case's counterpart in the other build or backend.
package enum Sides: Sendable, Equatable {
    /// Two builds, each by its `bench`: the baseline's (another build) and this build's.
    case builds(baseline: String, current: String)
    /// Two builds that `bench ab --against` made, each linked again in a fresh random order for
    /// every pair of workers: the baseline's and this checkout's commit.
    case relinked(baseline: LinkCommand, current: LinkCommand)
    /// Two backends of the one build whose `bench` is `executable`.
    case backends(baseline: String, current: String, executable: String)

    /// The `bench` whose workers measure `side`.
    package func executable(of side: Side) -> String {
        switch (self, side) {
        case (.builds(let baseline, _), .baseline): baseline
        case (.builds(_, let current), .current): current
        case (.relinked(let baseline, _), .baseline): baseline.executable
        case (.relinked(_, let current), .current): current.executable
        case (.backends(_, _, let executable), _): executable
        }
    }

    /// Whether `side` is another build than this process's: the baseline's of two builds, and
    /// both of two builds that `bench ab --against` made.
    package func isAnotherBuild(_ side: Side) -> Bool {
        switch self {
        case .builds: side == .baseline
        case .relinked: true
        case .backends: false
        }
    }

    /// How `side` is linked again for each pair, when it is.
    func linkCommand(of side: Side) -> LinkCommand? {
        guard case .relinked(let baseline, let current) = self else { return nil }
        return side == .baseline ? baseline : current
    }

    /// Where each side's code lies: what a difference between the sides may owe to the linker.
    package var layout: CodeLayout {
        switch self {
        case .builds: .asLinked
        case .relinked: .relinked
        case .backends: .oneBuild
        }
    }

    package var noun: String {
        if case .backends = self { return "backends" }
        return "builds"
    }

    /// The key of `key`'s counterpart on `side`: `key` itself, but for the baseline backend's case
    /// when two backends are compared.
    package func key(of key: CaseKey, on side: Side) -> CaseKey {
        guard case .backends(let baseline, _, _) = self, side == .baseline else { return key }
        var counterpart = key
        counterpart.backend = baseline
        return counterpart
    }

    /// What `side`'s worker selects to measure `cases`: `selection` itself for two builds, and
    /// the baseline backend's counterparts of `cases`, by key, for two backends, so that
    /// `--filter` and `--skip` apply to the current backend's names alone.
    package func selection(_ selection: Selection, on side: Side, for cases: [BenchmarkCase]) -> Selection {
        guard case .backends(let baseline, _, _) = self, side == .baseline else { return selection }
        return Selection(
            backends: [baseline], keys: cases.map { key(of: $0.key, on: .baseline) }, threads: selection.threads)
    }

    /// The name of `side` in a comparison.
    package func name(of side: Side) -> String {
        switch (self, side) {
        case (.builds(let baseline, _), .baseline): baseline
        case (.relinked(let baseline, _), .baseline): baseline.executable
        case (.builds, .current), (.relinked, .current): "this build"
        case (.backends(let baseline, _, _), .baseline): baseline
        case (.backends(_, let current, _), .current): current
        }
    }

    /// The backend both sides' rows take in the comparison, so that each case of one meets its
    /// counterpart in the other: `swift-vs-sodium` for two backends, which also says whose medians
    /// a comparison read on its own holds; `nil` for two builds, whose rows keep their backends.
    package var comparedBackend: String? {
        guard case .backends(let baseline, let current, _) = self else { return nil }
        return BackendNames.pairName(current, against: baseline)
    }
}

/// A value for each side of a comparison.
package struct BothSides<Value> {
    package var baseline: Value
    package var current: Value

    /// Makes each side's value, the baseline's first.
    package init<Failure: Error>(_ make: (Side) throws(Failure) -> Value) throws(Failure) {
        baseline = try make(.baseline)
        current = try make(.current)
    }

    package subscript(side: Side) -> Value {
        get { side == .baseline ? baseline : current }
        set {
            if side == .baseline { baseline = newValue } else { current = newValue }
        }
    }
}

extension BothSides: Sendable where Value: Sendable {}
