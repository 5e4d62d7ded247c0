package logic

func retry(n int) int {
	tries := 0
again:
	tries++
	if tries < n {
		goto again
	}
	if tries > 10 {
		goto done
	}
	tries *= 2
done:
	return tries
}
