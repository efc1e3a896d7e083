import { X509Certificate } from 'node:crypto';
import {
  applyServingCertsPlan,
  MAX_TIMER_MS,
  planServingCerts,
  reissueLeaf,
  renewalTime,
  ServingCertRotator,
} from './serving-certs';
import { generateServingCerts, type ServingCerts } from './tls';

const HOUR = 3600_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');
const notAfter = (pem: string) => Date.parse(new X509Certificate(pem).validTo);

describe('planServingCerts', () => {
  let certs: ServingCerts;
  beforeAll(async () => {
    // CA 30 hours, serving certificate 3 hours, issued at T0.
    certs = await generateServingCerts('127.0.0.1', { now: T0, caValidityMs: 30 * HOUR, leafValidityMs: 3 * HOUR });
  });

  it('renewal is due two thirds into a certificate life', () => {
    expect(renewalTime(certs.cert)).toBe(T0 + 2 * HOUR);
    expect(renewalTime(certs.caCert)).toBe(T0 + 20 * HOUR);
  });

  it.each([
    ['fresh certificates are kept', 0, 'keep'],
    ['just before the renewal time', 2 * HOUR - 1000, 'keep'],
    ['the serving certificate in the last third of its life', 2 * HOUR, 'leaf'],
    ['an expired serving certificate', 4 * HOUR, 'leaf'],
    ['the CA in the last third of its life', 20 * HOUR, 'ca'],
  ])('%s: %s', (_, after, want) => {
    expect(planServingCerts(certs, '127.0.0.1', T0 + after).type).toBe(want);
  });

  it('nothing stored, or a data dir of an older version (no CA key): a new CA', () => {
    expect(planServingCerts(undefined, '127.0.0.1', T0)).toMatchObject({ type: 'ca', why: 'no serving CA yet' });
    const { caKey: _, ...old } = certs;
    expect(planServingCerts(old, '127.0.0.1', T0)).toMatchObject({
      type: 'ca',
      why: expect.stringContaining('CA key'),
    });
  });

  it('a CA key of another CA, or an unreadable CA: a new CA', async () => {
    const other = await generateServingCerts('127.0.0.1', { now: T0 });
    expect(planServingCerts({ ...certs, caKey: other.caKey }, '127.0.0.1', T0)).toMatchObject({
      type: 'ca',
      why: 'the CA key does not match the CA certificate',
    });
    expect(planServingCerts({ ...certs, caCert: 'garbage' }, '127.0.0.1', T0).type).toBe('ca');
  });

  it('a serving certificate of another CA, with another key, or not naming the host: re-issued', async () => {
    const other = await generateServingCerts('127.0.0.1', { now: T0 });
    expect(planServingCerts({ ...certs, cert: other.cert, key: other.key }, '127.0.0.1', T0).type).toBe('leaf');
    expect(planServingCerts({ ...certs, key: other.key }, '127.0.0.1', T0).type).toBe('leaf');
    expect(planServingCerts({ ...certs, cert: undefined }, '127.0.0.1', T0).type).toBe('leaf');
    expect(planServingCerts(certs, 'localhost', T0).type).toBe('keep');
    expect(planServingCerts(certs, '10.0.0.7', T0)).toMatchObject({
      type: 'leaf',
      why: expect.stringContaining('10.0.0.7'),
    });
    expect(planServingCerts(certs, 'api.example', T0).type).toBe('leaf');
  });

  it('a re-issued serving certificate keeps the CA, names the host and is valid from now', async () => {
    const now = T0 + 2 * HOUR;
    const next = await applyServingCertsPlan(certs, { type: 'leaf', why: '' }, '10.0.0.7', now, {
      leafValidityMs: 3 * HOUR,
    });
    expect(next.caCert).toBe(certs.caCert);
    expect(next.caKey).toBe(certs.caKey);
    expect(next.cert).not.toBe(certs.cert);
    expect(planServingCerts(next, '10.0.0.7', now).type).toBe('keep');
    expect(notAfter(next.cert)).toBe(now + 3 * HOUR);
  });

  it('a serving certificate is never valid longer than its CA', async () => {
    const next = await reissueLeaf(certs, '127.0.0.1', T0 + 28 * HOUR, { leafValidityMs: 3 * HOUR });
    expect(notAfter(next.cert)).toBe(notAfter(certs.caCert));
  });

  it('a new CA replaces both', async () => {
    const next = await applyServingCertsPlan(certs, { type: 'ca', why: '' }, '127.0.0.1', T0 + 20 * HOUR);
    expect(next.caCert).not.toBe(certs.caCert);
    expect(next.caKey).not.toBe(certs.caKey);
    expect(planServingCerts(next, '127.0.0.1', T0 + 20 * HOUR).type).toBe('keep');
  });
});

