package logic

import "fmt"

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int, int64:
		if x == 0 {
			return "zero"
		}
	case string:
		panic("strings are not numbers")
	}
	return fmt.Sprint(v)
}

func grade(n int) (g string) {
	switch {
	case n > 90:
		g = "A"
		fallthrough
	case n > 80:
		g += "B"
	default:
		g = "C"
	case n < 0:
		return "invalid"
	}
	return g
}
