// GET /metrics: the request counters as kube-apiserver serves them (apiserver_request_total), to authenticated
// clients only; the embedded server adds its writes by field manager and outcome (benchmarks read both over HTTP).
import { startTestServer, itEmbedded, type TestServer } from './support/server';
import { rawRequest } from './support/test-client';

jest.setTimeout(30000);

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.stop();
});

/** The value of the first sample of `metric` whose labels include every one of `labels`, summed over the others. */
function sampleSum(text: string, metric: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (m && Object.entries(labels).every(([k, v]) => m[1].split(',').includes(`${k}="${v}"`))) sum += Number(m[2]);
  }
  return sum;
}

const configMaps = '/api/v1/namespaces/default/configmaps';

describe('GET /metrics', () => {
  it('counts writes and reads per verb and resource in apiserver_request_total', async () => {
    const before = (await rawRequest(ts.conn, 'GET', '/metrics')).text;
    const post = (name: string) =>
      rawRequest(ts.conn, 'POST', `${configMaps}?fieldManager=metrics-test`, { metadata: { name } });
    expect((await post('metrics-a')).code).toBe(201);
    expect((await post('metrics-b')).code).toBe(201);
    expect((await post('metrics-a')).code).toBe(409);
    expect((await rawRequest(ts.conn, 'GET', `${configMaps}/metrics-a`)).code).toBe(200);
    const res = await rawRequest(ts.conn, 'GET', '/metrics');
    expect(res.code).toBe(200);
    const delta = (labels: Record<string, string>) =>
      sampleSum(res.text, 'apiserver_request_total', labels) - sampleSum(before, 'apiserver_request_total', labels);
    // kube-apiserver counts the refused create too (its code label tells them apart; the embedded server has none).
    expect(delta({ verb: 'POST', group: '', resource: 'configmaps' })).toBe(3);
    expect(delta({ verb: 'GET', group: '', resource: 'configmaps' })).toBe(1);
  });

  it('answers 401 to a wrong token', async () => {
    const res = await rawRequest({ ...ts.conn, token: 'not-the-token' }, 'GET', '/metrics');
    expect(res.code).toBe(401);
  });

  itEmbedded('counts writes by field manager and outcome in capi_apiserver_write_requests_total', async () => {
    const res = await rawRequest(ts.conn, 'GET', '/metrics');
    const writes = (outcome: string) =>
      sampleSum(res.text, 'capi_apiserver_write_requests_total', {
        verb: 'POST',
        resource: 'configmaps',
        field_manager: 'metrics-test',
        outcome,
      });
    expect([writes('changed'), writes('noop'), writes('failed')]).toEqual([2, 0, 1]);
  });
});
