int Shapes::chains(int x) {
  if (x > 0) {
    return 1;
  } else if (x < 0) {
    step();
  }
  for (auto& s : items) {
    use(s);
  }
  switch (x) {
    case 1:
      use(1);
    case 2:
      use(2);
      break;
    default:
      use(0);
  }
  try {
    risky();
  } catch (const std::exception& e) {
    throw;
  } catch (...) {
    recover();
  }
  return x;
}
