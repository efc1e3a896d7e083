import * as http from 'http';
import type { AddressInfo } from 'net';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiWarningHandler, KubeClient } from '@capi/controller-runtime';
import { parseWarningHeader } from '../../src/client/warnings';

describe('API warnings', () => {
  it("parses kube-apiserver's Warning header values", () => {
    expect(parseWarningHeader('299 - "unknown field \\"spec.foo\\""')).toEqual({
      code: 299,
      agent: '-',
      text: 'unknown field "spec.foo"',
    });
    expect(parseWarningHeader('not a warning')).toBeUndefined();
  });

  it('drops messages matching a discard expression', () => {
    const logged: string[] = [];
    const h = new ApiWarningHandler({ log: (m) => logged.push(m), discard: [/^metadata\.finalizers:/] });
    h.handle(
      [
        '299 - "metadata.finalizers: \\"x.io\\": prefer a domain-qualified finalizer name"',
        '299 - "unknown field \\"spec.x\\""',
      ],
      'PATCH /p',
    );
    expect(logged).toEqual(['unknown field "spec.x" (PATCH /p)']);
  });

  it("the client logs each code-299 warning of a response, naming the request (as controller-runtime's KubeAPIWarningLogger)", async () => {
    // What kube-apiserver sends for an object with fields its schema does not have (fieldValidation=Warn, the default).
    const server = http.createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET') {
        res.end(
          JSON.stringify({
            kind: 'APIResourceList',
            groupVersion: 'v1',
            resources: [{ name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'get'] }],
          }),
        );
        return;
      }
      res.setHeader('Warning', [
        '299 - "unknown field \\"spec.bogus\\""',
        '299 - "duplicate field \\"metadata.name\\""',
        '199 - "miscellaneous, ignored"',
      ]);
      res.end(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'default', resourceVersion: '1' },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    const logged: string[] = [];
    const client = new KubeClient(kc, { warnings: new ApiWarningHandler({ log: (m) => logged.push(m) }) });
    try {
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
    } finally {
      client.close();
      server.close();
    }
    expect(logged).toEqual([
      'unknown field "spec.bogus" (POST /api/v1/namespaces/default/configmaps)',
      'duplicate field "metadata.name" (POST /api/v1/namespaces/default/configmaps)',
    ]);
  });
});
