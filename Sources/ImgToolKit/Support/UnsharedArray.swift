extension Array {
    /// `init(unsafeUninitializedCapacity:initializingWith:)`, except that a capacity of 0 gives a
    /// plain `[]` (after calling `initializer` with an empty buffer).
    ///
    /// The standard library's initializer sets the count of the array it allocated even when it
    /// allocated nothing, and then the array is the storage every empty array shares: two
    /// threads doing so at once, or one doing so while another reads an empty array's count,
    /// write and read that shared storage together (the same 0), which ThreadSanitizer reports
    /// as a race once the initializer is inlined into an optimized build.
    init<Failure: Error>(
        unsharedUninitializedCapacity capacity: Int,
        initializingWith initializer: (_ buffer: inout UnsafeMutableBufferPointer<Element>, _ count: inout Int)
            throws(Failure) -> Void
    ) throws(Failure) {
        guard capacity > 0 else {
            var buffer = UnsafeMutableBufferPointer<Element>(start: nil, count: 0)
            var count = 0
            try initializer(&buffer, &count)
            self = []
            return
        }
        self = try Array(unsafeUninitializedCapacity: capacity, initializingWith: initializer)
    }
}
