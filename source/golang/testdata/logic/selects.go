package logic

func drain(in <-chan int, quit <-chan struct{}) (sum int) {
	for {
		select {
		case v, ok := <-in:
			if !ok {
				return sum
			}
			sum += v
		case <-quit:
			return sum
		default:
			break
		}
	}
}
