/// The template matcher's arithmetic on eight templates at once: the Protractor dot products and banded DTW.
///
/// This file is compiled twice, into `RecognitionKernels` for any CPU and into `RecognitionKernelsWide` (a
/// symbolic link to it) for x86-64-v3, where a vector of eight floats is one AVX register instead of two SSE
/// ones; `StrokeRecognition` picks the build the CPU runs once, at start. Swift never fuses a multiplication
/// and an addition unless asked, so both builds round every operation the same way and give the same bits
/// (a test compares them). Nothing here is `@inlinable`: inlined into the caller, the code would be compiled
/// with the caller's target.
public enum MatchingKernels {
    /// Templates computed at once, one per SIMD lane.
    public typealias Lanes = SIMD8<Float>
    /// Floats per point of an elastic feature sequence (`[x, y, w·tx, w·ty]`).
    public static let stride = 4

    // MARK: - Protractor

    /// The two Protractor dot products of every group of eight templates with a stroke, `a = t·c` and
    /// `b = t·c⊥` where `c⊥ = (−cy, cx)` per point, and the similarity at the best rotation within the bound.
    ///
    /// The similarity is `√(a² + b²)` where the best angle, `atan2(b, a)`, is within `±maxRotation`, and
    /// `a·cos(maxRotation) + |b|·sin(maxRotation)` at the bound otherwise (`cosMax = -1`, `sinMax = 0`: no
    /// bound). `templates` holds `groups × length` lane vectors (group-major, then `x0, y0, x1, y1, …`),
    /// `stroke` `length` floats; `a` and `b` of group `g` go to `dots[2g]` and `dots[2g + 1]`, its similarities
    /// to `similarities[g]`.
    @inline(never)
    public static func protractorSimilarities(
        templates: UnsafePointer<Lanes>, groups: Int, stroke c: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<Lanes>, similarities: UnsafeMutablePointer<Lanes>
    ) {
        let cosines = Lanes(repeating: cosMax)
        let sines = Lanes(repeating: sinMax)
        for group in 0..<groups {
            let t = templates + group * length
            var a = Lanes.zero
            var b = Lanes.zero
            var k = 0
            while k < length {
                let x = t[k]
                let y = t[k + 1]
                let cx = c[k]
                let cy = c[k + 1]
                a += x * cx + y * cy
                b += y * cx - x * cy
                k += 2
            }
            dots[2 * group] = a
            dots[2 * group + 1] = b
            let r = (a * a + b * b).squareRoot()
            let absB = b.replacing(with: -b, where: b .< 0)
            similarities[group] = r.replacing(with: a * cosines + absB * sines, where: a .< r * cosines)
        }
    }

    // MARK: - Elastic matching

    /// Banded DTW distances of up to eight (candidate, template) pairs at once, one pair per SIMD lane.
    ///
    /// The dynamic-programming recurrence is a chain of dependent additions; running eight independent chains
    /// side by side hides that latency, so eight distances cost little more than one. `candidates` and
    /// `templates` hold `count × stride` lane vectors (point-major, then feature); `rows` holds `2 × count`
    /// lane vectors of scratch. Unused lanes give meaningless values.
    ///
    /// A row's first cell, whose left neighbour lies outside the band, is taken before the loop over the others,
    /// and indices use wrapping arithmetic (they stay below `2 × count × stride`): the loop then holds the
    /// recurrence and nothing else. Each cell computes exactly what the scalar `ElasticMatcher.distance` does.
    @inline(never)
    public static func elasticDistances(
        candidates: UnsafePointer<Lanes>, templates: UnsafePointer<Lanes>, count: Int, band: Int,
        rows: UnsafeMutablePointer<Lanes>
    ) -> Lanes {
        let infinity = Lanes(repeating: .infinity)
        var previous = rows
        var current = rows + count
        for j in 0..<count { previous[j] = infinity }
        for i in 0..<count {
            let low = max(0, i - band)
            let high = min(count - 1, i + band)
            let c = candidates + i &* stride
            let c0 = c[0]
            let c1 = c[1]
            let c2 = c[2]
            let c3 = c[3]
            @inline(__always) func cost(_ j: Int) -> Lanes {
                let t = templates + j &* stride
                let d0 = c0 - t[0]
                let d1 = c1 - t[1]
                let d2 = c2 - t[2]
                let d3 = c3 - t[3]
                return (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3).squareRoot()
            }
            // The first cell: no left neighbour; in the first column no diagonal either; (0, 0) starts the path.
            let first: Lanes
            if i == 0 {
                first = .zero
            } else {
                let diagonal = low > 0 ? previous[low &- 1] : infinity
                first = minimum(minimum(diagonal, previous[low]), infinity)
            }
            var left = cost(low) + first
            current[low] = left
            var j = low &+ 1
            while j <= high {
                left = cost(j) + minimum(minimum(previous[j &- 1], previous[j]), left)
                current[j] = left
                j &+= 1
            }
            if high < count - 1 { current[high + 1] = infinity }
            swap(&previous, &current)
        }
        return previous[count - 1] / Float(count)
    }

