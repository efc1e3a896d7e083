import { Type } from '@sinclair/typebox';
import { buildCrd, capiCrdDefinitions, CrdRegistry, crdRegistry, structuralErrors, toStructural } from './crd';
import { defineKind, validateKindObject } from './schema/kind';
import { Described, Enum, IntOrString, Opaque, Obj, StringMap } from './schema/k8s';
import { MachineDefinition } from './types/machine';
import { MachineDeploymentDefinition } from './types/machineset';
import { ExtensionConfigDefinition } from './types/extensionconfig';
import { KubeadmControlPlaneDefinition } from './types/kubeadm';

type Props = Record<string, Record<string, unknown>>;
const specProps = (crd: ReturnType<typeof buildCrd>): Props =>
  (crd.spec.versions[0].schema.openAPIV3Schema.properties as Props).spec.properties as Props;

describe('toStructural', () => {
  it('drops TypeBox symbols and $id and maps records, enums and int-or-string', () => {
    const s = toStructural(
      Type.Object(
        { m: StringMap(), e: Enum(['A', 'B']), one: Enum(['Only']), i: IntOrString(), o: Opaque() },
        { $id: 'X' },
      ),
    );
    expect(s.$id).toBeUndefined();
    expect(Object.getOwnPropertySymbols(s)).toHaveLength(0);
    const p = s.properties as Props;
    expect(p.m).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(p.e).toEqual({ type: 'string', enum: ['A', 'B'] });
    expect(p.one).toEqual({ type: 'string', enum: ['Only'] });
    expect(p.i).toEqual({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(p.o).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });
  it('removes additionalProperties:false', () => {
    expect(
      toStructural(Type.Object({ a: Type.String() }, { additionalProperties: false })).additionalProperties,
    ).toBeUndefined();
  });
});

describe('Described', () => {
  it("gives a field its own description over its shared type's, leaving the shared schema as it was", () => {
    const shared = Obj({ a: Type.String() }, { description: 'shared' });
    const s = toStructural(
      Type.Object({ x: Described(shared, 'field'), y: Type.Optional(Described(shared, 'other')) }),
    );
    const p = s.properties as Props;
    expect(p.x.description).toBe('field');
    expect(p.y.description).toBe('other');
    expect(shared.description).toBe('shared');
    expect(p.x.properties).toEqual({ a: { type: 'string' } });
  });
});

describe('structuralErrors', () => {
  it('reports untyped nodes and disallowed combinators', () => {
    expect(
      structuralErrors({ type: 'object', properties: { a: {}, b: { type: 'array', items: { oneOf: [] } } } }),
    ).toEqual(['.a: missing type', '.b[]: missing type', '.b[]: oneOf/allOf/not not supported']);
  });
});

describe('buildCrd', () => {
  it('builds every CAPI CRD as a structural schema', () => {
    for (const def of capiCrdDefinitions) {
      const crd = buildCrd(def);
      expect(structuralErrors(crd.spec.versions[0].schema.openAPIV3Schema)).toEqual([]);
      expect(crd.metadata.name).toBe(`${def.plural}.${def.group}`);
    }
  });
  it('serves v1beta2 with status (and scale) subresources and only spec required at the root', () => {
    const crd = buildCrd(MachineDeploymentDefinition);
    const v = crd.spec.versions[0];
    expect(v).toMatchObject({ name: 'v1beta2', served: true, storage: true });
    expect(v.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
    expect(v.schema.openAPIV3Schema.required).toEqual(['spec']);
    expect((v.schema.openAPIV3Schema.properties as Props).metadata).toEqual({ type: 'object' });
  });
  it('uses upstream JSON field names and list extensions', () => {
    const m = specProps(buildCrd(MachineDefinition));
    expect(Object.keys((m.bootstrap.properties as Props).configRef.properties as object)).toEqual([
      'apiGroup',
      'kind',
      'name',
    ]);
    expect(Object.keys(m.deletion.properties as object)).toContain('nodeDrainTimeoutSeconds');
    const status = (buildCrd(MachineDefinition).spec.versions[0].schema.openAPIV3Schema.properties as Props).status
      .properties as Props;
    expect(status.conditions).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    });
    expect(Object.keys(status.initialization.properties as object)).toEqual([
      'infrastructureProvisioned',
      'bootstrapDataSecretCreated',
    ]);
    const kcp = specProps(buildCrd(KubeadmControlPlaneDefinition));
    const rolling = (((kcp.rollout.properties as Props).strategy.properties as Props).rollingUpdate.properties as Props)
      .maxSurge;
    expect(rolling['x-kubernetes-int-or-string']).toBe(true);
  });
  it('ExtensionConfig serves v1alpha1 (deprecated, not stored) and stores v1beta2, as upstream', () => {
    const versions = buildCrd(ExtensionConfigDefinition).spec.versions;
    expect(versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false])).toEqual([
      ['v1alpha1', true, false, true],
      ['v1beta2', true, true, false],
    ]);
    const status = (versions[0].schema.openAPIV3Schema.properties as Props).status.properties as Props;
    // v1alpha1 status: v1beta1 conditions (severity) in conditions, metav1 ones under v1beta2.
    expect(Object.keys(status).sort()).toEqual(['conditions', 'handlers', 'v1beta2']);
    expect(Object.keys((status.conditions.items as Props).properties as object)).toContain('severity');
    expect(versions[0].schema.openAPIV3Schema.properties).toMatchObject({
      spec: (versions[1].schema.openAPIV3Schema.properties as Props).spec,
    });
    for (const v of versions) expect(structuralErrors(v.schema.openAPIV3Schema)).toEqual([]);
  });

  it('makes ExtensionConfig cluster-scoped and the rest namespaced', () => {
    expect(buildCrd(ExtensionConfigDefinition).spec.scope).toBe('Cluster');
    expect(capiCrdDefinitions.filter((d) => d.scope === 'Cluster').map((d) => d.kind)).toEqual(['ExtensionConfig']);
  });
  it('throws for a non-structural schema', () => {
    const bad = defineKind({
      group: 'x.io',
      version: 'v1',
      kind: 'Bad',
      scope: 'Namespaced',
      description: 'd',
      spec: Type.Object({ a: Type.Any() }),
      status: Type.Object({}),
    });
    expect(() => buildCrd(bad)).toThrow(/Bad: schema is not structural: .spec.a: missing type/);
  });
});

