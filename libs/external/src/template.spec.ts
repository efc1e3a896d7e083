// Upstream controllers/external/util_test.go: TestCloneTemplateResourceFound, TestCloneTemplateResourceFoundNoOwner,
// TestCloneTemplateMissingSpec (the object CreateFromTemplate creates is GenerateTemplate's).
import {
  CLUSTER_NAME_LABEL,
  TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION,
  TEMPLATE_CLONED_FROM_NAME_ANNOTATION,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { generateTemplate } from './template';

const owner = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'test-cluster', uid: '' };
const inputMetadata = {
  labels: { precedence: 'input', [CLUSTER_NAME_LABEL]: 'should-be-overwritten' },
  annotations: { precedence: 'input', [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: 'should-be-overwritten' },
};

describe('generateTemplate', () => {
  it('clones spec.template with input metadata taking precedence (TestCloneTemplateResourceFound)', () => {
    const template: KubeObject = {
      apiVersion: 'purple.io/v1',
      kind: 'PurpleTemplate',
      metadata: { name: 'purpleTemplate', namespace: 'default' },
      spec: {
        template: {
          metadata: {
            annotations: { 'test-template': 'annotations', precedence: 'template' },
            labels: { 'test-template': 'label', precedence: 'template' },
          },
          spec: { hello: 'world' },
        },
      },
    };
    const clone = generateTemplate({
      template,
      templateRef: { name: 'purpleTemplate', kind: 'PurpleTemplate', apiGroup: 'purple.io' },
      namespace: 'default',
      clusterName: 'test-cluster',
      ownerRef: owner,
      ...inputMetadata,
    });
    expect(clone.kind).toBe('Purple');
    expect(clone.apiVersion).toBe('purple.io/v1');
    expect(clone.metadata.name).toMatch(/^purpleTemplate-[a-z0-9]{5}$/);
    expect(clone.metadata.ownerReferences).toEqual([owner]);
    expect(clone.spec).toEqual({ hello: 'world' });
    expect(clone.metadata.labels).toEqual({
      [CLUSTER_NAME_LABEL]: 'test-cluster',
      'test-template': 'label',
      precedence: 'input',
    });
    expect(clone.metadata.annotations).toEqual({
      'test-template': 'annotations',
      precedence: 'input',
      [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: 'purpleTemplate',
      [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: 'PurpleTemplate.purple.io',
    });
    // The template object itself is not modified.
    expect((template.spec as { template: { metadata: { labels: object } } }).template.metadata.labels).toEqual({
      'test-template': 'label',
      precedence: 'template',
    });
  });

  it('uses the given name and sets no owner (TestCloneTemplateResourceFoundNoOwner)', () => {
    const clone = generateTemplate({
      template: {
        apiVersion: 'yellow.io/v1',
        kind: 'YellowTemplate',
        metadata: { name: 'yellowTemplate', namespace: 'default' },
        spec: { template: { spec: { hello: 'world' } } },
      },
      templateRef: { name: 'yellowTemplate', kind: 'YellowTemplate', apiGroup: 'yellow.io' },
      namespace: 'default',
      name: 'object-name',
      clusterName: 'test-cluster',
    });
    expect(clone.kind).toBe('Yellow');
    expect(clone.metadata.name).toBe('object-name');
    expect(clone.metadata.labels).toEqual({ [CLUSTER_NAME_LABEL]: 'test-cluster' });
    expect(clone.metadata.ownerReferences).toBeUndefined();
    expect(clone.spec).toEqual({ hello: 'world' });
  });

  it('tolerates a template without spec.template (TestCloneTemplateMissingSpec)', () => {
    const clone = generateTemplate({
      template: {
        apiVersion: 'aqua.io/v1',
        kind: 'AquaTemplate',
        metadata: { name: 'aquaTemplate', namespace: 'default' },
      },
      templateRef: { name: 'aquaTemplate', kind: 'AquaTemplate', apiGroup: 'aqua.io' },
      namespace: 'default',
      clusterName: 'test-cluster',
      ownerRef: owner,
      ...inputMetadata,
    });
    expect(clone.kind).toBe('Aqua');
    expect(clone.apiVersion).toBe('aqua.io/v1');
    expect(clone.metadata.name).toMatch(/^aquaTemplate-/);
    expect(clone.spec).toBeUndefined();
    expect(clone.metadata.labels).toEqual({ precedence: 'input', [CLUSTER_NAME_LABEL]: 'test-cluster' });
    expect(clone.metadata.annotations).toMatchObject({
      precedence: 'input',
      [TEMPLATE_CLONED_FROM_NAME_ANNOTATION]: 'aquaTemplate',
      [TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION]: 'AquaTemplate.aqua.io',
    });
  });

  it('drops server-owned metadata of spec.template.metadata and keeps a kind that is not a template kind', () => {
    const clone = generateTemplate({
      template: {
        apiVersion: 'x.io/v1',
        kind: 'Odd',
        metadata: { name: 't' },
        spec: { template: { metadata: { uid: 'u', resourceVersion: '1', finalizers: ['f'] } } },
      },
      templateRef: { name: 't', kind: 'Odd', apiGroup: 'x.io' },
      name: 'n',
      clusterName: 'c',
    });
    expect(clone.kind).toBe('Odd');
    expect(clone.metadata).not.toHaveProperty('uid');
    expect(clone.metadata).not.toHaveProperty('resourceVersion');
    expect(clone.metadata).not.toHaveProperty('finalizers');
  });
});
