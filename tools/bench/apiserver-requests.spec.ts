import { readsFromMetrics, writesByManagerFromMetrics, writesFromMetrics } from './apiserver-requests';

// Lines as kube-apiserver v1.36 prints them (GET /metrics), plus the HELP/TYPE lines and other metrics around them.
const METRICS = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="secrets",scope="namespace",subresource="",verb="LIST",version="v1"} 40
apiserver_request_total{code="201",component="apiserver",dry_run="",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="",verb="POST",version="v1beta2"} 10
apiserver_request_total{code="409",component="apiserver",dry_run="",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="",verb="POST",version="v1beta2"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="status",verb="APPLY",version="v1beta2"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="status",verb="PATCH",version="v1beta2"} 3
apiserver_request_total{code="201",component="apiserver",dry_run="All",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="",verb="POST",version="v1beta2"} 5
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 6
apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="endpoints",scope="resource",subresource="",verb="POST",version="v1"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="DELETE",version="v1"} 1
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="cluster.x-k8s.io",resource="machines",scope="resource",subresource="",verb="POST",version="v1beta2"} 12
`;

describe('writes at the management API server from apiserver_request_total', () => {
  it("sums write verbs per resource across response codes, in the embedded server's keys; reads, dry runs and kube-apiserver's own writes left out", () => {
    expect(writesFromMetrics(METRICS)).toEqual({
      'create cluster.x-k8s.io/machines': 12,
      'apply cluster.x-k8s.io/machines/status': 7,
      'patch cluster.x-k8s.io/machines/status': 3,
      'create /events': 4,
      'delete /secrets': 1,
    });
  });

  it('reads are counted apart, by get/list/watch', () => {
    expect(readsFromMetrics(METRICS)).toEqual({ 'list /secrets': 40 });
  });

  it("reads the embedded server's samples the same way, and its writes by field manager and outcome", () => {
    const embedded = [
      'apiserver_request_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status"} 3',
      'apiserver_request_total{verb="LIST",group="",resource="secrets",subresource=""} 2',
      'capi_apiserver_write_requests_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status",field_manager="capi-machine",outcome="changed"} 1',
      'capi_apiserver_write_requests_total{verb="PATCH",group="cluster.x-k8s.io",resource="machines",subresource="status",field_manager="capi-machine",outcome="failed"} 2',
      'capi_apiserver_write_requests_total{verb="APPLY",group="",resource="secrets",subresource="",field_manager="capi-inmemory",outcome="noop"} 4',
    ].join('\n');
    expect(writesFromMetrics(embedded)).toEqual({ 'patch cluster.x-k8s.io/machines/status': 3 });
    expect(readsFromMetrics(embedded)).toEqual({ 'list /secrets': 2 });
    expect(writesByManagerFromMetrics(embedded)).toEqual({
      all: { 'patch cluster.x-k8s.io/machines/status capi-machine': 3, 'apply /secrets capi-inmemory': 4 },
      noop: { 'apply /secrets capi-inmemory': 4 },
      failed: { 'patch cluster.x-k8s.io/machines/status capi-machine': 2 },
    });
    expect(writesByManagerFromMetrics(METRICS)).toEqual({ all: {}, noop: {}, failed: {} });
  });
});
