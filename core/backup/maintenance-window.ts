/**
 * Maintenance windows: `;`-separated windows, each `[days=<d>|<d>...,]time=HH:MM-HH:MM`.
 * Days are `sun`..`sat`, full English names or `0`-`6` (0 = Sunday), case-insensitive; no days
 * means every day. A window whose start is after its end crosses midnight (the part after
 * midnight belongs to the next day). Windows are OR'ed; an empty string means "always".
 */
export interface MaintenanceWindow {
  /** Days of the week the window starts on, 0 = Sunday; all seven when none were given. */
  days: number[];
  /** Minutes after midnight. */
  start: number;
  end: number;
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function parseDay(token: string): number {
  const t = token.trim().toLowerCase();
  if (/^[0-6]$/.test(t)) return Number(t);
  const index = DAY_NAMES.findIndex((name) => name === t || name.slice(0, 3) === t);
  if (index < 0) throw new Error(`unknown day "${token.trim()}"`);
  return index;
}

function parseClock(token: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(token.trim());
  if (!m) throw new Error(`"${token.trim()}" is not HH:MM`);
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 24 || min > 59 || (h === 24 && min !== 0)) throw new Error(`"${token.trim()}" is not a time of day`);
  return h * 60 + min;
}

/** Parses the whole string; throws an Error naming the bad segment. */
export function parseMaintenanceWindows(text: string): MaintenanceWindow[] {
  const windows: MaintenanceWindow[] = [];
  for (const raw of text.split(';')) {
    const segment = raw.trim();
    if (segment === '') continue;
    let days: number[] | undefined;
    let range: [number, number] | undefined;
    // `days=` lists use `|`, so the only commas separate the two parts.
    for (const part of segment.split(',')) {
      const eq = part.indexOf('=');
      const key = eq < 0 ? '' : part.slice(0, eq).trim().toLowerCase();
      const value = eq < 0 ? '' : part.slice(eq + 1);
      try {
        if (key === 'days' && days === undefined) {
          days = [...new Set(value.split('|').map(parseDay))].sort((a, b) => a - b);
        } else if (key === 'time' && range === undefined) {
          const bounds = value.split('-');
          if (bounds.length !== 2) throw new Error('time needs HH:MM-HH:MM');
          range = [parseClock(bounds[0]!), parseClock(bounds[1]!)];
          if (range[0] === range[1]) throw new Error('start and end are equal');
        } else {
          throw new Error(`unexpected "${part.trim()}"`);
        }
      } catch (err) {
        throw new Error(`window "${segment}": ${(err as Error).message}`);
      }
    }
    if (!range) throw new Error(`window "${segment}": time=HH:MM-HH:MM is required`);
    windows.push({ days: days ?? [0, 1, 2, 3, 4, 5, 6], start: range[0], end: range[1] });
  }
  return windows;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Weekday (0 = Sunday) and minute of the day of `at` in `timeZone` (the process zone when absent). */
function wallClock(at: Date, timeZone?: string): { day: number; minute: number } {
  if (!timeZone) return { day: at.getDay(), minute: at.getHours() * 60 + at.getMinutes() };
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return { day: WEEKDAYS.indexOf(part('weekday')), minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** Whether `at` falls inside any window, read in `timeZone` (default: the server's); no windows means always. */
export function withinMaintenanceWindows(windows: MaintenanceWindow[], at: Date, timeZone?: string): boolean {
  if (windows.length === 0) return true;
  const { day, minute } = wallClock(at, timeZone);
  const yesterday = (day + 6) % 7;
  return windows.some((w) =>
    w.start < w.end
      ? w.days.includes(day) && minute >= w.start && minute < w.end
      : (w.days.includes(day) && minute >= w.start) || (w.days.includes(yesterday) && minute < w.end),
  );
}
