import {
  busiestResource,
  clientRequestRows,
  clientRequestsByMethod,
  PROCESS_HEADER,
  processRows,
  qpsOf,
  type PhaseClientRequests,
} from './manager-cost';

// As the manager's /metrics prints them: the management API server and a workload cluster's, on other ports.
const METRICS = `# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 30
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 50
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PATCH"} 5
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 15
rest_client_requests_total{code="<error>",host="127.0.0.1:6443",method="GET"} 1
rest_client_requests_total{code="200",host="127.0.0.1:40001",method="GET"} 900
controller_runtime_reconcile_total{controller="machine",result="success"} 7
`;

describe("the manager's requests to the management API server", () => {
  it('sums rest_client_requests_total by method for that server only, failed requests included', () => {
    expect(clientRequestsByMethod(METRICS, '127.0.0.1:6443')).toEqual({ GET: 31, PATCH: 55, POST: 15 });
    expect(clientRequestsByMethod(METRICS, '127.0.0.1:1')).toEqual({});
  });

  it('takes the QPS limit from the manager flags when it limits', () => {
    expect(qpsOf(['--kube-api-qps=100', '--kube-api-burst=200'])).toBe(100);
    expect(qpsOf(['--kube-api-qps=20', '--kube-api-qps=50'])).toBe(50);
    expect(qpsOf(['--kube-api-qps=-1'])).toBeUndefined();
    expect(qpsOf([])).toBeUndefined();
  });

  it('the busiest resource counts a subresource with its object (one token bucket per kind)', () => {
    expect(
      busiestResource({
        'patch cluster.x-k8s.io/machines/status': 600,
        'apply cluster.x-k8s.io/machines': 200,
        'patch cluster.x-k8s.io/machinesets/status': 700,
        'create /events': 100,
      }),
    ).toEqual({ resource: 'cluster.x-k8s.io/machines', writes: 800 });
    expect(busiestResource({ 'create /events': 3 })).toEqual({ resource: 'events', writes: 3 });
    expect(busiestResource({})).toBeUndefined();
  });

  it('per phase: requests, reads and writes, per Machine, and with a QPS the busiest resource, floor, time over it', () => {
    const phases: PhaseClientRequests[] = [
      {
        phase: 'create',
        seconds: 30,
        clientRequests: { GET: 500, PATCH: 2000, POST: 500 },
        byResource: { 'patch cluster.x-k8s.io/machines/status': 1000, 'create /events': 500 },
      },
      { phase: 'in place', seconds: 10, clientRequests: {}, byResource: {} },
    ];
    const limited = clientRequestRows(phases, 100, 100);
    expect(limited.header.slice(-4)).toEqual([
      'busiest resource',
      'its writes/Machine',
      'floor s (÷ 100 QPS)',
      'time / floor',
    ]);
    expect(limited.rows).toEqual([
      ['create', 3000, 500, 2500, 30, 5, 25, 'cluster.x-k8s.io/machines', 10, 10, 3],
      ['in place', 0, 0, 0, 0, 0, 0, '-', 0, 0, '-'],
    ]);
    const unlimited = clientRequestRows(phases, 100);
    expect(unlimited.rows[0]).toEqual(['create', 3000, 500, 2500, 30, 5, 25]);
    expect(unlimited.rows.every((r) => r.length === unlimited.header.length)).toBe(true);
  });
});

describe('CPU time and peak RSS by process', () => {
  it('one row per phase and process, the manager first and the bench last, per Machine too', () => {
    const rows = processRows(
      [
        {
          phase: 'create',
          rssMiB: 100,
          othersRssMiB: { 'API server': 300, manager: 400 },
          cpuSeconds: { self: 2, others: { 'API server': 10, manager: 20 } },
        },
        // The workload servers seen in this phase only, with no CPU reading.
        {
          phase: 'in place',
          rssMiB: 110,
          othersRssMiB: { manager: 500, 'workload servers': 50 },
          cpuSeconds: { self: 3, others: { manager: 30 } },
        },
      ],
      1000,
      'bench',
      'manager',
    );
    expect(rows.every((r) => r.length === PROCESS_HEADER.length)).toBe(true);
    expect(rows).toEqual([
      ['create', 'manager', 20, 20, 400, 409.6],
      ['create', 'API server', 10, 10, 300, 307.2],
      ['create', 'workload servers', '-', '-', '-', '-'],
      ['create', 'bench', 2, 2, 100, 102.4],
      ['in place', 'manager', 30, 30, 500, 512],
      ['in place', 'API server', '-', '-', '-', '-'],
      ['in place', 'workload servers', '-', '-', 50, 51.2],
      ['in place', 'bench', 3, 3, 110, 112.64],
    ]);
  });
});
