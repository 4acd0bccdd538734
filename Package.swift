// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "taskgraph",
    products: [
        .library(name: "TaskGraph", targets: ["TaskGraph"]),
        .library(name: "TaskViewCore", targets: ["TaskViewCore"]),   // for Benchmarks/
        .library(name: "TaskGraphTracing", targets: ["TaskGraphTracing"]),
        .executable(name: "taskview", targets: ["taskview"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.0.0"),
    ],
    targets: [
        // The task library: no curses, no dependencies.
        .target(name: "TaskGraph"),
        // Graphs as OpenTelemetry-style spans, on the vendor-neutral tracing API only.
        .target(
            name: "TaskGraphTracing",
            dependencies: ["TaskGraph", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),
        // ncursesw with a shim header for what Swift cannot import.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // taskview's pure parts: model, reducer, renderer, scenarios, replay, headless output.
        .target(name: "TaskViewCore", dependencies: ["TaskGraph"]),
        // The thin layer that talks to ncurses.
        .target(name: "TaskViewTerminal", dependencies: ["TaskGraph", "TaskViewCore", "CNcurses"]),
        .executableTarget(
            name: "taskview",
            dependencies: [
                "TaskGraph", "TaskViewCore", "TaskViewTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "TaskGraphTests", dependencies: ["TaskGraph"]),
        .testTarget(name: "TaskGraphTracingTests", dependencies: ["TaskGraphTracing", "TaskGraph"]),
        .testTarget(name: "TaskViewTests", dependencies: ["TaskViewCore", "TaskViewTerminal", "TaskGraph"]),
    ],
    swiftLanguageModes: [.v6]
)
