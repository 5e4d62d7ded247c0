package logic;

class Flow {
  int chains(int x) {
    if (x > 0) {
      return 1;
    } else if (x < 0) return 2;
    else {
      x++;
    }
    return x;
  }

  void loops(int x, java.util.List<String> list) {
    for (int i = 0; i < x; i++) {
      if (i == 3) continue;
      if (i == 4) break;
    }
    for (String s : list) {
      use(s);
    }
    while (x > 0) x--;
    do {
      x++;
    } while (x < 10);
    outer:
    for (;;) {
      for (String s : list) {
        if (s.isEmpty()) break outer;
      }
    }
  }

  int switches(int x) {
    switch (x) {
      case 1:
        use("one");
      case 2:
        use("two");
        break;
      default:
        use("other");
    }
    return switch (x) {
      case 1 -> 2;
      default -> 3;
    };
  }

  void handlers() throws Exception {
    try (var r = open()) {
      r.read();
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw new Exception(e);
    } finally {
      close();
    }
    synchronized (this) {
      use("locked");
    }
    throw new IllegalStateException("done");
  }
}
