import { Registry } from 'prom-client';
import { hostOf, PromClientMetrics } from './client-metrics';

describe('hostOf (client-go request metrics host: url.URL.Host of the server)', () => {
  it.each([
    ['https://10.96.0.1:443', '10.96.0.1:443'], // the default port stays when written, as Go's url.Host
    ['https://127.0.0.1:6443/', '127.0.0.1:6443'],
    ['https://api.example.com', 'api.example.com'],
    ['https://[::1]:6443/prefix?x=1', '[::1]:6443'],
    ['https://user:pw@kube.local:8443', 'kube.local:8443'],
    ['10.0.0.1:6443', '10.0.0.1:6443'],
    ['', 'none'],
    [undefined, 'none'],
  ])('%s → %s', (server, host) => expect(hostOf(server)).toBe(host));
});

describe('PromClientMetrics (pkg/metrics/client_go_adapter.go)', () => {
  it('counts requests by code, HTTP method and host; no response is code "<error>"', async () => {
    const registry = new Registry();
    const m = new PromClientMetrics(registry);
    const base = { kind: 'Machine', host: '10.96.0.1:443' } as const;
    m.observe({ ...base, verb: 'get', method: 'GET', code: 200 });
    m.observe({ ...base, verb: 'list', method: 'GET', code: 200 });
    m.observe({ ...base, verb: 'create', method: 'POST', code: 201 });
    m.observe({ ...base, verb: 'apply', method: 'PATCH', code: 409 });
    m.observe({ ...base, verb: 'delete', method: 'DELETE', code: 0 });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE rest_client_requests_total counter');
    expect(text).toContain('rest_client_requests_total{code="200",host="10.96.0.1:443",method="GET"} 2');
    expect(text).toContain('rest_client_requests_total{code="201",host="10.96.0.1:443",method="POST"} 1');
    expect(text).toContain('rest_client_requests_total{code="409",host="10.96.0.1:443",method="PATCH"} 1');
    expect(text).toContain('rest_client_requests_total{code="<error>",host="10.96.0.1:443",method="DELETE"} 1');
  });
});
