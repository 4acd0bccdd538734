// swift-tools-version: 6.1
import PackageDescription

// A Hummingbird 2 server whose request handlers run their steps in graph scopes, bootstrapped with
// GraphTracer (forwarding to InMemoryTracer), logging through GraphLogHandler, run with a
// queue worker as two services of a ServiceGroup (swift-service-lifecycle) and serving its
// graph for `taskview attach`.
// Its own package, so Hummingbird never becomes a dependency of the library.
let package = Package(
    name: "async-server",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "taskgraph", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "async-server",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "TaskGraphServiceLifecycle", package: "taskgraph"),
                .product(name: "TaskGraphLogging", package: "taskgraph"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
