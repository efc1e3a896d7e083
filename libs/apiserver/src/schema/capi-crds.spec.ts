// The project's real CAPI CRDs (config/crd) through the whole schema pipeline the server runs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyDefaults, pruneUnknownFields, validate, validateCrdSchema } from './index';

const CRD_DIR = join(__dirname, '../../../../config/crd');
const crdFiles = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
const schemaOf = (file: string) =>
  parse(readFileSync(join(CRD_DIR, file), 'utf8')).spec.versions[0].schema.openAPIV3Schema;

const admit = (obj: unknown, schema: Record<string, any>) => {
  const out = applyDefaults(pruneUnknownFields(obj, schema), schema);
  return { out: out as any, errors: validate(out, schema) };
};

describe('CAPI CRD schemas', () => {
  it('finds the CRDs', () => {
    expect(crdFiles.length).toBeGreaterThan(5);
  });

  it.each(crdFiles)('%s passes the structural checks', (file) => {
    const crd = parse(readFileSync(join(CRD_DIR, file), 'utf8'));
    for (const v of crd.spec.versions) expect(validateCrdSchema(v.schema.openAPIV3Schema)).toEqual([]);
  });

  describe('MachineDeployment', () => {
    const schema = schemaOf('cluster.x-k8s.io_machinedeployments.yaml');
    const md = () => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: 'md-0', namespace: 'default', labels: { a: 'b' } },
      spec: {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { a: 'b' } },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.31.0',
            bootstrap: {
              configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'b' },
            },
            infrastructureRef: {
              apiGroup: 'infrastructure.cluster.x-k8s.io',
              kind: 'DockerMachineTemplate',
              name: 'i',
            },
          },
        },
      },
    });

    it('admits a valid object unchanged apart from unknown fields', () => {
      const obj: any = md();
      obj.spec.notAField = true;
      const { out, errors } = admit(obj, schema);
      expect(errors).toEqual([]);
      expect(out.spec.notAField).toBeUndefined();
      expect(out.spec.template.spec.bootstrap).toEqual(md().spec.template.spec.bootstrap);
    });

    it('reports kube-style errors for bad values', () => {
      const obj: any = md();
      obj.spec.replicas = 'two';
      delete obj.spec.template.spec.infrastructureRef.name;
      obj.spec.rollout.strategy.type = 'Recreate';
      obj.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'R', lastTransitionTime: 'yesterday' }] };
      const { errors } = admit(obj, schema);
      expect(errors.map((e) => `${e.field}: ${e.message}`).sort()).toEqual(
        [
          'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
          'spec.template.spec.infrastructureRef.name: Required value',
          'spec.rollout.strategy.type: Unsupported value: "Recreate": supported values: "RollingUpdate", "OnDelete"',
          'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday"',
        ].sort(),
      );
    });
  });
});
