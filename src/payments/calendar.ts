// Calendar arithmetic in São Paulo time, where every due date, expiry and settlement of the platform
// is counted. Brazil has had no daylight saving time since 2019: São Paulo is UTC-3 all year.
export const DAY_MS = 86_400_000;
const SP_OFFSET_MS = 3 * 3600_000;

/** The São Paulo calendar date (YYYY-MM-DD) of an instant. */
export const spDate = (d: Date): string => new Date(d.getTime() - SP_OFFSET_MS).toISOString().slice(0, 10);

/** The first millisecond of a São Paulo calendar date. */
export const startOfSpDay = (date: string): Date => new Date(`${date}T00:00:00.000-03:00`);

/** The last millisecond of a São Paulo calendar date. */
export const endOfSpDay = (date: string): Date => new Date(`${date}T23:59:59.999-03:00`);
