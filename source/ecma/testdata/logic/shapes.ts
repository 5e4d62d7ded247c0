export function pick(x: number): string {
  switch (x) {
    case 1:
    case 2:
      log(x);
      break;
    default:
      return "many";
  }
  return "few";
}

export async function walk(items: string[]): Promise<void> {
  outer: for (const item of items) {
    for (let i = 0; i < 3; i++) {
      if (item === "") continue outer;
    }
  }
  do {
    items.pop();
  } while (items.length > 0);
}

export async function load(url: string) {
  try {
    const r = await fetch(url);
    return r;
  } catch (e) {
    throw new Error(String(e));
  } finally {
    done();
  }
}

export const twice = (n: number) => n * 2;
