// apiextensions.k8s.io/v1 CustomResourceDefinition generation from kind definitions (TypeBox schemas).
import type { KindDefinition } from './schema/kind';
import { CONTRACT_VERSION_LABEL_V1BETA2 } from './constants';
import { ClusterDefinition } from './types/cluster';
import { MachineDefinition } from './types/machine';
import { MachineDeploymentDefinition, MachineSetDefinition } from './types/machineset';
import { MachineHealthCheckDefinition } from './types/mhc';
import { MachineDrainRuleDefinition } from './types/machinedrainrule';
import {
  KubeadmConfigDefinition,
  KubeadmConfigTemplateDefinition,
  KubeadmControlPlaneDefinition,
} from './types/kubeadm';
import { ExtensionConfigDefinition } from './types/extensionconfig';

export type JSONSchemaProps = { [key: string]: unknown };

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      deprecated?: boolean;
      deprecationWarning?: string;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources?: { status?: Record<string, never>; scale?: KindDefinition['scale'] };
      additionalPrinterColumns?: KindDefinition['printerColumns'];
    }>;
  };
}

// Keys TypeBox emits that are not part of a CRD schema.
const DROPPED_KEYS = new Set(['$id', '$schema', 'patternProperties', 'static', 'params']);

/** Convert one TypeBox node into a structural OpenAPI v3 node (symbols are dropped by the JSON round-trip). */
export function toStructural(node: unknown): JSONSchemaProps {
  const plain = JSON.parse(JSON.stringify(node)) as JSONSchemaProps;
  return convert(plain);
}

function convert(s: JSONSchemaProps): JSONSchemaProps {
  if (s['x-kubernetes-int-or-string'] === true) {
    const { anyOf: _anyOf, ...rest } = s;
    return { ...strip(rest), 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    // Opaque JSON: the schema says nothing about the content.
    return { ...strip(s), type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
  if (s['x-enum'] === true) {
    // A one-value union collapses to the literal itself.
    const { anyOf, const: single, 'x-enum': _e, ...rest } = s;
    const values = Array.isArray(anyOf) ? (anyOf as JSONSchemaProps[]).map((b) => b.const) : [single];
    return { ...strip(rest), type: 'string', enum: values };
  }
  const out: JSONSchemaProps = strip(s);
  if (s.patternProperties && typeof s.patternProperties === 'object') {
    // Record<string, V> → map with additionalProperties.
    const [value] = Object.values(s.patternProperties as Record<string, JSONSchemaProps>);
    out.type = 'object';
    out.additionalProperties = convert(value);
  }
  if (s.properties && typeof s.properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(s.properties as Record<string, JSONSchemaProps>).map(([k, v]) => [k, convert(v)]),
    );
  }
  if (s.items && typeof s.items === 'object') out.items = convert(s.items as JSONSchemaProps);
  if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) {
    out.additionalProperties = convert(s.additionalProperties as JSONSchemaProps);
  } else if (s.additionalProperties === false) {
    delete out.additionalProperties; // pruning handles unknown fields; false is rejected in structural schemas
  }
  return out;
}

function strip(s: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = {};
  for (const [k, v] of Object.entries(s)) if (!DROPPED_KEYS.has(k)) out[k] = v;
  return out;
}

/** Structural-schema violations (empty when fine): every node needs a `type` or an allowed x-kubernetes extension. */
export function structuralErrors(schema: JSONSchemaProps, path = ''): string[] {
  const errors: string[] = [];
  const allowedUntyped =
    schema['x-kubernetes-int-or-string'] === true || schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (typeof schema.type !== 'string' && !allowedUntyped) errors.push(`${path || '.'}: missing type`);
  if (schema.anyOf && schema['x-kubernetes-int-or-string'] !== true)
    errors.push(`${path || '.'}: anyOf only allowed for int-or-string`);
  if (schema.oneOf || schema.allOf || schema.not) errors.push(`${path || '.'}: oneOf/allOf/not not supported`);
  if (schema.additionalProperties === false) errors.push(`${path || '.'}: additionalProperties false`);
  if (schema.properties && schema.additionalProperties)
    errors.push(`${path || '.'}: properties and additionalProperties together`);
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, JSONSchemaProps>)) {
    errors.push(...structuralErrors(v, `${path}.${k}`));
  }
  if (schema.items) errors.push(...structuralErrors(schema.items as JSONSchemaProps, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') {
    errors.push(...structuralErrors(schema.additionalProperties as JSONSchemaProps, `${path}{}`));
  }
  return errors;
}

