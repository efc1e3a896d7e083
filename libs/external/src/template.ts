// An object cloned from a provider template (upstream controllers/external/util.go GenerateTemplate): the template's
// spec.template (metadata and spec) with the given name, namespace, labels, annotations and owner, plus the
// cloned-from annotations and the cluster-name label. A template without spec.template is tolerated (an empty object
// of the template's kind minus "Template"), as upstream.
import {
  CLUSTER_NAME_LABEL,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
} from '@capi/api';
import {
  groupOf,
  randomString,
  RANDOM_LENGTH,
  MAX_NAME_LENGTH,
  type KubeObject,
  type OwnerReference,
} from '@capi/apimachinery';

export interface GenerateTemplateInput {
  /** The template as read from the API. */
  template: KubeObject;
  /** The reference the template was read through (its name and group/kind go into the cloned-from annotations). */
  templateRef: { name: string; kind: string; apiGroup?: string };
  namespace?: string;
  /** Name of the generated object; without it `<template name>-<5 random characters>`. */
  name?: string;
  clusterName: string;
  ownerRef?: OwnerReference;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Random source of the generated name (tests pass their own). */
  random?: () => number;
}

const TEMPLATE_SUFFIX = 'Template';
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** "Kind.group" as Go prints a GroupKind ("Kind" for the core group). */
export const groupKindString = (apiGroup: string | undefined, kind: string): string =>
  apiGroup ? `${kind}.${apiGroup}` : kind;

/** k8s.io/apiserver SimpleNameGenerator: the base cut to 58 characters plus 5 random ones. */
const simpleName = (base: string, random?: () => number): string =>
  base.slice(0, MAX_NAME_LENGTH - RANDOM_LENGTH) + randomString(RANDOM_LENGTH, random);

export function generateTemplate(input: GenerateTemplateInput): KubeObject {
  const spec = input.template.spec;
  // unstructured.NestedMap: a missing (or non-map) spec.template is "not found", which upstream tolerates.
  const template = isMap(spec) && isMap(spec.template) ? structuredClone(spec.template) : {};
  const metadata = (isMap(template.metadata) ? template.metadata : {}) as KubeObject['metadata'];
  delete metadata.resourceVersion;
  delete metadata.finalizers;
  delete metadata.uid;
  delete (metadata as { selfLink?: string }).selfLink;
  metadata.name = input.name || simpleName(`${input.template.metadata.name ?? ''}-`, input.random);
  metadata.namespace = input.namespace;
  metadata.annotations = {
    ...(metadata.annotations ?? {}),
    ...(input.annotations ?? {}),
    [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: input.templateRef.name,
    [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: groupKindString(
      input.templateRef.apiGroup ?? groupOf(input.template.apiVersion),
      input.templateRef.kind,
    ),
  };
  metadata.labels = { ...(metadata.labels ?? {}), ...(input.labels ?? {}), [CLUSTER_NAME_LABEL]: input.clusterName };
  if (input.ownerRef) metadata.ownerReferences = [structuredClone(input.ownerRef)];
  const kind =
    typeof template.kind === 'string' && template.kind
      ? template.kind
      : input.template.kind.endsWith(TEMPLATE_SUFFIX)
        ? input.template.kind.slice(0, -TEMPLATE_SUFFIX.length)
        : input.template.kind;
  const apiVersion =
    typeof template.apiVersion === 'string' && template.apiVersion ? template.apiVersion : input.template.apiVersion;
  return { ...template, apiVersion, kind, metadata } as KubeObject;
}
