// `--only C4,C5`: which workloads run. C1-C3 run together (all three or none); C4 and C5
// (the C4 and C5 costs, DAGStart.swift and OutputFlood.swift) each on their own.

/// The workloads asked for on the command line.
struct Selection {
    /// nil: every workload.
    let ids: Set<String>?

    init(_ arguments: [String]) {
        if let i = arguments.firstIndex(of: "--only"), i + 1 < arguments.count {
            ids = Set(arguments[i + 1].uppercased().split(separator: ",").map(String.init))
        } else {
            ids = nil
        }
    }

    func runs(_ id: String) -> Bool { ids?.contains(id) ?? true }

    /// Whether C1-C3 run.
    var classic: Bool { runs("C1") || runs("C2") || runs("C3") }
}

/// Runs C4 and C5 as selected, on the taskview binary `binary` (nil: skipped, said so).
func pipelineWorkloads(_ selection: Selection, binary: String?, quick: Bool) {
    guard selection.runs("C4") || selection.runs("C5") else { return }
    guard let binary else {
        print(
            "\nC4, C5 skipped: no taskview binary (set TASKVIEW_BIN or run swift build -c release --product taskview)")
        return
    }
    if selection.runs("C4") { dagStart(binary: binary, rounds: quick ? 2 : 5) }
    if selection.runs("C5") { outputFlood(binary: binary, lines: quick ? 200_000 : 1_000_000, rounds: quick ? 1 : 3) }
}
