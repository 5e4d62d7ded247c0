int drain(struct queue *q) {
  int n = 0;
  while (q->head) {
    if (!take(q)) {
      goto fail;
    }
    n++;
  }
  return n;
fail:
  reset(q);
  return -1;
}
