// swift-tools-version: 6.2
import PackageDescription

// An example, in its own package so swift-otel never becomes a dependency of the library:
// a graph traced with TaskGraphTracing, exported over OTLP/HTTP by swift-otel, across two
// processes joined by W3C traceparent.
let package = Package(
    name: "otel-example",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "taskgraph", path: "../.."),
        .package(url: "https://github.com/swift-otel/swift-otel", exact: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "otel-demo",
            dependencies: [
                .product(name: "TaskGraph", package: "taskgraph"),
                .product(name: "TaskGraphTracing", package: "taskgraph"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
