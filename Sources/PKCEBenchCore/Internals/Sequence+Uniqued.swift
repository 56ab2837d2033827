extension Sequence {
    /// The elements in order, each kept only the first time its `key` appears.
    package func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
        var seen = Set<Key>()
        return filter { seen.insert(key($0)).inserted }
    }
}

extension Sequence where Element: Hashable {
    /// The elements in order, each kept only the first time it appears.
    package func uniqued() -> [Element] { uniqued { $0 } }
}
