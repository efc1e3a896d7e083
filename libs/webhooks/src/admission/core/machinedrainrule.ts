// MachineDrainRule validation, as upstream core/webhooks/admission/machinedrainrules.go (no defaulter upstream).
// The selector checks are @capi/api's validateMachineDrainRuleSelectors, which the Machine controller runs as well.
import {
  MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP,
  MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED,
  MachineDrainRuleGVK,
  validateMachineDrainRuleSelectors,
  type MachineDrainRule,
} from '@capi/api';
import { fieldError, invalidError, type FieldError } from '../field-errors';
import type { CustomValidator, Warnings } from '../types';
import { goLabelSelector } from '../util/values';

export class MachineDrainRuleWebhook implements CustomValidator<MachineDrainRule> {
  validateCreate(mdr: MachineDrainRule): Warnings {
    this.validate(mdr);
    return [];
  }

  validateUpdate(_old: MachineDrainRule, mdr: MachineDrainRule): Warnings {
    this.validate(mdr);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }

  /** Throws the 422 Invalid upstream's validate returns. */
  validate(mdr: MachineDrainRule): void {
    const errs: FieldError[] = [];
    const { behavior, order } = mdr.spec.drain ?? {};
    if (
      (behavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP ||
        behavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED) &&
      order !== undefined
    ) {
      errs.push(
        fieldError.invalid(
          'spec.drain.order',
          order,
          `order must not be set if drain behavior is "${MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_SKIP}" or "${MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED}"`,
        ),
      );
    }
    for (const e of validateMachineDrainRuleSelectors(mdr))
      errs.push(fieldError.invalid(e.field, goLabelSelector(e.value), e.detail));
    if (errs.length)
      throw invalidError(MachineDrainRuleGVK.group, MachineDrainRuleGVK.kind, mdr.metadata.name ?? '', errs);
  }
}
