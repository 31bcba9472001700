/**
 * A polluted `Object.prototype`, as a hostile dependency of a harness could
 * leave it, for exactly as long as a body runs.
 *
 * Nothing here imports the library.
 */

/** Runs `body` with every entry of `planted` on Object.prototype, removing them afterwards whatever happens. */
export async function withPollutedPrototype<T>(planted: Record<string, unknown>, body: () => Promise<T>): Promise<T> {
  for (const [key, value] of Object.entries(planted)) {
    Object.defineProperty(Object.prototype, key, { value, configurable: true, enumerable: true, writable: true });
  }
  try {
    return await body();
  } finally {
    for (const key of Object.keys(planted)) delete (Object.prototype as Record<string, unknown>)[key];
  }
}
