/// The template matcher's arithmetic on eight or sixteen templates at once: the Protractor dot products and banded
/// DTW.
///
/// This file is compiled three times: into `RecognitionKernels` for any CPU, into `RecognitionKernelsWide` (a
/// symbolic link to it) for x86-64-v3, where a vector of eight floats is one AVX register instead of two SSE
/// ones, and into `RecognitionKernelsAVX512` (another link) for x86-64-v4, where sixteen floats are one register;
/// `StrokeRecognition` picks the build the CPU runs once, at start. Swift never fuses a multiplication and an
/// addition unless asked, so the builds round every operation the same way and give the same bits (a test
/// compares them). Nothing here is `@inlinable`: inlined into the caller, the code would be compiled with the
/// caller's target.
///
/// Each kernel is written once, generic over `KernelLanes`, and made public for `Lanes` (a group of eight
/// templates) and `LanePair` (two groups side by side, lanes 0–7 and 8–15). A pair is one AVX-512 register, two
/// AVX2 or four SSE ones; the independent chains of its halves also hide each other's latency. Which stage takes
/// pairs in which build is `StrokeRecognition`'s choice, by measurement (Benchmarks-history.md, session 12).
public enum MatchingKernels {
    /// Templates computed at once, one per SIMD lane.
    public typealias Lanes = SIMD8<Float>
    /// Two groups of templates computed at once: the first group in lanes 0–7, the second in lanes 8–15.
    public typealias LanePair = SIMD16<Float>
    /// Floats per point of an elastic feature sequence (`[x, y, w·tx, w·ty]`).
    public static let stride = 4

    // MARK: - Protractor

    /// The two Protractor dot products of every group of eight templates with a stroke, `a = t·c` and
    /// `b = t·c⊥` where `c⊥ = (−cy, cx)` per point, and the similarity at the best rotation within the bound.
    ///
    /// The similarity is `√(a² + b²)` where the best angle, `atan2(b, a)`, is within `±maxRotation`, and
    /// `a·cos(maxRotation) + |b|·sin(maxRotation)` at the bound otherwise (`cosMax = -1`, `sinMax = 0`: no
    /// bound). `templates` holds the groups in pairs (`pairLayoutCount(groups:length:)` lane vectors): component
    /// `k` (`x0, y0, x1, y1, …`) of group `g` is at `(g / 2) × 2·length + 2k + g % 2`, so that a pair's two
    /// vectors of one component are one `LanePair`. `stroke` holds `length` floats; `a` and `b` of group `g` go
    /// to `dots[2g]` and `dots[2g + 1]`, its similarities to `similarities[g]`.
    @inline(never)
    public static func protractorSimilarities(
        templates: UnsafePointer<Lanes>, groups: Int, stroke c: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<Lanes>, similarities: UnsafeMutablePointer<Lanes>
    ) {
        for group in 0..<groups {
            let t = templates + (group / 2) * 2 * length + group % 2
            let (a, b, similarity) = protractor(
                { t[2 &* $0] }, stroke: c, length: length, cosMax: cosMax, sinMax: sinMax)
            dots[2 * group] = a
            dots[2 * group + 1] = b
            similarities[group] = similarity
        }
    }

    /// The same as `protractorSimilarities`, with the same layout and results, two groups at a time (`LanePair`);
    /// an odd last group is computed alone.
    @inline(never)
    public static func protractorSimilarityPairs(
        templates: UnsafePointer<Lanes>, groups: Int, stroke c: UnsafePointer<Float>, length: Int,
        cosMax: Float, sinMax: Float, dots: UnsafeMutablePointer<Lanes>, similarities: UnsafeMutablePointer<Lanes>
    ) {
        var group = 0
        while group + 2 <= groups {
            // A pair's two vectors of a component, side by side in memory bound to `Lanes`, loaded as one.
            let t = UnsafeRawPointer(templates + group * length)
            let (a, b, similarity) = protractor(
                { t.load(fromByteOffset: $0 &* MemoryLayout<LanePair>.stride, as: LanePair.self) }, stroke: c,
                length: length, cosMax: cosMax, sinMax: sinMax)
            dots[2 * group] = a.lowHalf
            dots[2 * group + 1] = b.lowHalf
            dots[2 * group + 2] = a.highHalf
            dots[2 * group + 3] = b.highHalf
            similarities[group] = similarity.lowHalf
            similarities[group + 1] = similarity.highHalf
            group += 2
        }
        if group < groups {
            protractorSimilarities(
                templates: templates + group * length, groups: 1, stroke: c, length: length, cosMax: cosMax,
                sinMax: sinMax, dots: dots + 2 * group, similarities: similarities + group)
        }
    }

