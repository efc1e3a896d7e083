// Which MachineDrainRules apply to a Machine and to a Pod (upstream core/reconcilers/machine/drain/drain.go
// getMatchingMachineDrainRules, machineDrainRuleAppliesToMachine; filters.go machineDrainRuleAppliesToPod,
// matchesSelector). Pure.
import { formatSelectorError, validateMachineDrainRuleSelectors, type MachineDrainRule } from '@capi/api';
import { labelSelectorAsSelector, type KubeObject, type LabelSelector } from '@capi/apimachinery';

/** A selector matches when it is unset, empty, or matches the object's labels (selectors are validated before). */
export function matchesSelector(selector: LabelSelector | undefined | null, obj: KubeObject | undefined): boolean {
  if (!selector) return true;
  let parsed;
  try {
    parsed = labelSelectorAsSelector(selector);
  } catch {
    // Upstream ignores the conversion error here (the rules were validated); its nil selector matches nothing.
    return false;
  }
  return parsed.empty || parsed.matches(obj?.metadata.labels);
}

/** No spec.machines: every Machine; else any entry whose selector and clusterSelector both match. */
export function machineDrainRuleAppliesToMachine(
  rule: Pick<MachineDrainRule, 'spec'>,
  machine: KubeObject | undefined,
  cluster: KubeObject | undefined,
): boolean {
  const selectors = rule.spec.machines ?? [];
  if (selectors.length === 0) return true;
  return selectors.some((s) => matchesSelector(s.selector, machine) && matchesSelector(s.clusterSelector, cluster));
}

/** No spec.pods: every Pod; else any entry whose selector and namespaceSelector both match. */
export function machineDrainRuleAppliesToPod(
  rule: Pick<MachineDrainRule, 'spec'>,
  pod: KubeObject | undefined,
  namespace: KubeObject | undefined,
): boolean {
  const selectors = rule.spec.pods ?? [];
  if (selectors.length === 0) return true;
  return selectors.some((s) => matchesSelector(s.selector, pod) && matchesSelector(s.namespaceSelector, namespace));
}

/**
 * The rules (of the Machine's namespace) that apply to the Machine and its Cluster, sorted by name. Throws when any
 * rule has an invalid selector, as upstream (the drain then fails and is retried).
 */
export function matchingMachineDrainRules(
  rules: readonly MachineDrainRule[],
  machine: KubeObject,
  cluster: KubeObject,
): MachineDrainRule[] {
  const invalid = rules.flatMap((r) => {
    const errs = validateMachineDrainRuleSelectors(r);
    if (errs.length === 0) return [];
    const joined = errs.map(formatSelectorError);
    return [`invalid selectors in MachineDrainRule ${r.metadata.name}: ${aggregate(joined)}`];
  });
  if (invalid.length > 0) throw new Error(`failed to get matching MachineDrainRules: ${aggregate(invalid)}`);
  return rules
    .filter((r) => machineDrainRuleAppliesToMachine(r, machine, cluster))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
}

/** kerrors.NewAggregate(...).Error(): one message as it is, several as `[a, b]`. */
export const aggregate = (messages: readonly string[]): string =>
  messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
