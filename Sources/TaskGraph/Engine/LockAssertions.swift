/// The `…Locked` rule: a function whose name ends in `Locked` runs with a lock held (which
/// one, its documentation says), and its first line asserts it in debug builds. Release
/// builds compile these to nothing (`debugOnly`).

extension AnyGraphTask {
    /// Asserts (debug builds) that this task's stripe is locked by the calling thread.
    @inlinable @inline(__always)
    final func assertStripeLocked(file: StaticString = #file, line: UInt = #line) {
        debugOnly { _assertStripeLocked(file: file, line: line) }
    }

    @usableFromInline @inline(never)
    final func _assertStripeLocked(file: StaticString, line: UInt) {
        graph.stripes[stripeIndex].lock.assertHeld(file: file, line: line)
    }
}

extension Stripe {
    /// Asserts (debug builds) that the calling thread holds this stripe's lock.
    @inline(__always)
    func assertLocked(file: StaticString = #file, line: UInt = #line) {
        debugOnly { lock.assertHeld(file: file, line: line) }
    }
}

extension Graph {
    /// Asserts (debug builds) that the calling thread holds every stripe's lock.
    @inline(__always)
    func assertAllStripesLocked(file: StaticString = #file, line: UInt = #line) {
        debugOnly { for s in stripes { s.lock.assertHeld(file: file, line: line) } }
    }

    /// Asserts (debug builds) that deliveries are kept apart: the event lock held, or the
    /// lock of the stripe that records alone.
    @inline(__always)
    func assertDeliveriesKeptApart(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            let sole = soleStripe.load(ordering: .relaxed)
            if !eventLock.isHeldByCurrentThread, !(sole >= 0 && stripes[sole].lock.isHeldByCurrentThread) {
                eventLock.assertHeld(file: file, line: line)
            }
        }
    }
}

/// Asserts (debug builds) that the calling thread holds some lock: for the `…Locked`
/// functions of drivers that have no reference to their owner, whose stripe lock they need.
@inline(__always)
func assertSomeLockHeld(file: StaticString = #file, line: UInt = #line) {
    RawLock.assertSomeHeld(file: file, line: line)
}
