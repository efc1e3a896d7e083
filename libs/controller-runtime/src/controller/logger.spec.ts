import type { LoggerService } from '@nestjs/common';
import { FieldLogger, reconcileContext } from './logger';

function recording() {
  const calls: Array<{ level: string; args: unknown[] }> = [];
  const rec =
    (level: string) =>
    (...args: unknown[]) =>
      void calls.push({ level, args });
  const sink: LoggerService = { log: rec('log'), warn: rec('warn'), error: rec('error'), debug: rec('debug') };
  return { sink, calls };
}

describe('FieldLogger', () => {
  it('passes its bound fields, merged with the call fields, as one object parameter', () => {
    const { sink, calls } = recording();
    const log = new FieldLogger(sink, { controller: 'c' }).withValues({ step: 'a' });
    log.log('hello', { n: 1 });
    log.warn('careful');
    log.error('bad', { step: 'b' });
    log.debug('detail');
    expect(calls).toEqual([
      { level: 'log', args: ['hello', { controller: 'c', step: 'a', n: 1 }] },
      { level: 'warn', args: ['careful', { controller: 'c', step: 'a' }] },
      { level: 'error', args: ['bad', { controller: 'c', step: 'b' }] },
      { level: 'debug', args: ['detail', { controller: 'c', step: 'a' }] },
    ]);
  });
});

describe('reconcileContext', () => {
  it('binds the object under its kind and as namespace/name, a fresh reconcileID, and passes the signal on', () => {
    const { sink } = recording();
    const base = new FieldLogger(sink, { controller: 'machineset' });
    const stop = new AbortController();
    const a = reconcileContext(base, 'MachineSet', { namespace: 'ns', name: 'ms-1' }, stop.signal);
    const b = reconcileContext(base, 'MachineSet', { namespace: 'ns', name: 'ms-1' }, stop.signal);
    expect(a.log.fields).toEqual({
      controller: 'machineset',
      MachineSet: { namespace: 'ns', name: 'ms-1' },
      namespace: 'ns',
      name: 'ms-1',
      reconcileID: a.reconcileID,
    });
    expect(a.reconcileID).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.reconcileID).not.toBe(b.reconcileID);
    expect(a.signal).toBe(stop.signal);
    const cluster = reconcileContext(base, 'ExtensionConfig', { name: 'ext' }, stop.signal);
    expect(cluster.log.fields).toEqual({
      controller: 'machineset',
      ExtensionConfig: { name: 'ext' },
      name: 'ext',
      reconcileID: cluster.reconcileID,
    });
  });
});
