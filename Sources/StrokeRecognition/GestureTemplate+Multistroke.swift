// MARK: - Multistroke templates

extension GestureTemplate {
    /// The most strokes a template may have: 4! orders × 2⁴ directions make 384 unistrokes to match.
    public static let maximumStrokes = 4

    /// The template as every unistroke a person could draw it as: its strokes in every order, each either way,
    /// joined end to start, so that the jump from one stroke to the next is part of the path (the method of $N,
    /// Anthony and Wobbrock, Graphics Interface 2010); each keeps where its strokes start, so that the matcher
    /// tells the jumps from the strokes. The order and directions drawn come first.
    ///
    /// A template of one stroke gives just itself: a single stroke's direction is part of its shape.
    public var unistrokes: [GestureTemplate] {
        guard strokeCount > 1 else { return [self] }
        let strokes = self.strokes
        return Self.orders(of: strokes.count).flatMap { order in
            (0..<(1 << strokes.count)).map { joined(strokes, order: order, reversed: $0) }
        }
    }

    /// The paths the matcher compares a gesture with for this template: its unistrokes in a library that
    /// matches any stroke order (`unistrokes`), else the template as drawn and, where strokes may go either way,
    /// with each of its strokes reversed in every combination, in the drawn order (the drawn path first).
    public func paths(order: TemplateLibrary.StrokeOrder, direction: TemplateLibrary.StrokeDirection)
        -> [GestureTemplate]
    {
        guard reversesStrokes(order: order, direction: direction) else {
            return order == .any && strokeCount > 1 ? unistrokes : [self]
        }
        let strokes = self.strokes
        let drawn = Array(strokes.indices)
        return (0..<(1 << strokes.count)).map { joined(strokes, order: drawn, reversed: $0) }
    }

    /// Whether `paths(order:direction:)` gives this template with its strokes reversed in the drawn order: then
    /// every path but the first is drawn backward. Not in a library that matches any order, where a template of
    /// several strokes is matched every way (`unistrokes`) whatever the direction says.
    func reversesStrokes(order: TemplateLibrary.StrokeOrder, direction: TemplateLibrary.StrokeDirection) -> Bool {
        direction == .any && !(order == .any && strokeCount > 1)
    }

    /// A template of this name whose path is `strokes` in `order`, joined end to start, the one at position `k` of
    /// the order reversed where bit `k` of `reversed` is set.
    private func joined(_ strokes: [ArraySlice<SIMD2<Double>>], order: [Int], reversed: Int) -> GestureTemplate {
        var variant = GestureTemplate(name: name, points: [])
        variant.points.reserveCapacity(points.count)
        for (position, stroke) in order.enumerated() {
            if position > 0 { variant.strokeStarts.append(variant.points.count) }
            if reversed & (1 << position) == 0 {
                variant.points.append(contentsOf: strokes[stroke])
            } else {
                variant.points.append(contentsOf: strokes[stroke].reversed())
            }
        }
        return variant
    }

    /// Every order of `count` strokes, starting with `0, 1, …, count − 1` (lexicographic).
    static func orders(of count: Int) -> [[Int]] {
        guard count > 1 else { return [Array(0..<count)] }
        var result = [[Int]]()
        for first in 0..<count {
            let rest = (0..<count).filter { $0 != first }
            for tail in orders(of: count - 1) {
                result.append([first] + tail.map { rest[$0] })
            }
        }
        return result
    }

    /// What is wrong with the template's strokes (more than `maximum`, if given, or an empty one), or nil.
    func strokeProblem(maximum: Int?) -> String? {
        if let maximum, strokeCount > maximum {
            return
                "has \(strokeCount) strokes; at most \(maximum) (in a library that matches any stroke order or "
                + "direction)"
        }
        var previous = 0
        for start in strokeStarts {
            guard start > previous, start < points.count else { return "has an empty stroke" }
            previous = start
        }
        return nil
    }
}
