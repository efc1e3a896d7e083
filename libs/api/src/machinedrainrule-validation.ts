// Upstream core/webhooks/admission/machinedrainrules.go ValidateMachineDrainRulesSelectors: every selector of a
// MachineDrainRule must convert to a label selector (metav1.LabelSelectorAsSelector). The Machine controller runs it
// before using the rules, as the webhook that would reject such rules at admission is not served here.
import { labelSelectorAsSelector, type LabelSelector } from '@capi/apimachinery';
import type { MachineDrainRule } from './types/machinedrainrule';

/** One field.Invalid error: `field` as `spec.pods[0].namespaceSelector`, `detail` the selector error. */
export interface MachineDrainRuleSelectorError {
  field: string;
  value: LabelSelector;
  detail: string;
}

/** field.Error's text: `<field>: Invalid value: <value>: <detail>`. */
export const formatSelectorError = (e: MachineDrainRuleSelectorError): string =>
  `${e.field}: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`;

function check(field: string, selector: LabelSelector | undefined, errs: MachineDrainRuleSelectorError[]): void {
  if (!selector) return;
  try {
    labelSelectorAsSelector(selector);
  } catch (e) {
    errs.push({ field, value: selector, detail: (e as Error).message });
  }
}

/** The selector errors of a MachineDrainRule (empty when all selectors are valid). */
export function validateMachineDrainRuleSelectors(
  rule: Pick<MachineDrainRule, 'spec'>,
): MachineDrainRuleSelectorError[] {
  const errs: MachineDrainRuleSelectorError[] = [];
  (rule.spec?.machines ?? []).forEach((m, i) => {
    check(`spec.machines[${i}].selector`, m.selector, errs);
    check(`spec.machines[${i}].clusterSelector`, m.clusterSelector, errs);
  });
  (rule.spec?.pods ?? []).forEach((p, i) => {
    check(`spec.pods[${i}].selector`, p.selector, errs);
    check(`spec.pods[${i}].namespaceSelector`, p.namespaceSelector, errs);
  });
  return errs;
}
