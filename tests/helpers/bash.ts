/**
 * Bash command text written by tests: a value quoted as one word, and a
 * loop that holds a command until the test creates a file.
 *
 * Nothing here imports the library.
 */

/** `value` as one single-quoted shell word. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A bash loop that returns once `file` exists: a command waits in it until
 * the test creates the file, so what the command has done by then is
 * decided by the test, not by timing.
 */
export function untilFileExists(file: string): string {
  return `while [ ! -e ${shQuote(file)} ]; do sleep 0.01; done`;
}
