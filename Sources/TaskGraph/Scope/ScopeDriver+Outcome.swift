/// How a scope's body hands its outcome to `withGraphTask`: through the scope's driver, which
/// the two share anyway, rather than a slot of its own (a heap allocation and its freeing per
/// scope). The Swift task that runs the body puts it once; `withGraphTask` takes it once that
/// task ended (the task group it ran in is over): one task at a time, so an outcome that is
/// not `Sendable` may cross. An outcome of up to four words lives in the driver
/// (`outcomeWords`); a larger one in an allocation whose address the words hold.
extension ScopeDriver {
    @inlinable static func keepsInline<Value>(_: Value.Type) -> Bool {
        MemoryLayout<Value>.size <= MemoryLayout<(UInt64, UInt64, UInt64, UInt64)>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment
    }

    /// Leaves the outcome (the body's task, once).
    @inlinable func putOutcome<Value>(_ outcome: Value) {
        withUnsafeMutableBytes(of: &outcomeWords) { words in
            if ScopeDriver.keepsInline(Value.self) {
                words.baseAddress!.initializeMemory(as: Value.self, to: outcome)
            } else {
                let box = UnsafeMutablePointer<Value>.allocate(capacity: 1)
                box.initialize(to: outcome)
                words.storeBytes(of: UnsafeMutableRawPointer(box), as: UnsafeMutableRawPointer.self)
            }
        }
    }

    /// Takes the outcome (`withGraphTask`, once, after `putOutcome`).
    @inlinable func takeOutcome<Value>(_: Value.Type) -> Value {
        withUnsafeMutableBytes(of: &outcomeWords) { words in
            if ScopeDriver.keepsInline(Value.self) {
                return words.baseAddress!.assumingMemoryBound(to: Value.self).move()
            }
            let box = words.load(as: UnsafeMutableRawPointer.self).assumingMemoryBound(to: Value.self)
            defer { box.deallocate() }
            return box.move()
        }
    }
}
