package logic

func counter() func() int {
	n := 0
	inc := func() int {
		if n > 100 {
			panic("overflow")
		}
		n++
		return n
	}
	return inc
}

func mustPositive(n int) int {
	if n < 0 {
		panic("negative")
	} else if n == 0 {
		return 1
	}
	return n
}
