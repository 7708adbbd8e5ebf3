extension TemplateLibrary {
    /// Builds a compact library from labelled samples by condensing (Hart's condensed nearest neighbour).
    ///
    /// It starts from one sample per gesture (the first after a seeded shuffle) and passes over the samples,
    /// adding every sample the library built so far misrecognizes, until a pass adds nothing or `maxPasses` is
    /// reached. The result recognizes all its training samples with far fewer templates than the whole set.
    public static func condensed(
        name: String,
        samples: [DollarLog],
        orientation: Orientation = .sensitive,
        configuration: RecognizerConfiguration = .default,
        seed: UInt64 = 1,
        maxPasses: Int = 4
    ) throws(RecognitionError) -> TemplateLibrary {
        var generator = SeededGenerator(seed: seed)
        let shuffled = samples.shuffled(using: &generator)
        var library = TemplateLibrary(
            name: name, orientation: orientation, elasticDeadZoneDegrees: shapeElasticDeadZoneDegrees)
        var seen = Set<String>()
        for sample in shuffled where seen.insert(sample.gesture).inserted {
            library.add(GestureTemplate(name: sample.gesture, strokePoints: sample.points))
        }
        for _ in 0..<maxPasses {
            var added = 0
            var recognizer = try Recognizer(library: library, configuration: configuration)
            for sample in shuffled {
                let result = try recognizer.recognize(sample.points)
                if result.candidates.first?.name != sample.gesture {
                    library.add(GestureTemplate(name: sample.gesture, strokePoints: sample.points))
                    recognizer = try Recognizer(library: library, configuration: configuration)
                    added += 1
                }
            }
            if added == 0 { break }
        }
        return library
    }
}

extension TemplateLibrary {
    /// Builds a library of `perGesture` representative templates per gesture: the medoids of a k-medoids
    /// clustering of each gesture's samples under the elastic distance (greedy farthest-point start, then
    /// alternating assignment and medoid update).
    ///
    /// Medoids cover the different ways people draw a gesture, which is what a library used by people it was not
    /// built from needs; with `condense`, samples the medoids still misrecognize are added afterwards.
    public static func medoids(
        name: String,
        samples: [DollarLog],
        perGesture: Int,
        orientation: Orientation = .sensitive,
        configuration: RecognizerConfiguration = .default,
        iterations: Int = 8
    ) throws(RecognitionError) -> TemplateLibrary {
        var library = TemplateLibrary(
            name: name, orientation: orientation, elasticDeadZoneDegrees: shapeElasticDeadZoneDegrees)
        let n = configuration.pointCount
        let groups = Dictionary(grouping: samples, by: \.gesture)
        for gesture in groups.keys.sorted() {
            let members = groups[gesture]!
            var features = [ShapeFeatures]()
            for member in members {
                features.append(
                    try ShapeFeatures(
                        points: member.points.map(\.position), pointCount: n,
                        tangentWeight: configuration.tangentWeight))
            }
            let count = features.count
            var distance = [Float](repeating: 0, count: count * count)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * n) { scratch in
                for i in 0..<count {
                    for j in (i + 1)..<max(count, i + 1) {
                        let d = features[i].elastic.withUnsafeBufferPointer { a in
                            features[j].elastic.withUnsafeBufferPointer { b in
                                ElasticMatcher.distance(
                                    a.baseAddress!, b.baseAddress!, count: n, band: configuration.band,
                                    abandonAbove: .infinity, scratch: scratch.baseAddress!)
                            }
                        }
                        distance[i * count + j] = d
                        distance[j * count + i] = d
                    }
                }
            }
            let k = min(perGesture, count)
            // Start: the most central sample, then repeatedly the one farthest from the chosen.
            var chosen = [
                (0..<count).min { a, b in
                    (0..<count).reduce(0) { $0 + distance[a * count + $1] }
                        < (0..<count).reduce(0) { $0 + distance[b * count + $1] }
                }!
            ]
            while chosen.count < k {
                let next = (0..<count).max { a, b in
                    chosen.map { distance[a * count + $0] }.min()! < chosen.map { distance[b * count + $0] }.min()!
                }!
                chosen.append(next)
            }
            for _ in 0..<iterations {
                var clusters = [[Int]](repeating: [], count: k)
                for i in 0..<count {
                    let nearest = (0..<k).min { distance[i * count + chosen[$0]] < distance[i * count + chosen[$1]] }!
                    clusters[nearest].append(i)
                }
                var changed = false
                for c in 0..<k where !clusters[c].isEmpty {
                    let medoid = clusters[c].min { a, b in
                        clusters[c].reduce(0) { $0 + distance[a * count + $1] }
                            < clusters[c].reduce(0) { $0 + distance[b * count + $1] }
                    }!
                    if medoid != chosen[c] {
                        chosen[c] = medoid
                        changed = true
                    }
                }
                if !changed { break }
            }
            for index in chosen.sorted() {
                library.add(GestureTemplate(name: gesture, strokePoints: members[index].points))
            }
        }
        return library
    }
}
