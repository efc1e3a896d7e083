/** Polls `check` until it returns truthy or `timeoutMs` passes (then throws naming `label`). Test helper. */
type Falsy = undefined | null | false | 0 | '';

export async function eventually<T>(check: () => T | Falsy | Promise<T | Falsy>, label: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
