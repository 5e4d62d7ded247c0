#include "store.hpp"

namespace shop {

/// A cart.
class Cart : public Base {
public:
    Cart();
    void add(int n);
    int count_ = 0;
private:
    void reset() {}
};

void Cart::add(int n) { reset(); helper(n); Util::run(); }

int helper(int n) { return n; }

TEST(CartTest, Adds) { Cart c; c.add(1); }

}
