/** Polls `check` until it returns truthy or the timeout passes (then throws with the label). Test helper. */
export async function eventually<T>(check: () => T | Promise<T>, label = 'condition', timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
