import { CheckRegistry, type Endpoint, renderChecks, serveHealth } from '@capi/manager';
import { get } from '../support/http';

describe('CheckRegistry', () => {
  it('reports thrown errors, false and reason strings as failures', async () => {
    const r = new CheckRegistry();
    r.add('ok', () => true);
    r.add('void', () => undefined);
    r.add('false', () => false);
    r.add('reason', () => 'cache not synced');
    r.add('throws', async () => {
      throw new Error('client not warmed up');
    });
    expect(await r.run()).toEqual([
      { name: 'ok', ok: true },
      { name: 'void', ok: true },
      { name: 'false', ok: false, reason: 'not ready' },
      { name: 'reason', ok: false, reason: 'cache not synced' },
      { name: 'throws', ok: false, reason: 'client not warmed up' },
    ]);
    expect(() => r.add('ok', () => true)).toThrow(/already registered/);
  });

  it('renders like the Kubernetes healthz handler', () => {
    expect(renderChecks('readyz', [{ name: 'ping', ok: true }], false)).toEqual({ status: 200, body: 'ok' });
    expect(
      renderChecks(
        'readyz',
        [
          { name: 'ping', ok: true },
          { name: 'cache', ok: false, reason: 'x' },
        ],
        false,
      ),
    ).toEqual({
      status: 500,
      body: '[+]ping ok\n[-]cache failed: x\nreadyz check failed\n',
    });
  });
});

describe('serveHealth', () => {
  let endpoint: Endpoint;
  let synced = false;
  beforeAll(async () => {
    const readiness = new CheckRegistry();
    readiness.add('informers-synced', () => synced || 'waiting for caches');
    endpoint = await serveHealth('127.0.0.1:0', new CheckRegistry(), readiness);
  });
  afterAll(() => endpoint.close());

  it('/healthz is ok while /readyz waits for its checks', async () => {
    expect(await get(endpoint.port, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    const notReady = await get(endpoint.port, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[-]informers-synced failed: waiting for caches');
    synced = true;
    expect(await get(endpoint.port, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(endpoint.port, '/readyz?verbose')).body).toBe(
      '[+]ping ok\n[+]informers-synced ok\nreadyz check passed\n',
    );
    expect((await get(endpoint.port, '/nope')).status).toBe(404);
  });

  it('/livez is an alias of /healthz: same checks, failing when a liveness check fails', async () => {
    const health = new CheckRegistry();
    let alive = true;
    health.add('leader-lease', () => alive || 'lease lost');
    const ep = await serveHealth('127.0.0.1:0', health, new CheckRegistry());
    try {
      expect(await get(ep.port, '/livez')).toMatchObject({ status: 200, body: 'ok' });
      expect((await get(ep.port, '/livez?verbose')).body).toBe('[+]ping ok\n[+]leader-lease ok\nlivez check passed\n');
      alive = false;
      const dead = await get(ep.port, '/livez');
      expect(dead.status).toBe(500);
      expect(dead.body).toBe('[+]ping ok\n[-]leader-lease failed: lease lost\nlivez check failed\n');
      expect((await get(ep.port, '/healthz')).status).toBe(500);
      expect((await get(ep.port, '/livez/extra')).status).toBe(404);
    } finally {
      await ep.close();
    }
  });
});