    /// Gathers eight sequences into lane vectors: `lanes[k][lane] = sources[lane][k]` for `k < count`.
    ///
    /// `sources` holds eight pointers (point an unused lane at zeros). Eight floats of each source are loaded as
    /// one vector and the 8 × 8 block is transposed in registers, four 4 × 4 blocks at a time, instead of storing
    /// 64 single floats; a tail of fewer than 8 is copied float by float.
    @inline(never)
    public static func gather(
        _ sources: UnsafePointer<UnsafePointer<Float>>, count: Int, into lanes: UnsafeMutablePointer<Lanes>
    ) {
        var k = 0
        while k + 8 <= count {
            let r0 = UnsafeRawPointer(sources[0] + k).loadUnaligned(as: Lanes.self)
            let r1 = UnsafeRawPointer(sources[1] + k).loadUnaligned(as: Lanes.self)
            let r2 = UnsafeRawPointer(sources[2] + k).loadUnaligned(as: Lanes.self)
            let r3 = UnsafeRawPointer(sources[3] + k).loadUnaligned(as: Lanes.self)
            let r4 = UnsafeRawPointer(sources[4] + k).loadUnaligned(as: Lanes.self)
            let r5 = UnsafeRawPointer(sources[5] + k).loadUnaligned(as: Lanes.self)
            let r6 = UnsafeRawPointer(sources[6] + k).loadUnaligned(as: Lanes.self)
            let r7 = UnsafeRawPointer(sources[7] + k).loadUnaligned(as: Lanes.self)
            let a = transpose(r0.lowHalf, r1.lowHalf, r2.lowHalf, r3.lowHalf)
            let b = transpose(r4.lowHalf, r5.lowHalf, r6.lowHalf, r7.lowHalf)
            let c = transpose(r0.highHalf, r1.highHalf, r2.highHalf, r3.highHalf)
            let d = transpose(r4.highHalf, r5.highHalf, r6.highHalf, r7.highHalf)
            let out = lanes + k
            out[0] = Lanes(lowHalf: a.0, highHalf: b.0)
            out[1] = Lanes(lowHalf: a.1, highHalf: b.1)
            out[2] = Lanes(lowHalf: a.2, highHalf: b.2)
            out[3] = Lanes(lowHalf: a.3, highHalf: b.3)
            out[4] = Lanes(lowHalf: c.0, highHalf: d.0)
            out[5] = Lanes(lowHalf: c.1, highHalf: d.1)
            out[6] = Lanes(lowHalf: c.2, highHalf: d.2)
            out[7] = Lanes(lowHalf: c.3, highHalf: d.3)
            k += 8
        }
        let floats = UnsafeMutableRawPointer(lanes).assumingMemoryBound(to: Float.self)
        while k < count {
            for lane in 0..<Lanes.scalarCount { floats[k * Lanes.scalarCount + lane] = sources[lane][k] }
            k += 1
        }
    }

    // MARK: - Helpers

    /// The transpose of the 4 × 4 block whose rows are `a`, `b`, `c`, `d`, as two rounds of interleaving.
    @inline(__always)
    static func transpose(
        _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let ab0 = SIMD4(a[0], b[0], a[1], b[1])
        let ab1 = SIMD4(a[2], b[2], a[3], b[3])
        let cd0 = SIMD4(c[0], d[0], c[1], d[1])
        let cd1 = SIMD4(c[2], d[2], c[3], d[3])
        return (
            SIMD4(lowHalf: ab0.lowHalf, highHalf: cd0.lowHalf), SIMD4(lowHalf: ab0.highHalf, highHalf: cd0.highHalf),
            SIMD4(lowHalf: ab1.lowHalf, highHalf: cd1.lowHalf), SIMD4(lowHalf: ab1.highHalf, highHalf: cd1.highHalf)
        )
    }

    /// Lane-wise minimum that compiles to a compare and a blend.
    @inline(__always)
    static func minimum(_ a: Lanes, _ b: Lanes) -> Lanes {
        a.replacing(with: b, where: b .< a)
    }
}
