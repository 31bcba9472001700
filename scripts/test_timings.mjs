/**
 * A `node --test` reporter that writes how long each test file's top-level
 * tests took, as one JSON object `{ file: milliseconds }` at the end; the
 * test run's own output comes from the reporters given beside it.
 * `scripts/test_all.ts` reads it to print each leg's slowest files.
 *
 * @module
 */

/**
 * Sums the durations of the top-level tests (and suites) of each file.
 *
 * @param {AsyncIterable<{ type: string, data: { nesting: number, file?: string, details?: { duration_ms?: number } } }>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* testTimings(source) {
  const files = new Map();
  for await (const event of source) {
    if ((event.type !== "test:pass" && event.type !== "test:fail") || event.data.nesting !== 0) continue;
    const file = event.data.file ?? "(unknown)";
    files.set(file, (files.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  yield `${JSON.stringify(Object.fromEntries(files))}\n`;
}