/** The structural openAPIV3Schema of one version of a kind. Throws on a non-structural schema. */
function versionSchema(def: Pick<KindDefinition, 'kind'>, objectSchema: unknown): JSONSchemaProps {
  const schema = toStructural(objectSchema);
  // The apiserver fills apiVersion/kind/metadata; only spec is required, as upstream's `+required` spec.
  const props = schema.properties as Record<string, JSONSchemaProps>;
  schema.required =
    props.spec && (objectSchema as { required?: string[] }).required?.includes('spec') ? ['spec'] : undefined;
  if (!schema.required) delete schema.required;
  // The apiserver owns metadata validation; CRDs declare it as a bare object.
  props.metadata = { type: 'object' };
  const status = props.status as JSONSchemaProps | undefined;
  if (status && Object.keys((status.properties ?? {}) as object).length === 0) delete props.status;
  const errors = structuralErrors(schema);
  if (errors.length > 0) throw new Error(`${def.kind}: schema is not structural: ${errors.join('; ')}`);
  return schema;
}

/** Build the CRD (the storage version plus any older served ones) for a kind definition. Throws on a non-structural schema. */
export function buildCrd(def: KindDefinition): CustomResourceDefinition {
  const schema = versionSchema(def, def.schema);
  const subresources: CustomResourceDefinition['spec']['versions'][number]['subresources'] = {};
  if (def.scale) subresources.scale = def.scale;
  if (def.statusSubresource) subresources.status = {};
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}`, ...(def.crdLabels ? { labels: { ...def.crdLabels } } : {}) },
    spec: {
      group: def.group,
      names: {
        kind: def.kind,
        listKind: def.listKind,
        plural: def.plural,
        singular: def.singular,
        ...(def.shortNames ? { shortNames: [...def.shortNames] } : {}),
        ...(def.categories ? { categories: [...def.categories] } : {}),
      },
      scope: def.scope,
      versions: [
        ...(def.servedVersions ?? []).map((v) => ({
          name: v.name,
          served: true,
          storage: false,
          ...(v.deprecationWarning ? { deprecated: true, deprecationWarning: v.deprecationWarning } : {}),
          schema: { openAPIV3Schema: versionSchema(def, v.schema) },
          ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
          ...(v.printerColumns?.length ? { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) } : {}),
        })),
        {
          name: def.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
          ...(def.printerColumns?.length
            ? { additionalPrinterColumns: def.printerColumns.map((c) => ({ ...c })) }
            : {}),
        },
      ],
    },
  };
}

// Provider CRDs (bootstrap, control plane) carry the contract label that maps the contract to their served version.
for (const d of [KubeadmConfigDefinition, KubeadmConfigTemplateDefinition, KubeadmControlPlaneDefinition]) {
  d.crdLabels = { [CONTRACT_VERSION_LABEL_V1BETA2]: d.version };
}

/** Every kind this library defines. */
export const capiCrdDefinitions: readonly KindDefinition[] = [
  ClusterDefinition,
  MachineDefinition,
  MachineSetDefinition,
  MachineDeploymentDefinition,
  MachineHealthCheckDefinition,
  MachineDrainRuleDefinition,
  KubeadmConfigDefinition,
  KubeadmConfigTemplateDefinition,
  KubeadmControlPlaneDefinition,
  ExtensionConfigDefinition,
];

/** Kind definitions known to the process; other libs (e.g. in-memory infra) register theirs. */
export class CrdRegistry {
  private readonly defs = new Map<string, KindDefinition>();

  constructor(initial: readonly KindDefinition[] = []) {
    for (const d of initial) this.register(d);
  }

  /** Adds a definition; registering the same group/kind twice with a different object is an error. */
  register(def: KindDefinition): void {
    const key = `${def.kind}.${def.group}`;
    const existing = this.defs.get(key);
    if (existing && existing !== def) throw new Error(`CRD definition for ${key} already registered`);
    this.defs.set(key, def);
  }

  get(group: string, kind: string): KindDefinition | undefined {
    return this.defs.get(`${kind}.${group}`);
  }

  list(): KindDefinition[] {
    return [...this.defs.values()];
  }

  crds(): CustomResourceDefinition[] {
    return this.list().map(buildCrd);
  }
}

/** Shared registry pre-filled with {@link capiCrdDefinitions}. */
export const crdRegistry = new CrdRegistry(capiCrdDefinitions);
