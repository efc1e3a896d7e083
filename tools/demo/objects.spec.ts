import { readFileSync } from 'node:fs';
import type { KubeObject } from '@capi/apimachinery';
import { templateVariables } from './envsubst';
import {
  CLUSTER_TEMPLATE_PATH,
  DEFAULT_DEMO,
  bootstrapTemplateObject,
  createDemoCluster,
  demoObjects,
  machineTemplateObject,
  names,
  renderObjects,
  templateValues,
} from './objects';
import { renderTemplateCommand } from './render-template';

const template = readFileSync(CLUSTER_TEMPLATE_PATH, 'utf8');
const byKind = (objs: KubeObject[], kind: string) => objs.filter((o) => o.kind === kind);
const spec = (o: KubeObject) => (o as unknown as { spec: any }).spec;

describe('examples/clusters/cluster-inmemory.yaml', () => {
  it('documents every variable it uses at the top, with its default', () => {
    const documented = new Map<string, string | undefined>();
    for (const m of template.matchAll(/^# {3}([A-Z_]+) +(required|default "?([^"; \n]+)"?)/gm))
      documented.set(m[1], m[2] === 'required' ? undefined : m[3]);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(templateVariables(template)));
    expect([...documented.keys()]).toEqual(
      expect.arrayContaining([
        'CLUSTER_NAME',
        'NAMESPACE',
        'KUBERNETES_VERSION',
        'CONTROL_PLANE_MACHINE_COUNT',
        'WORKER_MACHINE_COUNT',
      ]),
    );
  });

  it('renders the demo cluster: the names the demo patches, counts as numbers, one version and image', () => {
    const s = { ...DEFAULT_DEMO, cluster: 'c1', namespace: 'ns1', controlPlaneReplicas: 5, workerReplicas: 2 };
    const n = names(s);
    const objs = demoObjects(s);
    expect(objs.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'cluster.x-k8s.io/v1beta2 Cluster ns1/c1',
      'infrastructure.cluster.x-k8s.io/v1alpha1 InMemoryCluster ns1/c1',
      `infrastructure.cluster.x-k8s.io/v1alpha1 InMemoryMachineTemplate ns1/${n.cpInfraTemplate(1)}`,
      `controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane ns1/${n.controlPlane}`,
      `bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfigTemplate ns1/${n.bootstrapTemplate}`,
      `infrastructure.cluster.x-k8s.io/v1alpha1 InMemoryMachineTemplate ns1/${n.mdInfraTemplate(1)}`,
      `cluster.x-k8s.io/v1beta2 MachineDeployment ns1/${n.machineDeployment}`,
    ]);
    for (const o of objs) expect(o.metadata.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'c1' });
    const [cluster] = byKind(objs, 'Cluster');
    expect(spec(cluster).controlPlaneRef.name).toBe(n.controlPlane);
    expect(spec(cluster).infrastructureRef.name).toBe('c1');
    const [kcp] = byKind(objs, 'KubeadmControlPlane');
    expect(spec(kcp)).toMatchObject({ replicas: 5, version: 'v1.31.0' });
    expect(spec(kcp).machineTemplate.spec.infrastructureRef.name).toBe(n.cpInfraTemplate(1));
    const [md] = byKind(objs, 'MachineDeployment');
    expect(spec(md)).toMatchObject({ clusterName: 'c1', replicas: 2 });
    expect(spec(md).template.spec).toMatchObject({ clusterName: 'c1', version: 'v1.31.0' });
    expect(spec(md).template.spec.bootstrap.configRef.name).toBe(n.bootstrapTemplate);
    expect(spec(md).template.spec.infrastructureRef.name).toBe(n.mdInfraTemplate(1));
    // No defaulting webhook: the selector is spelled out and matches the template's labels.
    expect(spec(md).selector.matchLabels).toEqual(spec(md).template.metadata.labels);
    expect(spec(md).selector.matchLabels['cluster.x-k8s.io/deployment-name']).toBe(n.machineDeployment);
    for (const t of byKind(objs, 'InMemoryMachineTemplate'))
      expect(spec(t).template.spec.image).toBe('ubuntu-24.04-v1');
  });

  it('uses its defaults for what clusterctl defaults: namespace, machine counts, image', () => {
    const objs = renderObjects(template, { CLUSTER_NAME: 'x', KUBERNETES_VERSION: 'v1.30.2' });
    expect(new Set(objs.map((o) => o.metadata.namespace))).toEqual(new Set(['default']));
    expect(spec(byKind(objs, 'KubeadmControlPlane')[0]).replicas).toBe(1);
    expect(spec(byKind(objs, 'MachineDeployment')[0]).replicas).toBe(0);
    expect(spec(byKind(objs, 'InMemoryMachineTemplate')[0]).template.spec.image).toBe('ubuntu-24.04-v1');
  });

  it('names the missing variable when a required one is not given', () => {
    const { KUBERNETES_VERSION: _, ...values } = templateValues(DEFAULT_DEMO);
    expect(() => renderObjects(template, values)).toThrow('value for variables [KUBERNETES_VERSION] is not set');
  });
});

