import TaskGraph
import Testing

@testable import TaskViewCore

/// servers.md "Services as nodes": taskview's confirmation says what a cancel of a
/// `GraphService` node does: a service's `run()` is cancelled, a group shuts down gracefully.
@Suite struct ServiceCancelPromptTests {
    private let tree = SpanCancelPromptTests.tree(
        SpanCancelPromptTests.running(0, "service", "app", parent: nil)
            + SpanCancelPromptTests.running(1, "service", "http", parent: 0)
            + SpanCancelPromptTests.running(2, "service", "queue worker", parent: 0)
            + SpanCancelPromptTests.running(3, "scope", "request", parent: 1))

    private func preview(_ node: Int) -> CancelPreview {
        CancelPreview(tree: tree, display: DisplayTree(tree: tree, view: ViewState(), mask: nil), node: node)
    }

    @Test func aGroupShutsDownGracefully() {
        #expect(preview(0).service == .group)
        #expect(preview(0).prompt == "Shut down service group app gracefully (triggerGracefulShutdown)? [y/N]")
    }

    @Test func aServiceHasItsRunCancelledAndNoUpwardRule() {
        #expect(preview(1).service == .service)
        #expect(preview(1).prompt == "Cancel service http (its run() is cancelled)? [y/N]")
        #expect(preview(2).prompt == "Cancel service queue worker (its run() is cancelled)? [y/N]")
        #expect(preview(1).upwardNote == nil)
        #expect(preview(3).upwardNote == nil) // a scope under a service: no upward rule either
    }

    @Test func servicesCount() {
        #expect(TreeModel.isCounted(kind: NodeKind.service))
        #expect(tree.counts.reduce(0, +) == 4)
    }
}