    /// Lane vectors that `groups` groups of `length` components take in the pair layout of
    /// `protractorSimilarities`: an odd last group has a pair of its own.
    public static func pairLayoutCount(groups: Int, length: Int) -> Int {
        (groups + 1) / 2 * 2 * length
    }

    /// One vector of templates against the stroke: `t(k)` is component `k` of every lane's template.
    @inline(__always)
    static func protractor<L: KernelLanes>(
        _ t: (Int) -> L, stroke c: UnsafePointer<Float>, length: Int, cosMax: Float, sinMax: Float
    ) -> (a: L, b: L, similarity: L) {
        var a = L(repeating: 0)
        var b = L(repeating: 0)
        var k = 0
        while k < length {
            let x = t(k)
            let y = t(k + 1)
            let cx = L(repeating: c[k])
            let cy = L(repeating: c[k + 1])
            a = a + (x * cx + y * cy)
            b = b + (y * cx - x * cy)
            k += 2
        }
        let cosines = L(repeating: cosMax)
        let r = (a * a + b * b).squareRoot()
        let bound = a * cosines + L.magnitude(b) * L(repeating: sinMax)
        return (a, b, L.select(bound, where: a, isBelow: r * cosines, else: r))
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
        elastic(candidates: candidates, templates: templates, count: count, band: band, rows: rows)
    }

    /// The same as `elasticDistances` for sixteen pairs at once: two groups of candidates and templates, each
    /// point's features as pairs of lane vectors (the first group in lanes 0–7).
    @inline(never)
    public static func elasticDistances(
        candidates: UnsafePointer<LanePair>, templates: UnsafePointer<LanePair>, count: Int, band: Int,
        rows: UnsafeMutablePointer<LanePair>
    ) -> LanePair {
        elastic(candidates: candidates, templates: templates, count: count, band: band, rows: rows)
    }

