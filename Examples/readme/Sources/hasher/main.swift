// README.md, "2. Your program, live" (Tests/e2e/readme.sh checks it is the same text).
import TaskGraph

do {
    try Graph.shared.serve(name: "hasher") // `taskview attach` finds it from now on
} catch {
    print("taskview cannot attach: \(error)") // cannot serve at PATH: REASON
}
let parts = (1...8).map { i in
    GraphTask<Int, any Error>.async(name: "hash part \(i)") { progress in
        for step in 1...10 {
            try await Task.sleep(for: .milliseconds(300))
            progress(TaskProgress(Double(step) / 10, info: "block \(step)/10"))
        }
        return i
    }
}
let sums = try await GraphTask.concurrent(parts, name: "hash").value
print("hashed \(sums.count) parts")
