/// What a sampler tells about its progress, on the thread that runs it.
public protocol SamplingObserver: AnyObject {
    /// A case's iterations per sample are chosen and it is warmed up.
    func calibrated(_ key: CaseKey, iterations: Int, nanosecondsPerOperation: Double)
    /// A case failed and is measured no further.
    func failed(_ key: CaseKey, reason: String)
    /// One more sample was taken.
    func sampled(_ key: CaseKey, done: Int, of total: Int, remainingSeconds: Double)
    /// A case has all its samples.
    func finished(_ key: CaseKey, nanosecondsPerOperation: [Double])
}
