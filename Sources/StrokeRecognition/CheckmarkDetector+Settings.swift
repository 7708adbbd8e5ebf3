// MARK: - The state's tuning and resampling walk

extension CheckmarkDetector {
    /// The tuning, held by reference: it keeps each state small, and states copied from one share it.
    final class Settings: Sendable {
        let configuration: CheckmarkConfiguration
        /// Copied out of the tuning: read for every batch.
        let capacity: Int
        let minimumLegPoints: Int
        let minimumDuration: Double
        /// The smallest of the fire ratios: below it the full test stops before any angle.
        let leastFireRatio: Double
        /// Room for `capacity + 1` points: decimation runs when a point passes the capacity.
        let room: Int
        /// Whether every allowed second-leg direction is below 0° (upward on screen): a second leg with a positive
        /// y fails them.
        let secondLegMustRise: Bool
        /// Whether every allowed first-leg direction is 0° or more (level or downward on screen): a first leg with
        /// a negative y fails them.
        let firstLegMustFall: Bool
        /// The bounds `mightFire` tests before the full test.
        let earlyOut: EarlyOut

        /// The bounds of the early out that need no corner (`CheckmarkDetector.mightFire`).
        struct EarlyOut {
            /// How far below the first point (in y) some resampled point after it must be for the first leg to
            /// fall: 0 where it must (`firstLegMustFall`), -∞ (any) otherwise.
            let firstLegFloor: Double
            /// Where the legs' heights must pass the ratio as well as their lengths (`compareHeights`, with legs
            /// that must fall and rise), the last point may be below the first by at most this share of the first
            /// leg's drop: 1 − `leastFireRatio`, raised by a billionth so that rounding never takes a passing stroke
            /// for a failing one; 0 elsewhere.
            let riseSlack: Double
            /// 0 where `riseSlack` applies, +∞ (any) elsewhere.
            let riseAllowance: Double
        }

        init(_ configuration: CheckmarkConfiguration) {
            self.configuration = configuration
            // Held within `CheckmarkConfiguration.validate()`'s ranges, which they already are when the tuning
            // came from a file: the early out reads `minimumLegPoints` points back, so a tuning set in code
            // with 0 or fewer would read past the buffer. The capacity is bounded so that the count fits the
            // walk's 32 bits; a larger buffer would hold 256 MB per stroke.
            self.minimumLegPoints = min(max(configuration.minimumLegPoints, 1), 1024)
            self.capacity = min(max(configuration.capacity, 2 * minimumLegPoints + 1), 1 << 24)
            self.room = capacity + 1
            self.minimumDuration = configuration.minimumDuration
            self.leastFireRatio =
                min(configuration.fireRatio, configuration.steepFireRatio) * min(1, configuration.earlyFireFactor)
            self.secondLegMustRise = configuration.secondLegDirection.upperBound < 0
            self.firstLegMustFall = configuration.firstLegDirection.lowerBound >= 0
            // The heights' bound only for ratios below 0.999: closer to 1 the billionth would not cover rounding.
            let heights =
                configuration.compareHeights && secondLegMustRise && firstLegMustFall && leastFireRatio <= 0.999
            self.earlyOut = EarlyOut(
                firstLegFloor: firstLegMustFall ? 0 : -.infinity,
                riseSlack: heights ? (1 - leastFireRatio) * (1 + 1e-9) : 0,
                riseAllowance: heights ? 0 : .infinity)
        }
    }

    /// The resampling's state, 46 bytes (and two of padding): five doubles, the count and two flags.
    @usableFromInline struct Walk: Sendable {
        var spacing: Double
        /// Path length since the last resampled point.
        var sinceLast = 0.0
        /// The largest y (the lowest point on screen) of the resampled points after the first; -∞ until there is
        /// one. The corner is one of them, so where the first leg must fall, a value below the first point's y
        /// rules out a firing before the corner search.
        var lowestOnScreen = -Double.infinity
        /// The last raw point, once `hasLast`.
        var lastX = 0.0
        var lastY = 0.0
        /// Resampled points in use (at most `capacity + 1`, which `Settings` bounds).
        @usableFromInline var count: Int32 = 0
        var hasLast = false
        /// Set when the detector fires (with `State.detected`), so that a batch after it reads nothing else.
        var fired = false

        init(spacing: Double) { self.spacing = spacing }
    }
}
