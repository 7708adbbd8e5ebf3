/// A recognizer's gestures by name, and where their templates lie among the Protractor stage's lanes: what a
/// recognition among some gestures (`Recognizer.Selection`) needs, built once with the recognizer.
///
/// Names are found in an open-addressing table keyed by their FNV-1a hashes: a `Dictionary<String, Int32>` hashed
/// each name of each such recognition with Swift's seeded SipHash, about 320 instructions a name (callgrind). A
/// gesture's templates are listed by group of lanes, so that a selection marks its gestures' lanes, not the other
/// way round: looking each template's gesture up cost about 16 instructions a template, 2,000 a recognition with
/// the built-in library.
struct GestureIndex: Sendable {
    /// Gesture ids by slot (`hash & (count − 1)`, then the next slots), -1 where empty; at least twice as many slots
    /// as gestures, a power of two.
    private let slots: [Int32]
    /// The groups of lanes gesture `id`'s templates lie in, each as `group << 8 | lanes` (a bit per lane), are
    /// `groups[groupStarts[id]..<groupStarts[id + 1]]`.
    private let groupStarts: [Int32]
    private let groups: [UInt32]

    /// The index of gestures `names` (indices are ids, each name once), given each template's gesture id in
    /// library order and the lanes of a group (at most 8).
    init(names: [String], gestureIDs: [Int32], laneCount: Int) {
        precondition(laneCount <= 8, "a group's lanes are bits of a byte")
        var count = 16
        while count < 2 * names.count { count *= 2 }
        var slots = [Int32](repeating: -1, count: count)
        for (id, name) in names.enumerated() {
            var slot = Self.slot(of: name, mask: count - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (count - 1) }
            slots[slot] = Int32(id)
        }
        self.slots = slots
        var byGesture = [[UInt32]](repeating: [], count: names.count)
        for (template, id) in gestureIDs.enumerated() {
            let group = UInt32(template / laneCount)
            let bit = UInt32(1) << UInt32(template % laneCount)
            if let last = byGesture[Int(id)].last, last >> 8 == group {
                byGesture[Int(id)][byGesture[Int(id)].count - 1] = last | bit
            } else {
                byGesture[Int(id)].append(group << 8 | bit)
            }
        }
        var starts = [Int32(0)]
        for entries in byGesture { starts.append(starts.last! + Int32(entries.count)) }
        self.groupStarts = starts
        self.groups = byGesture.flatMap { $0 }
    }

    /// The id of the gesture called `name`, given the names the index was built from; nil if none is.
    @inline(__always)
    func id(of name: String, among names: [String]) -> Int32? {
        let mask = slots.count - 1
        var slot = Self.slot(of: name, mask: mask)
        while true {
            let id = slots[slot]
            guard id >= 0 else { return nil }
            if names[Int(id)] == name { return id }
            slot = (slot + 1) & mask
        }
    }

    /// Sets the lanes of gesture `id`'s templates in `lanes` (a byte per group) and returns how many templates they
    /// are; returns 0, setting nothing, when they are set already (the gesture was chosen before).
    @inline(__always)
    func mark(_ id: Int32, in lanes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let range = Int(groupStarts[Int(id)])..<Int(groupStarts[Int(id) + 1])
        guard let first = range.first.map({ groups[$0] }), lanes[Int(first >> 8)] & UInt8(first & 0xFF) == 0 else {
            return 0
        }
        var templates = 0
        for entry in groups[range] {
            lanes[Int(entry >> 8)] |= UInt8(entry & 0xFF)
            templates += (entry & 0xFF).nonzeroBitCount
        }
        return templates
    }

    /// FNV-1a (64 bits) of the name's UTF-8 bytes, folded to a slot.
    @inline(__always)
    private static func slot(of name: String, mask: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32)) & mask
    }
}
