import { defaultApiWarnings } from './api-warnings';

describe("the manager's API warning handler (cluster-api util/apiwarnings.DefaultHandler)", () => {
  it("drops kube-apiserver's finalizer-name warnings for Cluster API finalizers, logs every other warning", () => {
    const logged: string[] = [];
    const handler = defaultApiWarnings((m) => logged.push(m));
    // As kube-apiserver v1.36 sent them to the manager during the demo (Warning header values).
    handler.handle(
      [
        '299 - "metadata.finalizers: \\"machine.cluster.x-k8s.io\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
        '299 - "metadata.finalizers: \\"kubeadm.controlplane.cluster.x-k8s.io\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
        '299 - "metadata.finalizers: \\"inmemorymachine.infrastructure.cluster.x-k8s.io\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
        // Older kube-apiserver wording (before the "including a path" hint).
        '299 - "metadata.finalizers: \\"machine.cluster.x-k8s.io\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
        '299 - "metadata.finalizers: \\"example.com\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
        '299 - "unknown field \\"spec.bogus\\""',
      ],
      'PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines/m',
    );
    expect(logged).toEqual([
      'metadata.finalizers: "example.com": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers (PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines/m)',
      'unknown field "spec.bogus" (PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines/m)',
    ]);
  });
});
