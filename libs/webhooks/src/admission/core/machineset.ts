// MachineSet defaulting and validation webhooks (upstream core/webhooks/admission/machineset.go).
import { CLUSTER_GROUP, CLUSTER_NAME_LABEL, MACHINE_SET_NAME_LABEL, type MachineSet } from '@capi/api';
import { labelSelectorAsSelector, mustFormatLabelValue } from '@capi/apimachinery';
import { deniedError, type FieldError, fieldError, invalidError } from '../field-errors';
import type { AdmissionRequestInfo, CustomDefaulter, CustomValidator, Warnings } from '../types';
import { calculateReplicas } from './replicas';
import {
  type CoreWebhookOptions,
  gateEnabled,
  isRefDefined,
  sortedMap,
  validateMachineNaming,
  validateMachineTaints,
  validateMachineTaintsForWorkers,
  validateSkippedPreflightChecks,
  validateTemplateMetadata,
  validateVersion,
} from './validation';

type Spec = MachineSet['spec'];

export class MachineSetWebhook implements CustomDefaulter<MachineSet>, CustomValidator<MachineSet> {
  constructor(private readonly opts: CoreWebhookOptions = {}) {}

  default(ms: MachineSet, req: AdmissionRequestInfo): void {
    const oldMS = req.operation === 'UPDATE' ? (req.oldObject as MachineSet | undefined) : undefined;
    ms.spec ??= {} as Spec;
    const spec = ms.spec;
    ms.metadata.labels = { ...ms.metadata.labels, [CLUSTER_NAME_LABEL]: spec.clusterName ?? '' };

    let replicas: number;
    try {
      replicas = calculateReplicas('MachineSet', oldMS, ms);
    } catch (e) {
      throw deniedError((e as Error).message);
    }
    spec.replicas = replicas;

    spec.selector ??= {};
    spec.selector.matchLabels ??= {};
    spec.template ??= { spec: {} as Spec['template']['spec'] };
    spec.template.metadata ??= {};
    spec.template.metadata.labels ??= {};

    if (!Object.keys(spec.selector.matchLabels).length && !spec.selector.matchExpressions?.length) {
      // The label value is a hash when the name is not a valid label value (e.g. longer than 63 characters).
      const value = mustFormatLabelValue(ms.metadata.name ?? '');
      spec.selector.matchLabels[MACHINE_SET_NAME_LABEL] = value;
      spec.template.metadata.labels[MACHINE_SET_NAME_LABEL] = value;
    }

    const version = spec.template.spec?.version;
    if (version && !version.startsWith('v')) spec.template.spec.version = `v${version}`;
  }

  validateCreate(ms: MachineSet): Warnings {
    this.validate(undefined, ms);
    return [];
  }

  validateUpdate(oldMS: MachineSet, newMS: MachineSet): Warnings {
    this.validate(oldMS, newMS);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }

  private validate(oldMS: MachineSet | undefined, newMS: MachineSet): void {
    const errs: FieldError[] = [];
    const spec: Partial<Spec> = newMS.spec ?? {};
    const templateSpec: Partial<Spec['template']['spec']> = spec.template?.spec ?? {};

    if (!isRefDefined(templateSpec.bootstrap?.configRef) && templateSpec.bootstrap?.dataSecretName == null)
      errs.push(
        fieldError.required(
          'spec.template.spec.bootstrap',
          'expected either spec.template.spec.bootstrap.dataSecretName or spec.template.spec.bootstrap.configRef to be populated',
        ),
      );

    const selector = spec.selector ?? {};
    try {
      const sel = labelSelectorAsSelector(selector);
      const labels = spec.template?.metadata?.labels;
      if (!sel.matches(labels ?? {}))
        errs.push(
          fieldError.invalid(
            'spec.template.metadata.labels',
            sortedMap(labels),
            `must match spec.selector ${JSON.stringify(sel.toString())}`,
          ),
        );
    } catch (e) {
      errs.push(fieldError.invalid('spec.selector', selector, (e as Error).message));
    }

    if (gateEnabled(this.opts, 'MachineSetPreflightChecks'))
      errs.push(...validateSkippedPreflightChecks(newMS.metadata?.annotations));

    if (oldMS && (oldMS.spec?.clusterName ?? '') !== (spec.clusterName ?? ''))
      errs.push(fieldError.forbidden('spec.clusterName', 'field is immutable'));

    if ((spec.clusterName ?? '') !== (templateSpec.clusterName ?? ''))
      errs.push(
        fieldError.invalid(
          'spec.clusterName',
          spec.clusterName ?? '',
          'spec.clusterName and spec.template.spec.clusterName must be set to the same value',
        ),
      );

    errs.push(...validateVersion(templateSpec.version, 'spec.template.spec.version'));
    errs.push(...validateMachineTaints(templateSpec.taints, 'spec.template.spec.taints', this.opts));
    errs.push(
      ...validateMachineTaintsForWorkers(templateSpec.taints, undefined, 'spec.template.spec.taints', this.opts),
    );
    errs.push(...validateMachineNaming(spec.machineNaming?.template, 'spec.machineNaming'));
    errs.push(...validateTemplateMetadata(spec.template?.metadata, 'spec.template.metadata'));

    if (errs.length) throw invalidError(CLUSTER_GROUP, 'MachineSet', newMS.metadata?.name ?? '', errs);
  }
}
