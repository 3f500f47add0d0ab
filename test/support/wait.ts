/** Polling for a condition, every 10 ms, for the tests and their helpers. */

/** `probe`'s first value that is neither undefined nor false; throws after `timeoutMs`, naming `what`. */
export async function pollUntil<T>(
  probe: () => T | undefined | false,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
