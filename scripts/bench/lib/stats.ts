/**
 * The little statistics the report needs, and number formatting.
 *
 * @module
 */

/** The `q` quantile (0…1) of `values`, linearly interpolated; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

/** The median of `values`; NaN when empty. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** `value` with `digits` decimals, or `—` when it is not a number. */
export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "—";
}

/** A relative difference as a signed percentage: `0.031` → `+3.1%`. */
export function percent(fraction: number): string {
  if (!Number.isFinite(fraction)) return "—";
  const sign = fraction > 0 ? "+" : fraction < 0 ? "−" : "±";
  return `${sign}${Math.abs(fraction * 100).toFixed(1)}%`;
}

/** A speed ratio: `0.934` → `×0.93`. */
export function times(ratio: number): string {
  return Number.isFinite(ratio) ? `×${ratio.toFixed(2)}` : "—";
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return fixed(bytes / (1024 * 1024), 1);
}

/** Milliseconds as `4m 12s` / `12.3s`. */
export function duration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
}
