import { RequestMetrics } from './metrics';

describe('RequestMetrics in Prometheus text', () => {
  it("renders kube-apiserver's apiserver_request_total labels and the writes by field manager and outcome", () => {
    const m = new RequestMetrics();
    m.record('get', 'cluster.x-k8s.io/machines');
    m.record('patch', 'cluster.x-k8s.io/machines/status', { fieldManager: 'capi-machine', outcome: 'changed' });
    m.record('patch', 'cluster.x-k8s.io/machines/status', { fieldManager: 'capi-machine', outcome: 'noop' });
    m.record('patch', 'cluster.x-k8s.io/machines/status', { fieldManager: 'capi-machine', outcome: 'failed' });
    m.record('create', '/pods/eviction');
    const samples = m
      .renderPrometheus()
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(samples).toEqual([
      'apiserver_request_total{verb="GET",group="cluster.x-k8s.io",resource="machines",subresource=""} 1',
      'apiserver_request_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status"} 3',
      'apiserver_request_total{verb="POST",group="",resource="pods",subresource="eviction"} 1',
      'capi_apiserver_write_requests_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status",field_manager="capi-machine",outcome="changed"} 1',
      'capi_apiserver_write_requests_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status",field_manager="capi-machine",outcome="noop"} 1',
      'capi_apiserver_write_requests_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status",field_manager="capi-machine",outcome="failed"} 1',
    ]);
  });
});
