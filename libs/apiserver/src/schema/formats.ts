// String/number formats checked by the validator. Unknown formats are accepted (kube-openapi is lenient too).
import { isIPv4, isIPv6 } from 'node:net';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day <= days;
}

function isDateTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec] = m;
  return validDate(y, mo, d) && Number(h) < 24 && Number(mi) < 60 && Number(sec) < 61;
}

function isUri(s: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a URI may not contain
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  if (s.startsWith('/')) return true; // absolute path reference, as url.ParseRequestURI accepts
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

const stringFormats: Record<string, (s: string) => boolean> = {
  'date-time': isDateTime,
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(m[1], m[2], m[3]);
  },
  byte: (s) => BASE64.test(s),
  uri: isUri,
  uuid: (s) => UUID.test(s),
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
};

/** True when `value` satisfies `format` (or the format is unknown / does not apply to the value's type). */
export function satisfiesFormat(format: string, value: unknown): boolean {
  if (typeof value === 'number') {
    if (format === 'int32') return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
    if (format === 'int64') return Number.isInteger(value);
    return true;
  }
  if (typeof value === 'string') {
    const check = stringFormats[format];
    return check ? check(value) : true;
  }
  return true;
}
