// Ported from k8s.io/apiserver pkg/admission/plugin/webhook/errors/statuserror_test.go (TestToStatusErr).
import { checkDryRun, deniedError } from './call';

describe('deniedError (ToStatusErr)', () => {
  const deniedBy = 'admission webhook "test.example.com" denied the request';
  it.each([
    ['nil result', undefined, `${deniedBy} without explanation`, 400],
    ['only message', { message: 'you shall not pass' }, `${deniedBy}: you shall not pass`, 400],
    ['only reason', { reason: 'Forbidden' }, `${deniedBy}: Forbidden`, 400],
    [
      'message and reason',
      { message: 'you shall not pass', reason: 'Forbidden' },
      `${deniedBy}: you shall not pass`,
      400,
    ],
    ['no message, no reason', {}, `${deniedBy} without explanation`, 400],
    ['custom 4xx status code', { code: 401 }, `${deniedBy} without explanation`, 401],
    ['custom 5xx status code', { code: 500 }, `${deniedBy} without explanation`, 500],
    ['200 status code', { code: 200 }, `${deniedBy} without explanation`, 400],
    ['300 status code', { code: 300 }, `${deniedBy} without explanation`, 400],
    ['399 status code', { code: 399 }, `${deniedBy} without explanation`, 400],
  ])('%s', (_name, result, message, code) => {
    const e = deniedError('test.example.com', result);
    expect(e.message).toBe(message);
    expect(e.code).toBe(code);
    expect(e.toStatus()).toMatchObject({ status: 'Failure', message, code });
  });

  it('keeps the reason and details the webhook gave (a 422 Invalid with causes)', () => {
    const details = { name: 'x', kind: 'Widget', causes: [{ reason: 'FieldValueInvalid', field: 'spec.size' }] };
    const s = deniedError('v.example.com', { code: 422, reason: 'Invalid', message: 'bad size', details }).toStatus();
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "v.example.com" denied the request: bad size',
      details,
    });
  });
});

describe('checkDryRun', () => {
  const hook = (sideEffects?: string) => ({ name: 'w.example.com', clientConfig: {}, sideEffects });
  it('lets dry runs reach only webhooks without side effects', () => {
    expect(() => checkDryRun(hook('None'), true)).not.toThrow();
    expect(() => checkDryRun(hook('NoneOnDryRun'), true)).not.toThrow();
    expect(() => checkDryRun(hook('Unknown'), false)).not.toThrow();
    expect(() => checkDryRun(hook('Unknown'), true)).toThrow(
      'admission webhook "w.example.com" does not support dry run',
    );
    expect(() => checkDryRun(hook('Some'), true)).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest' }));
  });
});