describe('demo objects built from the template', () => {
  it('createDemoCluster creates the rendered objects in order, as kubectl apply would (no ownerReferences)', async () => {
    const created: KubeObject[] = [];
    await createDemoCluster(
      async (obj) => {
        created.push(obj);
        return obj as never;
      },
      DEFAULT_DEMO,
      (md) => {
        md.spec.replicas = 7;
      },
    );
    const rendered = demoObjects(DEFAULT_DEMO);
    expect(created.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      rendered.map((o) => `${o.kind}/${o.metadata.name}`),
    );
    const md = created.find((o) => o.kind === 'MachineDeployment')!;
    // The controllers set the Cluster ownerReferences (the MachineDeployment's: machinedeployment_controller.go).
    expect(created.every((o) => o.metadata.ownerReferences === undefined)).toBe(true);
    expect(spec(md).replicas).toBe(7);
    // Everything else as rendered.
    for (const o of created.filter((x) => x.kind !== 'MachineDeployment'))
      expect(o).toEqual(rendered.find((r) => r.kind === o.kind && r.metadata.name === o.metadata.name));
  });

  it("the rollout's templates are the template's, with another name and image", () => {
    const n = names(DEFAULT_DEMO);
    const rendered = demoObjects(DEFAULT_DEMO);
    for (const [gen2, gen1] of [
      [n.mdInfraTemplate(2), n.mdInfraTemplate(1)],
      [n.cpInfraTemplate(2), n.cpInfraTemplate(1)],
    ]) {
      const t = machineTemplateObject(DEFAULT_DEMO, gen2, 'img-2');
      const first = rendered.find((o) => o.metadata.name === gen1)!;
      expect(t).toEqual({
        ...first,
        metadata: { ...first.metadata, name: gen2 },
        spec: { template: { spec: { ...spec(first).template.spec, image: 'img-2' } } },
      });
    }
    expect(bootstrapTemplateObject(DEFAULT_DEMO)).toEqual(rendered.find((o) => o.kind === 'KubeadmConfigTemplate'));
  });
});

describe('render-template command', () => {
  it('renders with the environment; a missing variable is exit code 1 naming it; bad arguments exit code 2', () => {
    const ok = renderTemplateCommand([CLUSTER_TEMPLATE_PATH], { CLUSTER_NAME: 'x', KUBERNETES_VERSION: 'v1.31.0' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('name: "x-md-0"');
    const missing = renderTemplateCommand([CLUSTER_TEMPLATE_PATH], { CLUSTER_NAME: 'x' });
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('value for variables [KUBERNETES_VERSION] is not set');
    expect(renderTemplateCommand([], {}).code).toBe(2);
    expect(renderTemplateCommand(['/nonexistent.yaml'], {}).code).toBe(1);
  });

  it('--list-variables lists names and defaults', () => {
    const r = renderTemplateCommand([CLUSTER_TEMPLATE_PATH, '--list-variables'], {});
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining(['CLUSTER_NAME', 'KUBERNETES_VERSION', 'WORKER_MACHINE_COUNT (default 0)']),
    );
  });
});
