// The demo's objects: a Cluster on the in-memory provider with a KubeadmControlPlane and a MachineDeployment, rendered
// from the sample manifest examples/clusters/cluster-inmemory.yaml (so what a user applies with kubectl and what the
// demo creates cannot drift apart), and the two changes it makes (a version bump the reference updater does in place;
// an image change it cannot).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import YAML from 'yaml';
import { INFRASTRUCTURE_GROUP, type KubeadmConfigTemplate, type MachineDeployment } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { InMemoryMachineTemplate } from '@capi/inmemory';
import { renderTemplate } from './envsubst';

export interface DemoSpec {
  namespace: string;
  cluster: string;
  controlPlaneReplicas: number;
  workerReplicas: number;
  /** Kubernetes version at creation, and after the in-place change. */
  version: string;
  upgradeVersion: string;
  /** VM image at creation, and after the rollout (an image cannot change in place). */
  image: string;
  newImage: string;
}

export const DEFAULT_DEMO: DemoSpec = {
  namespace: 'default',
  cluster: 'demo',
  controlPlaneReplicas: 3,
  workerReplicas: 3,
  version: 'v1.31.0',
  upgradeVersion: 'v1.31.1',
  image: 'ubuntu-24.04-v1',
  newImage: 'ubuntu-24.04-v2',
};

export const names = (s: DemoSpec) => ({
  controlPlane: `${s.cluster}-cp`,
  machineDeployment: `${s.cluster}-md-0`,
  bootstrapTemplate: `${s.cluster}-md-0`,
  /** Infra template names per image generation (templates are immutable by convention: a change is a new one). */
  cpInfraTemplate: (gen: number) => `${s.cluster}-cp-${gen}`,
  mdInfraTemplate: (gen: number) => `${s.cluster}-md-0-${gen}`,
});

/** The sample manifest the demo's cluster is rendered from (clusterctl's cluster-template conventions). */
export const CLUSTER_TEMPLATE_PATH = resolve(__dirname, '../../examples/clusters/cluster-inmemory.yaml');

/** The template's variables for a demo spec. */
export const templateValues = (s: DemoSpec): Record<string, string> => ({
  CLUSTER_NAME: s.cluster,
  NAMESPACE: s.namespace,
  KUBERNETES_VERSION: s.version,
  CONTROL_PLANE_MACHINE_COUNT: String(s.controlPlaneReplicas),
  WORKER_MACHINE_COUNT: String(s.workerReplicas),
  // Every control-plane Machine updated in place (the KubeadmControlPlane webhook allows it from 3 replicas on).
  CONTROL_PLANE_MAX_SURGE: s.controlPlaneReplicas >= 3 ? '0' : '1',
  INMEMORY_MACHINE_IMAGE: s.image,
});

/** Renders a multi-document template and parses it into objects, in the file's order (the order to create them in). */
export function renderObjects(template: string, values: Readonly<Record<string, string | undefined>>): KubeObject[] {
  const docs = YAML.parseAllDocuments(renderTemplate(template, values));
  const objects: KubeObject[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`the rendered template is not valid YAML: ${doc.errors[0].message}`);
    const obj = doc.toJS() as KubeObject | null;
    if (obj !== null) objects.push(obj);
  }
  return objects;
}

/** The demo cluster's objects: examples/clusters/cluster-inmemory.yaml rendered with the spec's values. */
export function demoObjects(s: DemoSpec): KubeObject[] {
  return renderObjects(readFileSync(CLUSTER_TEMPLATE_PATH, 'utf8'), templateValues(s));
}

function find<T extends KubeObject>(objs: readonly KubeObject[], kind: string, name: string): T {
  const found = objs.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${CLUSTER_TEMPLATE_PATH} has no ${kind} ${name}`);
  return structuredClone(found) as T;
}

/**
 * A new generation of the template's control plane or worker InMemoryMachineTemplate (by `name`'s prefix), under
 * another name and image (the rollout's).
 */
export function machineTemplateObject(s: DemoSpec, name: string, image: string): InMemoryMachineTemplate {
  const n = names(s);
  const first = name.startsWith(n.machineDeployment) ? n.mdInfraTemplate(1) : n.cpInfraTemplate(1);
  const t = find<InMemoryMachineTemplate>(demoObjects(s), 'InMemoryMachineTemplate', first);
  t.metadata.name = name;
  t.spec.template.spec.image = image;
  return t;
}

export function bootstrapTemplateObject(s: DemoSpec): KubeadmConfigTemplate {
  return find<KubeadmConfigTemplate>(demoObjects(s), 'KubeadmConfigTemplate', names(s).bootstrapTemplate);
}

/** JSON merge patches for the in-place change (version on KCP and MD). */
export const versionPatch = {
  controlPlane: (version: string) => ({ spec: { version } }),
  machineDeployment: (version: string) => ({ spec: { template: { spec: { version } } } }),
};

/** JSON merge patches pointing KCP and MD at new infra templates (the rollout change). */
export const infraTemplatePatch = {
  controlPlane: (name: string) => ({
    spec: {
      machineTemplate: {
        spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name } },
      },
    },
  }),
  machineDeployment: (name: string) => ({
    spec: {
      template: {
        spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name } },
      },
    },
  }),
};

/**
 * Creates the demo cluster's objects (the rendered template) in the file's order through `create` (the demo's adds a
 * clear AlreadyExists error); `adjustMachineDeployment` may change the MachineDeployment before it is created (the
 * bench's rollout). As from `kubectl apply`, none has an ownerReference: the Cluster controller gives the
 * InMemoryCluster and the KubeadmControlPlane theirs (cluster_controller_phases.go), the MachineDeployment controller
 * the MachineDeployment's (machinedeployment_controller.go), and the Cluster's deletion deletes what it owns.
 */
export async function createDemoCluster(
  create: <T extends KubeObject>(obj: T) => Promise<T>,
  s: DemoSpec,
  adjustMachineDeployment: (md: MachineDeployment) => void = () => undefined,
): Promise<void> {
  for (const obj of demoObjects(s)) {
    if (obj.kind === 'MachineDeployment') adjustMachineDeployment(obj as MachineDeployment);
    await create(obj);
  }
}
