/** A person's time zone as users.info shows it: the offset and the zone's short name at a moment. */

/** The UTC offset of `tz` at `atMs`, in seconds (what users.info calls tz_offset). */
export function tzOffsetSeconds(tz: string, atMs: number): number {
  const dtf = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const parts: Record<string, number> = {};
  for (const p of dtf.formatToParts(new Date(atMs))) parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return Math.round((asUtc - Math.floor(atMs / 1000) * 1000) / 1000);
}

export function tzLabel(tz: string, atMs: number): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'long' })
    .formatToParts(new Date(atMs))
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? tz;
}
