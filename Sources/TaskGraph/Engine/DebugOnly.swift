/// Runs `body` in debug builds only (swift-nio's `debugOnly`): the engine's guard rails
/// (lock-owner assertions in `…Locked` functions, `verifyInvariants()` after mutations).
/// In release builds `assert` does not evaluate its condition, so the closure and what it
/// captures compile to nothing, and the release engine is the same code as without them.
@inlinable @inline(__always)
func debugOnly(_ body: () -> Void) {
    assert(
        {
            body()
            return true
        }())
}

/// Whether this is a debug build (assertions evaluated): for tests of the guard rails.
package var guardRailsEnabled: Bool {
    var enabled = false
    debugOnly { enabled = true }
    return enabled
}
