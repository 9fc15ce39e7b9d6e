// How values are shown: scaled with their unit by default, the raw register words (hex) on demand.
import { h } from './dom.js';

let showRaw = false;

/** Switches every value shown from now on between scaled (false) and raw (true). */
export function setRaw(raw) {
  showRaw = raw;
}

/** Whether raw values are shown. */
export function rawShown() {
  return showRaw;
}

function decimals(scale) {
  const text = String(scale);
  if (text.includes('e-')) return Number(text.split('e-')[1]);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Significant digits a float register holds (7 for f32, 15 for f64); 0 for integers and unknown types. */
function floatDigits(reg) {
  return reg && reg.type === 'f32' ? 7 : reg && reg.type === 'f64' ? 15 : 0;
}

/**
 * A float with `digits` significant digits, trailing zeros dropped down to `atLeast` decimals: 2.5 → "2.5",
 * 2 → "2" ("2.0" when the scale has a decimal). Never rounded to the scale's decimals (f32 2.5 with
 * `scale: 1` is "2.5", not "3"); the same rule as the CLI's (Sources/lastset/ValueDisplay.swift).
 */
function floatText(x, digits, atLeast) {
  if (x === 0) return (0).toFixed(atLeast);
  const magnitude = Math.abs(x);
  if (magnitude < 1e-6 || magnitude >= 1e15) return x.toExponential(digits - 1);
  const places = Math.max(0, digits - 1 - Math.floor(Math.log10(magnitude)));
  let text = x.toFixed(Math.min(places, 100));
  if (places <= atLeast) return text;
  let drop = places - atLeast;
  while (drop > 0 && text.endsWith('0')) {
    text = text.slice(0, -1);
    drop -= 1;
  }
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

/** The text of a register value: scaled and with its unit (register definition `reg` may be missing). */
export function valueText(value, reg) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object' && value.hex !== undefined) return `0x${value.hex}`;
  if (typeof value === 'string') return `“${value}”`;
  if (typeof value !== 'number') return JSON.stringify(value);
  const scale = reg && typeof reg.scale === 'number' ? reg.scale : 1;
  const digits = floatDigits(reg);
  let text;
  if (digits > 0 && Number.isFinite(value)) {
    text = floatText(value * scale, digits, decimals(scale));
  } else if (scale !== 1) {
    text = (value * scale).toFixed(decimals(scale));
  } else if (Number.isInteger(value)) {
    text = String(value);
  } else {
    text = String(Number(value.toPrecision(7)));
  }
  return reg && reg.unit ? `${text} ${reg.unit}` : text;
}

/**
 * A value cell's content: the scaled value, or (raw on) the unscaled value and its hex words. `hex` is the
 * register's authoritative bytes when known; `unset` marks a register still at its "not set" default.
 */
export function valueNode(value, reg, hex, unset) {
  if (showRaw) {
    const raw = value === null || value === undefined ? '—' : typeof value === 'object' ? `0x${value.hex}` : String(value);
    return h('span.raw', {}, hex ? `${raw} [${hex}]` : raw);
  }
  if (unset) return h('span.muted', { title: `raw ${value}` }, 'not set');
  return h('span', {}, valueText(value, reg));
}

/** A date as local "YYYY-MM-DD HH:MM:SS" (the full ISO time as its tooltip). */
export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A <time> element for an ISO date. */
export function timeNode(iso) {
  return iso ? h('time', { datetime: iso, title: iso }, when(iso)) : '—';
}

const statusClass = {
  verified: 'ok', unchanged: 'ok', succeeded: 'ok', planned: 'ok', ok: 'ok', true: 'ok',
  differs: 'warn', notAttempted: 'muted', warning: 'warn', reachable: 'ok', unreachable: 'bad', match: 'ok',
  mismatch: 'bad', rejected: 'bad', failed: 'bad', refused: 'bad', false: 'bad',
  conforms: 'ok', latest: 'ok', drifted: 'bad', older: 'warn', unverified: 'warn', inDoubt: 'bad',
  noTemplate: 'bad', neverApplied: 'muted', partiallyWritten: 'bad', nothingToRestore: 'muted',
};

/** Words for a status name: "notAttempted" → "not attempted"; unknown statuses keep their own name. */
export function statusWords(status) {
  return String(status).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A status badge; a status this console does not know is still shown, as itself, in a neutral style. */
export function badge(status) {
  const cls = statusClass[status] || 'unknown';
  return h(`span.badge.${cls}`, { dataset: { status: String(status) } }, statusWords(status));
}