    /// The body of both `elasticDistances`, for one group (`Lanes`) or two (`LanePair`).
    @inline(__always)
    static func elastic<L: KernelLanes>(
        candidates: UnsafePointer<L>, templates: UnsafePointer<L>, count: Int, band: Int, rows: UnsafeMutablePointer<L>
    ) -> L {
        let infinity = L(repeating: .infinity)
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
            @inline(__always) func cost(_ j: Int) -> L {
                let t = templates + j &* stride
                let d0 = c0 - t[0]
                let d1 = c1 - t[1]
                let d2 = c2 - t[2]
                let d3 = c3 - t[3]
                return (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3).squareRoot()
            }
            // The first cell: no left neighbour; in the first column no diagonal either; (0, 0) starts the path.
            let first: L
            if i == 0 {
                first = L(repeating: 0)
            } else {
                let diagonal = low > 0 ? previous[low &- 1] : infinity
                first = L.minimum(L.minimum(diagonal, previous[low]), infinity)
            }
            var left = cost(low) + first
            current[low] = left
            var j = low &+ 1
            while j <= high {
                left = cost(j) + L.minimum(L.minimum(previous[j &- 1], previous[j]), left)
                current[j] = left
                j &+= 1
            }
            if high < count - 1 { current[high + 1] = infinity }
            swap(&previous, &current)
        }
        return previous[count - 1] / L(repeating: Float(count))
    }

    /// A stroke's features turned by a different angle in each lane: for each pair `(x, y)` of `feature` (at `k`
    /// and `k + 1`, `k` even, `k + 1 < count`), `lanes[k × step] = x cos − y sin` and `lanes[(k + 1) × step] =
    /// x sin + y cos`, the cosines and sines of the lanes' angles in `cosine` and `sine`. A `step` of 2 fills one half
    /// of each `LanePair`.
    @inline(never)
    public static func rotatePairs(
        _ feature: UnsafePointer<Float>, count: Int, cosine: Lanes, sine: Lanes,
        into lanes: UnsafeMutablePointer<Lanes>,
        step: Int
    ) {
        var k = 0
        while k &+ 1 < count {
            let x = Lanes(repeating: feature[k])
            let y = Lanes(repeating: feature[k &+ 1])
            lanes[k &* step] = x * cosine - y * sine
            lanes[(k &+ 1) &* step] = x * sine + y * cosine
            k &+= 2
        }
    }

    /// Gathers eight sequences into lane vectors: `lanes[k × step][lane] = sources[lane][k]` for `k < count`.
    ///
    /// `sources` holds eight pointers (point an unused lane at zeros). Eight floats of each source are loaded as
    /// one vector and the 8 × 8 block is transposed in registers, four 4 × 4 blocks at a time, instead of storing
    /// 64 single floats; a tail of fewer than 8 is copied float by float. A `step` of 2 fills one half of each
    /// `LanePair` (start at `lanes + 1` for the second half).
    @inline(never)
    public static func gather(
        _ sources: UnsafePointer<UnsafePointer<Float>>, count: Int, into lanes: UnsafeMutablePointer<Lanes>,
        step: Int = 1
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
            let out = lanes + k &* step
            out[0] = Lanes(lowHalf: a.0, highHalf: b.0)
            out[step] = Lanes(lowHalf: a.1, highHalf: b.1)
            out[2 &* step] = Lanes(lowHalf: a.2, highHalf: b.2)
            out[3 &* step] = Lanes(lowHalf: a.3, highHalf: b.3)
            out[4 &* step] = Lanes(lowHalf: c.0, highHalf: d.0)
            out[5 &* step] = Lanes(lowHalf: c.1, highHalf: d.1)
            out[6 &* step] = Lanes(lowHalf: c.2, highHalf: d.2)
            out[7 &* step] = Lanes(lowHalf: c.3, highHalf: d.3)
            k += 8
        }
        while k < count {
            for lane in 0..<Lanes.scalarCount { lanes[k * step][lane] = sources[lane][k] }
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
}

// MARK: - Lane vectors

/// What the kernels compute with: `SIMD8<Float>` and `SIMD16<Float>`, each through its own concrete operations,
/// so that a kernel's generic body, specialized for either, compiles as if written for it.
///
/// The two conformances below repeat each other on purpose: written once in a protocol extension, `.<` and
/// `replacing(with:where:)` would be the generic `SIMD` ones, a loop over the lanes (a DTW kernel built that way
/// took 45 times as long).
protocol KernelLanes: SIMD where Scalar == Float {
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    func squareRoot() -> Self
    /// Lane-wise minimum that compiles to a compare and a blend: `b` where `b < a`, else `a`.
    static func minimum(_ a: Self, _ b: Self) -> Self
    /// `-b` where `b < 0`, else `b` (so −0 and NaN stay as they are).
    static func magnitude(_ b: Self) -> Self
    /// `value` where `lhs < rhs`, else `otherwise`.
    static func select(_ value: Self, where lhs: Self, isBelow rhs: Self, else otherwise: Self) -> Self
}

extension SIMD8: KernelLanes where Scalar == Float {
    @inline(__always)
    static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }

    @inline(__always)
    static func magnitude(_ b: Self) -> Self { b.replacing(with: -b, where: b .< 0) }

    @inline(__always)
    static func select(_ value: Self, where lhs: Self, isBelow rhs: Self, else otherwise: Self) -> Self {
        otherwise.replacing(with: value, where: lhs .< rhs)
    }
}

extension SIMD16: KernelLanes where Scalar == Float {
    @inline(__always)
    static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }

    @inline(__always)
    static func magnitude(_ b: Self) -> Self { b.replacing(with: -b, where: b .< 0) }

    @inline(__always)
    static func select(_ value: Self, where lhs: Self, isBelow rhs: Self, else otherwise: Self) -> Self {
        otherwise.replacing(with: value, where: lhs .< rhs)
    }
}
