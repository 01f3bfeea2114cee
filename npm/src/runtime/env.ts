// Host globals the code needs, typed here so the package compiles without DOM or Node typings.
interface ConsoleLike {
  log(...args: unknown[]): void;
  warn(...args: unknown[]): void;
}

export function consoleRef(): ConsoleLike {
  return (globalThis as unknown as { console: ConsoleLike }).console;
}
