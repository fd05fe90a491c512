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

/** Easter Sunday of a year (the Gregorian computus, Meeus/Jones/Butcher), as YYYY-MM-DD. */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((8 * b + 13) / 25)) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const shift = (date: string, days: number) => new Date(Date.parse(`${date}T12:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Days the Brazilian banks do not settle: weekends, the national holidays and the banks' own
 * (Carnaval Monday and Tuesday, Good Friday, Corpus Christi: FEBRABAN's calendar). Local holidays
 * are not counted.
 */
export function isBankHoliday(date: string): boolean {
  const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return true;
  if (['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '11-20', '12-25'].includes(date.slice(5))) return true;
  const e = easter(Number(date.slice(0, 4)));
  return [-48, -47, -2, 60].some((d) => shift(e, d) === date);
}

/** The first bank business day after a São Paulo date (a boleto paid that day is credited then). */
export function nextBusinessDay(date: string): string {
  let d = shift(date, 1);
  while (isBankHoliday(d)) d = shift(d, 1);
  return d;
}
