/// When the dashboard draws, and when it takes its source's data: at most one frame every
/// `frame` seconds, only when something changed; a key is answered at once. For a source
/// that takes data per frame (`DashboardSource.takesDataPerFrame`), data arriving while a
/// frame is pending stays with the source (its threads keep reading, and fold what they
/// read) and is taken once, just before that frame: a busy stream costs one absorb and one
/// draw a frame, never one per arrival. Pure: the loop passes the time.
package struct FramePacer: Sendable {
    /// Seconds between frames.
    package let frame: Double
    /// Whether data waits for the pending frame (see the type).
    package let takesDataPerFrame: Bool
    /// Something changed since the last frame.
    package private(set) var dirty = true
    /// Frames drawn so far.
    package private(set) var draws = 0
    /// When the next frame may be drawn (compared as is, so a wait of `nextFrame - now`
    /// always reaches it).
    private var nextFrame = -Double.infinity

    /// Frames `frame` seconds apart (default: 30 a second).
    package init(frame: Double = 1.0 / 30, takesDataPerFrame: Bool) {
        self.frame = frame
        self.takesDataPerFrame = takesDataPerFrame
    }

    /// Whether to draw at `now`.
    package func shouldDraw(at now: Double) -> Bool { dirty && now >= nextFrame }

    /// A frame was drawn at `now`.
    package mutating func drew(at now: Double) {
        nextFrame = now + frame
        dirty = false
        draws += 1
    }

    /// The model changed: draw at the next frame.
    package mutating func changed() { dirty = true }

    /// A key: its answer is drawn at once, not at the next frame.
    package mutating func keyPressed() {
        dirty = true
        nextFrame = -.infinity
    }

    /// Whether to wait on the source's descriptors and take its data at `now`: always,
    /// unless the source takes data per frame and a frame is pending and not yet due.
    package func takesData(at now: Double) -> Bool {
        !takesDataPerFrame || !dirty || now >= nextFrame
    }

    /// Whether the loop takes the source's data at `now`, `pressed` telling whether it has
    /// just handled a key. A key's answer is drawn before a per-frame source's next batch
    /// (up to a tick's worth of events, or a resync's whole snapshot) is taken: the batch
    /// comes right after that frame. Other sources (a replay seeking on a key) take their
    /// data at once, so the frame shows what the key did.
    package func takesData(at now: Double, afterKey pressed: Bool) -> Bool {
        pressed ? !takesDataPerFrame : takesData(at: now)
    }

    /// How long the loop may wait at `now`: the source's own next tick, or the pending
    /// frame if that comes first.
    package func wait(at now: Double, sourceWait: Double) -> Double {
        dirty ? min(sourceWait, max(0, nextFrame - now)) : sourceWait
    }
}
