package logic

func find(grid [][]int, want int) (int, int) {
outer:
	for i, row := range grid {
		for j := 0; j < len(row); j++ {
			if row[j] < 0 {
				continue outer
			}
			if row[j] == want {
				break outer
			}
		}
	}
	return -1, -1
}
