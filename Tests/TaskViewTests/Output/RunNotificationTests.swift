import Testing

@testable import TaskViewCore

/// diagnose.md "Done: tell the person": the bytes of the notification a long run sends
/// through its terminal, and when it is sent.
@Suite struct RunNotificationTests {
    @Test func namesTheRunItsOutcomeAndDuration() {
        #expect(RunNotification(name: "ci", status: 0, seconds: 65).body == "ci succeeded in 1m05s")
        #expect(RunNotification(name: "ci", status: 1, seconds: 12.34).body == "ci failed in 12.3s")
        #expect(RunNotification(name: "ci", status: 130, seconds: 11).body == "ci cancelled in 11.0s")
        #expect(RunNotification(name: "ci", status: 2, seconds: 11).body == "ci ended with status 2 in 11.0s")
        #expect(RunNotification(name: "ci", status: 0, seconds: 65).title == "taskview: ci")
    }

    @Test func osc777ThenOsc9ThenABell() {
        let n = RunNotification(name: "build", status: 0, seconds: 30)
        #expect(
            n.sequence(insideTmux: false)
                == "\u{1B}]777;notify;taskview: build;build succeeded in 30.0s\u{1B}\\"
                + "\u{1B}]9;taskview: build: build succeeded in 30.0s\u{1B}\\" + "\u{07}")
    }

    @Test func insideTmuxTheOSCsAreWrappedWithEveryEscapeDoubled() {
        let n = RunNotification(name: "b", status: 1, seconds: 20)
        #expect(
            n.sequence(insideTmux: true)
                == "\u{1B}Ptmux;\u{1B}\u{1B}]777;notify;taskview: b;b failed in 20.0s\u{1B}\u{1B}\\\u{1B}\\"
                + "\u{1B}Ptmux;\u{1B}\u{1B}]9;taskview: b: b failed in 20.0s\u{1B}\u{1B}\\\u{1B}\\" + "\u{07}")
    }

    @Test func aHostileNameCannotEndTheSequenceOrAddFields() {
        let n = RunNotification(
            name: "x\u{07}\u{1B}\\;rm\u{9C}" + String(repeating: "n", count: 500), status: 0, seconds: 11)
        let bytes = n.sequence(insideTmux: false)
        #expect(bytes.unicodeScalars.filter { $0 == "\u{07}" }.count == 1)
        #expect(bytes.unicodeScalars.filter { $0 == "\u{1B}" }.count == 4)
        #expect(!n.title.contains(";") && !n.body.contains(";"))
        #expect(n.title.count <= 200 && n.body.count <= 200)
    }

    @Test func sentOnlyAfterTheThresholdWithATerminalUnlessTurnedOff() {
        #expect(RunNotification.due(seconds: 10.5, after: 10, enabled: true, terminal: true))
        #expect(!RunNotification.due(seconds: 10, after: 10, enabled: true, terminal: true))
        #expect(!RunNotification.due(seconds: 60, after: 10, enabled: false, terminal: true))
        #expect(!RunNotification.due(seconds: 60, after: 10, enabled: true, terminal: false))
        #expect(RunNotification.due(seconds: 0.1, after: 0, enabled: true, terminal: true))
    }
}
