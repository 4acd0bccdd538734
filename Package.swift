// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "taskgraph",
    products: [
        .library(name: "TaskGraph", targets: ["TaskGraph"]),
        .library(name: "TaskGraphProcess", targets: ["TaskGraphProcess"]),
        .library(name: "TaskViewCore", targets: ["TaskViewCore"]), // for Benchmarks/
        .library(name: "TaskViewIO", targets: ["TaskViewIO"]), // for Benchmarks/
        .library(name: "TaskGraphTracing", targets: ["TaskGraphTracing"]),
        .library(name: "TaskGraphServiceLifecycle", targets: ["TaskGraphServiceLifecycle"]),
        .library(name: "TaskGraphLogging", targets: ["TaskGraphLogging"]),
        .executable(name: "taskview", targets: ["taskview"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),  // 1.3: InMemoryTracing
        // Documentation only: `swift package generate-documentation --target TaskGraph`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),

        // TaskGraphServiceLifecycle only (services as nodes), with the swift-log it brings;
        // TaskGraphLogging (records under nodes) too: 1.16 for `LogHandler.log(event:)`.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),

        // TaskGraphProcess only (the core stays dependency-free); no Foundation trait.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0", traits: []),
    ],
    targets: [
        // The task library: no curses, no dependencies.
        .target(name: "TaskGraph", dependencies: ["CTaskGraphRuntime"]),
        // One declaration of a Swift runtime function the core uses (swift_tryRetain).
        .target(name: "CTaskGraphRuntime"),
        // Graphs as OpenTelemetry-style spans, on the vendor-neutral tracing API only.
        .target(
            name: "TaskGraphTracing",
            dependencies: ["TaskGraph", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),

        // ServiceLifecycle services as graph nodes (its DocC article ServicesAsNodes).
        .target(
            name: "TaskGraphServiceLifecycle",
            dependencies: [
                "TaskGraph", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // swift-log records filed under the node that logged them (its DocC catalog).
        .target(
            name: "TaskGraphLogging",
            dependencies: ["TaskGraph", .product(name: "Logging", package: "swift-log")]),

        // Real commands as graph nodes (its DocC article RunningCommands).
        .target(
            name: "TaskGraphProcess",
            dependencies: [
                "TaskGraph", "CTaskGraphProcess", .product(name: "Subprocess", package: "swift-subprocess"),
            ]),
        // The subreaper call and the watchdog (fork, then only system calls), in C.
        .target(name: "CTaskGraphProcess"),
        // ncursesw with a shim header for what Swift cannot import.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // taskview's pure parts: model, reducer, renderer, scenario parsing, headless
        // formatting. No C library and no Foundation (a TaskViewTests test holds it).
        // The shipped demos are demos/*.json, compiled in (Scenario/Demos links to demos/).
        .target(
            name: "TaskViewCore", dependencies: ["TaskGraph", "TaskGraphProcess"],
            resources: [
                .embedInCode("Scenario/Demos/build.json"), .embedInCode("Scenario/Demos/pipeline.json"),
                .embedInCode("Scenario/Demos/flaky.json"), .embedInCode("Scenario/Demos/stress.json"),
                .embedInCode("Scenario/Demos/commands.json"), .embedInCode("Scenario/Demos/ci.json"),
                .embedInCode("Scenario/Demos/explain.json"),
            ]),
        // taskview's I/O: attach connections, event feeds, wake pipe, pipeline history,
        // output files, scenario files.
        .target(name: "TaskViewIO", dependencies: ["TaskGraph", "TaskGraphProcess", "TaskViewCore"]),
        // The thin layer that talks to ncurses.
        .target(name: "TaskViewTerminal", dependencies: ["TaskGraph", "TaskViewCore", "TaskViewIO", "CNcurses"]),
        .executableTarget(
            name: "taskview",
            dependencies: [
                "TaskGraph", "TaskViewCore", "TaskViewIO", "TaskViewTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Helpers the test targets share; only test targets depend on it, never a product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TaskGraphTests", dependencies: ["TaskGraph", "TestSupport"]),
        .testTarget(name: "TaskGraphTracingTests", dependencies: [
            "TaskGraphTracing", "TaskGraph", "TestSupport",
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ]),

        .testTarget(
            name: "TaskGraphServiceLifecycleTests",
            dependencies: [
                "TaskGraphServiceLifecycle", "TaskGraph", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "TaskGraphLoggingTests",
            dependencies: [
                "TaskGraphLogging", "TaskGraph", "TaskGraphTracing", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .testTarget(name: "TaskGraphProcessTests", dependencies: ["TaskGraphProcess", "TaskGraph", "TestSupport"]),
        .testTarget(
            name: "TaskViewTests",
            dependencies: [
                "TaskViewCore", "TaskViewIO", "TaskViewTerminal", "TaskGraph", "TaskGraphProcess", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
