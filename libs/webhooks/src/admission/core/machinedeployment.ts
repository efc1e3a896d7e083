// MachineDeployment defaulting and validation webhooks (upstream core/webhooks/admission/machinedeployment.go).
import { CLUSTER_GROUP, CLUSTER_NAME_LABEL, MACHINE_DEPLOYMENT_NAME_LABEL, type MachineDeployment } from '@capi/api';
import { isLabelValue, labelSelectorAsSelector } from '@capi/apimachinery';
import { deniedError, type FieldError, fieldError, invalidError } from '../field-errors';
import { validateRolloutPolicy } from '../rollout-policy';
import type { AdmissionRequestInfo, CustomDefaulter, CustomValidator, Warnings } from '../types';
import { calculateReplicas } from './replicas';
import {
  type CoreWebhookOptions,
  gateEnabled,
  isRefDefined,
  validateMachineNaming,
  validateMachineTaints,
  validateMachineTaintsForWorkers,
  validateRemediationMaxInFlight,
  validateRolloutStrategy,
  validateSkippedPreflightChecks,
  validateTemplateMetadata,
  validateVersion,
} from './validation';

type Spec = MachineDeployment['spec'];

export class MachineDeploymentWebhook
  implements CustomDefaulter<MachineDeployment>, CustomValidator<MachineDeployment>
{
  constructor(private readonly opts: CoreWebhookOptions = {}) {}

  default(md: MachineDeployment, req: AdmissionRequestInfo): void {
    const oldMD = req.operation === 'UPDATE' ? (req.oldObject as MachineDeployment | undefined) : undefined;
    md.spec ??= {} as Spec;
    const spec = md.spec;
    const clusterName = spec.clusterName ?? '';
    md.metadata.labels = { ...md.metadata.labels, [CLUSTER_NAME_LABEL]: clusterName };

    let replicas: number;
    try {
      replicas = calculateReplicas('MachineDeployment', oldMD, md);
    } catch (e) {
      throw deniedError((e as Error).message);
    }
    spec.replicas = replicas;

    spec.selector ??= {};
    spec.selector.matchLabels ??= {};
    spec.rollout ??= {};
    spec.rollout.strategy ??= { type: 'RollingUpdate' };
    if (!spec.rollout.strategy.type) spec.rollout.strategy.type = 'RollingUpdate';
    spec.template ??= { spec: {} as Spec['template']['spec'] };
    spec.template.metadata ??= {};
    spec.template.metadata.labels ??= {};

    // Default the RollingUpdate parameters only for the RollingUpdate strategy.
    if (spec.rollout.strategy.type === 'RollingUpdate') {
      const ru = (spec.rollout.strategy.rollingUpdate ??= {});
      ru.maxSurge ??= 1;
      ru.maxUnavailable ??= 0;
    }

    // Without a selector, select on the MachineDeployment's name as a default way of providing uniqueness.
    if (!Object.keys(spec.selector.matchLabels).length && !spec.selector.matchExpressions?.length) {
      spec.selector.matchLabels[MACHINE_DEPLOYMENT_NAME_LABEL] = md.metadata.name ?? '';
      spec.template.metadata.labels[MACHINE_DEPLOYMENT_NAME_LABEL] = md.metadata.name ?? '';
    }
    // Make sure selector and template are in the same cluster.
    spec.selector.matchLabels[CLUSTER_NAME_LABEL] = clusterName;
    spec.template.metadata.labels[CLUSTER_NAME_LABEL] = clusterName;

    // Tolerate versions without the "v" prefix.
    const version = spec.template.spec?.version;
    if (version && !version.startsWith('v')) spec.template.spec.version = `v${version}`;
  }

  validateCreate(md: MachineDeployment): Warnings {
    this.validate(undefined, md);
    return [];
  }

  validateUpdate(oldMD: MachineDeployment, newMD: MachineDeployment): Warnings {
    this.validate(oldMD, newMD);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }

  private validate(oldMD: MachineDeployment | undefined, newMD: MachineDeployment): void {
    const errs: FieldError[] = [];
    const name = newMD.metadata?.name ?? '';
    const spec: Partial<Spec> = newMD.spec ?? {};
    const templateSpec: Partial<Spec['template']['spec']> = spec.template?.spec ?? {};
    // The name is used as a label value.
    for (const m of isLabelValue(name))
      errs.push(fieldError.invalid('metadata.name', name, `must be a valid label value: ${m}`));

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
      if (!sel.matches(spec.template?.metadata?.labels ?? {}))
        errs.push(
          fieldError.forbidden(
            'spec.template.metadata.labels',
            `must match spec.selector ${JSON.stringify(sel.toString())}`,
          ),
        );
    } catch (e) {
      errs.push(fieldError.invalid('spec.selector', selector, (e as Error).message));
    }

    errs.push(...validateRolloutPolicy(newMD.metadata?.annotations));
    // Skipped MachineSet preflight checks may be set on the MachineDeployment (its annotations reach its MachineSets).
    if (gateEnabled(this.opts, 'MachineSetPreflightChecks'))
      errs.push(...validateSkippedPreflightChecks(newMD.metadata?.annotations));

    if (oldMD && (oldMD.spec?.clusterName ?? '') !== (spec.clusterName ?? ''))
      errs.push(fieldError.forbidden('spec.clusterName', 'field is immutable'));

    if ((spec.clusterName ?? '') !== (templateSpec.clusterName ?? ''))
      errs.push(
        fieldError.invalid(
          'spec.clusterName',
          spec.clusterName ?? '',
          'spec.clusterName and spec.template.spec.clusterName must be set to the same value',
        ),
      );

    const ru = spec.rollout?.strategy?.rollingUpdate;
    errs.push(...validateRolloutStrategy('spec.rollout.strategy', ru?.maxUnavailable, ru?.maxSurge));
    errs.push(...validateRemediationMaxInFlight('spec.remediation', spec.remediation?.maxInFlight));
    errs.push(...validateVersion(templateSpec.version, 'spec.template.spec.version'));
    errs.push(...validateMachineNaming(spec.machineNaming?.template, 'spec.machineNaming'));
    errs.push(...validateMachineTaints(templateSpec.taints, 'spec.template.spec.taints', this.opts));
    errs.push(
      ...validateMachineTaintsForWorkers(templateSpec.taints, undefined, 'spec.template.spec.taints', this.opts),
    );
    errs.push(...validateTemplateMetadata(spec.template?.metadata, 'spec.template.metadata'));

    if (errs.length) throw invalidError(CLUSTER_GROUP, 'MachineDeployment', name, errs);
  }
}
