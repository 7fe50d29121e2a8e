const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * The weekday (0 Sunday) and the `HH:mm` time of `now` on the clocks of `zone` (an IANA name). Work hours
 * and invitation hours are the site's, so they are read in its zone, never on the visitor's own clock.
 */
export function weekTimeIn(zone: string, now: Date): { day: number; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: WEEKDAYS.indexOf(part('weekday')), time: `${part('hour')}:${part('minute')}` };
}
