/// Median, minimum and maximum of a subject's runs.
struct Stats {
    let median: Double
    let min: Double
    let max: Double
    let runs: Int

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
        runs = sorted.count
    }
}