describe('ServingCertRotator', () => {
  afterEach(() => jest.useRealTimers());

  const logs = () => ({ info: jest.fn(), warn: jest.fn(), error: jest.fn() });

  it('re-issues the serving certificate at its renewal time, again and again, on the injected clock', async () => {
    const start = Date.now();
    const certs = await generateServingCerts('127.0.0.1', { now: start, leafValidityMs: 1500 });
    const installed: ServingCerts[] = [];
    const l = logs();
    const r = new ServingCertRotator(certs, {
      host: '127.0.0.1',
      validity: { leafValidityMs: 1500 },
      now: Date.now,
      install: (c) => installed.push(c),
      ...l,
    });
    r.start();
    try {
      await waitFor(() => installed.length >= 2, 8000);
    } finally {
      r.stop();
    }
    expect(installed[0].caCert).toBe(certs.caCert);
    expect(notAfter(installed[0].cert)).toBeGreaterThan(notAfter(certs.cert));
    expect(notAfter(installed[1].cert)).toBeGreaterThan(notAfter(installed[0].cert));
    expect(r.current()).toBe(installed[installed.length - 1]);
    expect(l.info).toHaveBeenCalledWith(
      expect.stringMatching(/^serving certificate renewed under the same CA: valid until/),
    );
    expect(l.error).not.toHaveBeenCalled();
  });

  it('waits at most Node maximum timer at a time, unref-ed, and renews only once the clock reaches the renewal time', async () => {
    const certs = await generateServingCerts('127.0.0.1', { now: T0 });
    jest.useFakeTimers();
    let now = T0;
    const install = jest.fn();
    const spy = jest.spyOn(global, 'setTimeout');
    const r = new ServingCertRotator(certs, { host: '127.0.0.1', validity: {}, now: () => now, install, ...logs() });
    r.start();
    expect(spy).toHaveBeenLastCalledWith(expect.any(Function), MAX_TIMER_MS);
    expect((spy.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
    // The timer fires early (capped): the clock is not there yet, so it waits on.
    now += MAX_TIMER_MS;
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(install).not.toHaveBeenCalled();
    expect(spy).toHaveBeenCalledTimes(2);
    r.stop();
    spy.mockRestore();
  });

  it('a failed renewal is logged and retried, the certificate in use stays', async () => {
    const certs = await generateServingCerts('127.0.0.1', { now: Date.now(), leafValidityMs: 1500 });
    const l = logs();
    let fail = true;
    const r = new ServingCertRotator(certs, {
      host: '127.0.0.1',
      validity: { leafValidityMs: 1500 },
      now: Date.now,
      install: () => {
        if (fail) throw new Error('disk full');
      },
      ...l,
    });
    r.start();
    try {
      await waitFor(() => l.error.mock.calls.length > 0, 5000);
    } finally {
      r.stop();
    }
    expect(l.error).toHaveBeenCalledWith(expect.stringMatching(/renewal failed, retrying in 60s: disk full/));
    expect(r.current()).toBe(certs);
    fail = false;
  });
});

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
