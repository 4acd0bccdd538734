import Testing

@testable import TaskViewCore

/// The dashboard draws at most 30 frames a second and only when something changed; an
/// attach source's data is taken at most about twice a frame however fast it arrives, and
/// the last of it is drawn one frame after it arrived at the latest. Virtual time.
@Suite struct FramePacerTests {
    /// Data arriving every `every` seconds for one second, through the loop's steps: take
    /// the data when the pacer says so, draw when due. Then quiet: the loop waits as told.
    func run(_ pacer: inout FramePacer, every: Double) -> (takes: Int, lastDrawn: Double) {
        var pending = 0
        var takes = 0
        var t = 0.0
        var arrivals = 0
        var lastArrival = 0.0
        func step(at t: Double) {
            if pending > 0 && pacer.takesData(at: t) {
                pending = 0
                takes += 1
                pacer.changed()
            }
            if pacer.shouldDraw(at: t) { pacer.drew(at: t) }
        }
        step(at: 0)
        while arrivals < Int((1 / every).rounded()) {
            t += every
            pending += 1
            arrivals += 1
            lastArrival = t
            step(at: t)
        }
        // Quiet: the loop waits until the pending frame, then takes the rest and draws it.
        var drawnAt = pacer.dirty ? -1.0 : t
        for _ in 0..<3 where pacer.dirty || pending > 0 {
            t += pacer.wait(at: t, sourceWait: 10)
            step(at: t)
            if !pacer.dirty && pending == 0 { drawnAt = t }
        }
        #expect(pending == 0)
        return (takes, drawnAt - lastArrival)
    }

    @Test func aFloodIsTakenAndDrawnAtTheFrameRate() {
        var pacer = FramePacer(takesDataPerFrame: true)
        let (takes, late) = run(&pacer, every: 0.0005) // 2,000 arrivals in a second
        #expect(pacer.draws >= 25 && pacer.draws <= 32) // 30 a second, and the first frame
        #expect(takes <= 2 * pacer.draws)
        #expect(late >= 0 && late <= pacer.frame + 1e-9)
        #expect(!pacer.dirty)
    }

    @Test func aSourceWhoseSendersWaitIsTakenAtEveryArrival() {
        var pacer = FramePacer(takesDataPerFrame: false)
        let (takes, _) = run(&pacer, every: 0.001)
        #expect(takes == 1000)
        #expect(pacer.draws <= 32)
    }

    @Test func nothingChangedNothingDrawnAndKeysAreAnsweredAtOnce() {
        var pacer = FramePacer(takesDataPerFrame: true)
        #expect(pacer.shouldDraw(at: 0))
        pacer.drew(at: 0)
        for k in 1...100 { #expect(!pacer.shouldDraw(at: Double(k))) }
        #expect(pacer.wait(at: 100, sourceWait: 0.7) == 0.7)
        pacer.changed()
        #expect(pacer.shouldDraw(at: 100))
        pacer.drew(at: 100)
        pacer.changed()
        #expect(!pacer.shouldDraw(at: 100.01) && !pacer.takesData(at: 100.01))
        #expect(abs(pacer.wait(at: 100.01, sourceWait: 5) - (pacer.frame - 0.01)) < 1e-9)
        pacer.keyPressed()
        #expect(pacer.shouldDraw(at: 100.01) && pacer.takesData(at: 100.01))
        #expect(pacer.draws == 2)
    }

    @Test func aKeyIsDrawnBeforeAnAttachedProgramsNextBatchIsTaken() {
        // A flood keeps a batch (or a resync's snapshot) waiting at every turn: the key's
        // frame must not wait for it.
        var attach = FramePacer(takesDataPerFrame: true)
        attach.drew(at: 0)
        attach.keyPressed()
        #expect(!attach.takesData(at: 0.01, afterKey: true))
        #expect(attach.shouldDraw(at: 0.01))
        attach.drew(at: 0.01)
        #expect(attach.takesData(at: 0.011, afterKey: false)) // right after the key's frame
        // A replay seeks on a key: its data is taken first, so the frame shows the seek.
        var replay = FramePacer(takesDataPerFrame: false)
        replay.drew(at: 0)
        replay.keyPressed()
        #expect(replay.takesData(at: 0.01, afterKey: true))
    }
}
