// CustomResourceDefinition admission and status (Established / NamesAccepted).
import type { KubeObject } from '@capi/apimachinery';
import { engines } from './engines';
import type { Cause } from './status';

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function admitCrd(crd: KubeObject): Cause[] {
  const causes: Cause[] = [];
  const spec = (crd.spec ?? {}) as Record<string, any>;
  const names = spec.names ?? {};
  if (!spec.group) causes.push({ type: 'FieldValueRequired', field: 'spec.group', message: 'Required value' });
  if (!names.plural || !DNS_LABEL.test(names.plural))
    causes.push({
      type: 'FieldValueInvalid',
      field: 'spec.names.plural',
      message: `Invalid value: "${names.plural ?? ''}": must be a lowercase DNS-1035 label`,
    });
  if (!names.kind) causes.push({ type: 'FieldValueRequired', field: 'spec.names.kind', message: 'Required value' });
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    causes.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: "${spec.scope ?? ''}": supported values: "Cluster", "Namespaced"`,
    });
  if (spec.group && names.plural && crd.metadata.name !== `${names.plural}.${spec.group}`) {
    causes.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = (spec.versions ?? []) as any[];
  if (!versions.length)
    causes.push({
      type: 'FieldValueRequired',
      field: 'spec.versions',
      message: 'Required value: must have exactly one version marked as storage version',
    });
  else if (versions.filter((v) => v.storage).length !== 1)
    causes.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      message: 'Invalid value: must have exactly one version marked as storage version',
    });
  versions.forEach((v, i) => {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) {
      causes.push({
        type: 'FieldValueRequired',
        field: `spec.versions[${i}].schema.openAPIV3Schema`,
        message: 'Required value: schemas are required',
      });
      return;
    }
    for (const e of engines.validateCrdSchema(schema))
      causes.push({ ...e, field: `spec.versions[${i}].schema.openAPIV3Schema${e.field ? `.${e.field}` : ''}` });
  });
  return causes;
}

/** The status the apiextensions controller would publish once the CRD is served. */
/**
 * kube's SetDefaults_CustomResourceDefinitionSpec (apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go),
 * applied on every write: names.singular (the kind in lower case), names.listKind (<Kind>List), conversion None, and
 * a conversion webhook service's port 443.
 */
export function defaultCrdSpec(crd: KubeObject): KubeObject {
  const spec = crd.spec as Record<string, any> | undefined;
  if (!spec || typeof spec !== 'object') return crd;
  const names = typeof spec.names === 'object' && spec.names !== null ? { ...spec.names } : undefined;
  if (names && !names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
  if (names && !names.listKind && names.kind) names.listKind = `${names.kind}List`;
  let conversion = spec.conversion ?? { strategy: 'None' };
  const service = conversion.webhook?.clientConfig?.service;
  if (service && service.port === undefined) {
    conversion = {
      ...conversion,
      webhook: {
        ...conversion.webhook,
        clientConfig: { ...conversion.webhook.clientConfig, service: { ...service, port: 443 } },
      },
    };
  }
  return { ...crd, spec: { ...spec, ...(names ? { names } : {}), conversion } };
}

export function establishedStatus(crd: KubeObject, now: string): Record<string, any> {
  const spec = crd.spec as Record<string, any>;
  const cond = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    acceptedNames: {
      ...spec.names,
      singular: spec.names.singular ?? String(spec.names.kind).toLowerCase(),
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    },
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found for the names'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    storedVersions: (spec.versions as any[]).filter((v) => v.storage).map((v) => v.name),
  };
}
