fun chains(x: Int): Int {
    if (x > 0) { return 1 } else if (x < 0) return 2 else { step() }
    return x
}

fun loops(xs: List<Int>) {
    for (x in xs) { if (x == 3) continue; if (x == 4) break }
    outer@ for (x in xs) { for (y in xs) { if (y > x) break@outer } }
    do { step() } while (more())
}

fun arms(x: Int): Int {
    when (x) {
        1 -> one()
        2, 3 -> { two() }
        else -> throw IllegalStateException()
    }
    try { a() } catch (e: Exception) { b() } finally { c() }
    return 0
}

fun single(x: Int) = x + 1
