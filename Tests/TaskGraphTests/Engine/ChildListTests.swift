import Testing

@testable import TaskGraph

/// `ChildList`, a record's subtasks: the first id inline in 32 bits when it fits.
@Suite struct ChildListTests {
    @Test func appendsAndInsertsKeepSubtaskOrder() {
        var list = ChildList()
        #expect(list.isEmpty)
        list.append(NodeID(7))
        list.append(NodeID(9))
        list.insert(NodeID(8), at: 1)
        list.insert(NodeID(6), at: 0)
        list.insert(NodeID(10), at: 99)
        #expect(Array(list) == [6, 7, 8, 9, 10].map { NodeID($0) })
    }

    @Test func anIdBeyond32BitsIsKept() {
        let big = Int(Int32.max) + 5
        var list = ChildList()
        list.append(NodeID(big))
        list.append(NodeID(1))
        #expect(Array(list) == [NodeID(big), NodeID(1)])
        #expect(list.head == -1)
    }

    @Test func twoSmallIdsNeedNoArrayAndAThirdKeepsTheOrder() {
        var list = ChildList()
        list.append(NodeID(3))
        list.append(NodeID(5))
        guard case .one(5) = list.tail else {
            Issue.record("the second id is not kept inline: \(list.tail)")
            return
        }
        list.append(NodeID(8))
        guard case .many(let rest) = list.tail else {
            Issue.record("a third id did not move the tail to an array")
            return
        }
        #expect(rest == [NodeID(5), NodeID(8)])
        #expect(Array(list) == [3, 5, 8].map { NodeID($0) })
        #expect(list.count == 3)
    }

    @Test func aSecondIdBeyond32BitsGoesToTheArray() {
        let big = Int(Int32.max) + 1
        var list = ChildList()
        list.append(NodeID(1))
        list.append(NodeID(big))
        #expect(Array(list) == [NodeID(1), NodeID(big)])
        list.insert(NodeID(2), at: 1)
        #expect(Array(list) == [NodeID(1), NodeID(2), NodeID(big)])
    }

    @Test func aRecordKeepsItsSizeAndItsChildren() {
        #expect(MemoryLayout<NodeRecord>.size <= 88)
        var r = NodeRecord(id: 1, kindIndex: 0, weight: 1, name: "r")
        r.children.append(NodeID(2))
        r.children.append(NodeID(3))
        r.children.insert(NodeID(4), at: 1)
        #expect(Array(r.children) == [2, 4, 3].map { NodeID($0) })
    }
}
