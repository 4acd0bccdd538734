/// The version of this package: the `TaskGraph` library, its companion libraries and
/// `taskview`.
///
/// It is the one place the version is written down: `taskview --version` prints it, the
/// replay logs `taskview` records name it in their header's `producer`
/// (`taskview 0.9.0 demo build`), and the newest entry of `CHANGELOG.md` carries the same
/// number (a test checks both). The version follows Semantic Versioning; it stays 0.x until
/// the public API is declared stable.
public enum TaskGraphVersion {
    /// The version as `MAJOR.MINOR.PATCH`, for example `0.9.0`.
    public static let current = "0.9.0"
}
