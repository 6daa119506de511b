/**
 * A numeric bench setting from the environment. A typo (`BENCH_ROUNDS=five`) stops the bench
 * with the setting's name instead of running it with NaN.
 */
export function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return value;
}
