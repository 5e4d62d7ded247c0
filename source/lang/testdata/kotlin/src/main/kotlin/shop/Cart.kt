package shop.core

import shop.util.Helper
import shop.util.run as go

/** A cart of items. */
class Cart(val name: String) : Base(), Store {
    private var count = 0
    val max: Int = 3

    fun add(n: Int) {
        reset()
        Helper.run(n)
        count.toString()
    }

    private fun reset() {}

    companion object {
        const val LIMIT = 9
        fun create(): Cart = Cart("x")
    }

    enum class Mode { FAST, SLOW }
}

interface Store {
    fun add(n: Int)
}

object Registry {
    fun find(): Cart? = null
}

data class Item(val name: String)

typealias Carts = List<Cart>

fun topLevel(): Int = 1

class CartTest {
    @Test
    fun adds() { Cart("a").add(1) }
}