describe('CrdRegistry', () => {
  it('holds the CAPI kinds and accepts other libs definitions', () => {
    const r = new CrdRegistry(capiCrdDefinitions);
    const extra = defineKind({
      group: 'infrastructure.cluster.x-k8s.io',
      version: 'v1beta2',
      kind: 'InMemoryMachine',
      scope: 'Namespaced',
      description: 'd',
      spec: Type.Object({ providerID: Type.Optional(Type.String()) }),
      status: Type.Object({}),
    });
    r.register(extra);
    expect(r.get('infrastructure.cluster.x-k8s.io', 'InMemoryMachine')).toBe(extra);
    expect(r.crds()).toHaveLength(capiCrdDefinitions.length + 1);
    expect(() => r.register({ ...extra })).toThrow(/already registered/);
    expect(crdRegistry.get('cluster.x-k8s.io', 'Machine')).toBe(MachineDefinition);
  });
});

describe('validateKindObject', () => {
  const machine = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'ns' },
    spec: {
      clusterName: 'c',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'k' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerMachine', name: 'd' },
      version: 'v1.31.0',
      deletion: { nodeDrainTimeoutSeconds: 10 },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      nodeRef: { name: 'n' },
    },
  };
  it('accepts an upstream-shaped Machine', () => {
    expect(validateKindObject(MachineDefinition, machine)).toEqual([]);
  });
  it('reports wrong enum values and missing required fields', () => {
    const bad = structuredClone(machine) as Record<string, any>;
    bad.status.conditions[0].status = 'Maybe';
    delete bad.spec.clusterName;
    const errors = validateKindObject(MachineDefinition, bad);
    expect(errors.some((e) => e.startsWith('/spec'))).toBe(true);
    expect(errors.some((e) => e.startsWith('/status/conditions/0/status'))).toBe(true);
  });
  it('accepts int-or-string rollout values', () => {
    const md = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: 'md' },
      spec: {
        clusterName: 'c',
        selector: {},
        template: { spec: machine.spec },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } } },
      },
    };
    expect(validateKindObject(MachineDeploymentDefinition, md)).toEqual([]);
  });
});

describe('validateKindObject formats', () => {
  it('checks date-time and byte formats', () => {
    const ext = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'e' },
      spec: { clientConfig: { url: 'https://x', caBundle: 'not base64!' } },
    };
    expect(validateKindObject(ExtensionConfigDefinition, ext).join()).toMatch(/caBundle/);
    ext.spec.clientConfig.caBundle = Buffer.from('pem').toString('base64');
    expect(validateKindObject(ExtensionConfigDefinition, ext)).toEqual([]);
    const md = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: 'md' },
      spec: {
        clusterName: 'c',
        selector: {},
        template: {
          spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: { apiGroup: 'g', kind: 'K', name: 'n' } },
        },
        rollout: { after: 'yesterday' },
      },
    };
    expect(validateKindObject(MachineDeploymentDefinition, md).join()).toMatch(/rollout\/after/);
  });
});
