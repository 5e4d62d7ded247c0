import Foundation

/// A cart of items.
public class Cart: Base, Store {
    let max = 3
    private var count = 0

    public func add(_ n: Int) {
        reset()
        Helper.run(n)
    }

    private func reset() {}
}

protocol Store { func add(_ n: Int) }

struct Point { var x: Int }

enum Mode { case fast, slow }

extension Cart { func clear() {} }

func helper(_ n: Int) -> Int { return n }

final class CartTests: XCTestCase {
    func testAdds() { Cart().add(1) }
}
