// Which webhooks a request calls, as kube's generic.Webhook.ShouldCallHook decides it: namespaceSelector, then
// objectSelector, then the rules (k8s.io/apiserver pkg/admission/plugin/webhook/predicates/{namespace,object,rules}).
import { labelSelectorAsSelector, type KubeObject, type LabelSelector } from '@capi/apimachinery';
import type { AdmissionAttributes, Operation, RuleWithOperations, Webhook } from './types';

const exactOrWildcard = (items: string[] | undefined, requested: string) =>
  (items ?? []).some((i) => i === '*' || i === requested);

function splitResource(res: string): [string, string] {
  const i = res.indexOf('/');
  return i < 0 ? [res, ''] : [res.slice(0, i), res.slice(i + 1)];
}

const isNamespaceResource = (a: Pick<AdmissionAttributes, 'group' | 'version' | 'resource'>) =>
  a.group === '' && a.version === 'v1' && a.resource === 'namespaces';

/** rules.Matcher.Matches. */
export function ruleMatches(rule: RuleWithOperations, a: Omit<AdmissionAttributes, 'options'>): boolean {
  const scope = rule.scope ?? '*';
  // attr.GetNamespace() is the namespace's own name for requests of a Namespace object (cluster-scoped).
  if (scope === 'Namespaced' && (isNamespaceResource(a) || !a.namespace)) return false;
  if (scope === 'Cluster' && !(isNamespaceResource(a) || !a.namespace)) return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, a.group) || !exactOrWildcard(rule.apiVersions, a.version)) return false;
  return (rule.resources ?? []).some((r) => {
    const [res, sub] = splitResource(r);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** Whether any webhook's rules could match this resource for one of `operations` (the write path's fast check). */
export function anyRuleFor(
  hooks: Webhook[],
  a: Omit<AdmissionAttributes, 'options' | 'operation'>,
  operations: Operation[],
) {
  return hooks.some((h) =>
    (h.rules ?? []).some((r) => operations.some((operation) => ruleMatches(r, { ...a, operation }))),
  );
}

const selectorMatches = (s: LabelSelector | undefined, labels: Record<string, string> | undefined) =>
  labelSelectorAsSelector(s ?? {}).matches(labels);
const isEmpty = (s: LabelSelector | undefined) =>
  !s || (!Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length);

/**
 * ShouldCallHook. `namespaceLabels` reads a namespace's labels (undefined when it does not exist); the namespace of a
 * Namespace being created or updated is the object itself.
 */
export function shouldCall(
  h: Webhook,
  a: Omit<AdmissionAttributes, 'options'>,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): boolean {
  if ((a.namespace || isNamespaceResource(a)) && !isEmpty(h.namespaceSelector)) {
    const own = isNamespaceResource(a) && !a.subresource && a.operation !== 'DELETE';
    const labels = own ? (a.object as KubeObject | undefined)?.metadata.labels : namespaceLabels(a.namespace || a.name);
    if (!selectorMatches(h.namespaceSelector, labels)) return false;
  }
  if (!isEmpty(h.objectSelector)) {
    const matches = (o: KubeObject | undefined) => !!o && selectorMatches(h.objectSelector, o.metadata?.labels);
    if (!matches(a.object) && !matches(a.oldObject)) return false;
  }
  return (h.rules ?? []).some((r) => ruleMatches(r, a));
}
