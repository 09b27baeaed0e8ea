// Number and time formatting, and escaping for plotly's pseudo-HTML labels.

/** Six significant digits; exponent notation when they would show 1e6 or more, or under 1e-4. */
export function fmtValue(v) {
  if (v === null || v === undefined) return '–';
  if (!Number.isFinite(v)) return String(v);
  const shown = Number(v.toPrecision(6)); // decide on the rounded value: 999999.7 is 1.0000e+6
  if (shown !== 0 && (Math.abs(shown) >= 1e6 || Math.abs(shown) < 1e-4)) return v.toExponential(4);
  return String(shown);
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Seconds since the epoch as local "YYYY-MM-DD HH:MM:SS". */
export function fmtWall(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  const d = new Date(seconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Seconds since the epoch as local "HH:MM:SS", with the date if not today. */
export function fmtClock(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  const full = fmtWall(seconds);
  return new Date(seconds * 1000).toDateString() === new Date().toDateString() ? full.slice(11) : full;
}

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  // The unit is picked after rounding: 1048575 bytes is 1.0 MiB, not 1024.0 KiB.
  const kib = (n / 1024).toFixed(1);
  if (Number(kib) < 1024) return `${kib} KiB`;
  const mib = (n / 1024 ** 2).toFixed(1);
  if (Number(mib) < 1024) return `${mib} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** Plotly renders trace names and texts as pseudo-HTML: escape what comes from logs. */
export function escPlotly(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Wall time (seconds) as the number a plotly date axis shows as local time: plotly
 * reads epoch milliseconds as UTC, so shift by the local offset at that instant.
 */
export function localMs(seconds) {
  const ms = seconds * 1000;
  return ms - new Date(ms).getTimezoneOffset() * 60000;
}

/** A plotly date-axis value (a "YYYY-MM-DD HH:MM:SS.sss" string or ms) back to localMs units. */
export function parseAxisDate(value) {
  if (typeof value === 'number') return value;
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d)(?::(\d\d)(?::(\d\d)(\.\d+)?)?)?)?/.exec(String(value));
  if (!m) return NaN;
  const [, y, mo, d, hh = 0, mm = 0, ss = 0, frac = '0'] = m;
  return Date.UTC(+y, +mo - 1, +d, +hh, +mm, +ss) + parseFloat(frac) * 1000;
}

/** "1 run", "2 runs", "1,000 runs". */
export function plural(n, noun) {
  return `${n.toLocaleString()} ${noun}${n === 1 ? '' : 's'}`;
}

/** A duration: "42 s", "3.5 min", "2.1 h"; "" when unknown (still running). */
export function fmtDuration(seconds) {
  if (seconds === null || seconds === undefined) return '';
  if (seconds < 120) return `${Number(seconds.toPrecision(3))} s`;
  if (seconds < 7200) return `${Number((seconds / 60).toPrecision(3))} min`;
  return `${Number((seconds / 3600).toPrecision(3))} h`;
}

