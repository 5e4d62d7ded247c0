class Paths {
  int Chains(int x) {
    if (x > 0) { return 1; } else if (x < 0) return 2; else { x++; }
    foreach (var s in items) { Use(s); }
    return x;
  }

  void Switches(int x) {
    switch (x) {
      case 1: Use(1); break;
      case 2:
      case 3: Use(3); break;
      default: Use(0); break;
    }
  }

  async Task Handlers() {
    using (var r = Open()) { r.Read(); }
    using var q = Open();
    try { A(); } catch (IOException e) when (e != null) { throw; } catch { B(); } finally { C(); }
    await Task.Delay(1);
  }

  int Arrow(int x) => x + 1;
}
