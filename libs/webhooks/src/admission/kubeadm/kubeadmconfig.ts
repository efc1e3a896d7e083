// KubeadmConfig validation (bootstrap/kubeadm/webhooks/admission/kubeadmconfig.go), and `validateKubeadmConfigSpec`
// (upstream's exported Validate) which KubeadmConfigTemplate and KubeadmControlPlane reuse for their embedded spec.
import { BOOTSTRAP_GROUP, type KubeadmConfig, type KubeadmConfigSpec } from '@capi/api';
import { fieldError, invalidError, type FieldError } from '../field-errors';
import type { CustomValidator, Warnings } from '../types';
import {
  child,
  defaultFeatureGates,
  dig,
  digArray,
  digNumber,
  digString,
  index,
  isDefined,
  isMap,
  type FeatureGateReader,
} from './common';

const IGNITION = 'ignition';
const cannotUseWithIgnition = `not supported when spec.format is set to: ${JSON.stringify(IGNITION)}`;
const conflictingFileSourceMsg = 'only one of content or contentFrom may be specified for a single file';
const conflictingUserSourceMsg = 'only one of passwd or passwdFrom may be specified for a single user';
const kubeadmBootstrapFormatIgnitionFeatureDisabledMsg =
  'can be set only if the KubeadmBootstrapFormatIgnition feature gate is enabled';
const missingSecretNameMsg = 'secret file source must specify non-empty secret name';
const missingSecretKeyMsg = 'secret file source must specify non-empty secret key';
const pathConflictMsg = 'path property must be unique among all files';

/** Upstream Validate(c, isKCP, pathPrefix): the checks every embedding of a KubeadmConfigSpec shares. */
export function validateKubeadmConfigSpec(
  spec: KubeadmConfigSpec | undefined,
  isKCP: boolean,
  path: string,
  gates: FeatureGateReader,
): FieldError[] {
  const c = spec ?? {};
  const errs: FieldError[] = [
    ...validateFiles(c, path),
    ...validateUsers(c, path),
    ...validateIgnition(c, path, gates),
    ...validateDiskSetup(c, path),
  ];

  if (isDefined(c.joinConfiguration)) {
    const user = dig(c.joinConfiguration, 'discovery', 'file', 'kubeConfig', 'user');
    if (isDefined(dig(user, 'authProvider')) && isDefined(dig(user, 'exec'))) {
      errs.push(
        fieldError.invalid(
          child(path, 'joinConfiguration', 'discovery', 'file', 'kubeconfig', 'user'),
          user,
          'only one of authProvider or exec must be defined',
        ),
      );
    }
  }

  // Only KCP runs both kubeadm init and join from one spec, so only there must the two timeouts agree.
  if (isKCP) {
    const t = (cfg: unknown) => {
      const v = digNumber(cfg, 'timeouts', 'controlPlaneComponentHealthCheckSeconds');
      return v === undefined ? 'unset' : String(v);
    };
    const tInit = t(c.initConfiguration);
    const tJoin = t(c.joinConfiguration);
    if (tInit !== tJoin) {
      const msg = `controlPlaneComponentHealthCheckSeconds must be set to the same value both in initConfiguration.timeouts (${tInit}) and in joinConfiguration.timeouts (${tJoin})`;
      errs.push(
        fieldError.invalid(
          child(path, 'initConfiguration', 'timeouts', 'controlPlaneComponentHealthCheckSeconds'),
          tInit,
          msg,
        ),
        fieldError.invalid(
          child(path, 'joinConfiguration', 'timeouts', 'controlPlaneComponentHealthCheckSeconds'),
          tJoin,
          msg,
        ),
      );
    }
  }
  return errs;
}

function validateFiles(c: KubeadmConfigSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const known = new Set<string>();
  (c.files ?? []).forEach((file, i) => {
    const filePath = index(child(path, 'files'), i);
    if ((file.content ?? '') !== '' && isDefined(file.contentFrom)) {
      errs.push(fieldError.invalid(filePath, file, conflictingFileSourceMsg));
    }
    if (isDefined(file.contentFrom)) {
      if (digString(file.contentFrom, 'secret', 'name') === '')
        errs.push(fieldError.required(child(filePath, 'contentFrom', 'secret', 'name'), missingSecretNameMsg));
      if (digString(file.contentFrom, 'secret', 'key') === '')
        errs.push(fieldError.required(child(filePath, 'contentFrom', 'secret', 'key'), missingSecretKeyMsg));
    }
    const p = file.path ?? '';
    if (known.has(p)) errs.push(fieldError.invalid(child(filePath, 'path'), file, pathConflictMsg));
    known.add(p);
  });
  return errs;
}

function validateUsers(c: KubeadmConfigSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (c.users ?? []).forEach((user, i) => {
    const userPath = index(child(path, 'users'), i);
    const passwdFrom = dig(user, 'passwdFrom');
    if (digString(user, 'passwd') !== '' && isDefined(passwdFrom)) {
      errs.push(fieldError.invalid(userPath, user, conflictingUserSourceMsg));
    }
    if (isDefined(passwdFrom)) {
      if (digString(passwdFrom, 'secret', 'name') === '')
        errs.push(fieldError.required(child(userPath, 'passwdFrom', 'secret', 'name'), missingSecretNameMsg));
      if (digString(passwdFrom, 'secret', 'key') === '')
        errs.push(fieldError.required(child(userPath, 'passwdFrom', 'secret', 'key'), missingSecretKeyMsg));
    }
  });
  return errs;
}

function validateIgnition(c: KubeadmConfigSpec, path: string, gates: FeatureGateReader): FieldError[] {
  const errs: FieldError[] = [];
  if (!gates.enabled('KubeadmBootstrapFormatIgnition')) {
    if (c.format === IGNITION)
      errs.push(fieldError.forbidden(child(path, 'format'), kubeadmBootstrapFormatIgnitionFeatureDisabledMsg));
    if (isDefined(c.ignition))
      errs.push(fieldError.forbidden(child(path, 'ignition'), kubeadmBootstrapFormatIgnitionFeatureDisabledMsg));
    return errs;
  }

  if (c.format !== IGNITION) {
    if (isDefined(c.ignition)) {
      errs.push(
        fieldError.invalid(
          child(path, 'format'),
          c.format ?? '',
          `must be set to ${JSON.stringify(IGNITION)} if spec.ignition is set`,
        ),
      );
    }
    return errs;
  }

  (c.users ?? []).forEach((user, i) => {
    if (dig(user, 'inactive') === true)
      errs.push(fieldError.forbidden(child(index(child(path, 'users'), i), 'inactive'), cannotUseWithIgnition));
  });
  (c.files ?? []).forEach((file, i) => {
    if (file.encoding === 'gzip' || file.encoding === 'gzip+base64')
      errs.push(fieldError.forbidden(child(index(child(path, 'files'), i), 'encoding'), cannotUseWithIgnition));
  });
  if (c.bootCommands !== undefined && c.bootCommands !== null)
    errs.push(fieldError.forbidden(child(path, 'bootCommands'), cannotUseWithIgnition));

  digArray(c.diskSetup, 'partitions').forEach((partition, i) => {
    const tableType = digString(partition, 'tableType');
    if (tableType !== '' && tableType !== 'gpt') {
      errs.push(
        fieldError.invalid(
          child(index(child(path, 'diskSetup', 'partitions'), i), 'tableType'),
          tableType,
          `only partition type ${JSON.stringify('gpt')} is supported when spec.format is set to ${JSON.stringify(IGNITION)}`,
        ),
      );
    }
  });
  digArray(c.diskSetup, 'filesystems').forEach((fs, i) => {
    const fsPath = index(child(path, 'diskSetup', 'filesystems'), i);
    if (digString(fs, 'replaceFS') !== '')
      errs.push(fieldError.forbidden(child(fsPath, 'replaceFS'), cannotUseWithIgnition));
    if (digString(fs, 'partition') !== '')
      errs.push(fieldError.forbidden(child(fsPath, 'partition'), cannotUseWithIgnition));
  });
  return errs;
}

function validateDiskSetup(c: KubeadmConfigSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  digArray(c.diskSetup, 'partitions').forEach((partition, i) => {
    const layout = digArray(partition, 'diskLayout');
    if (layout.length === 0) return;
    const total = layout.reduce<number>((sum, l) => sum + (isMap(l) ? (digNumber(l, 'percentage') ?? 0) : 0), 0);
    if (total > 100) {
      errs.push(
        fieldError.invalid(
          child(index(child(path, 'diskSetup', 'partitions'), i), 'diskLayout'),
          total,
          'the sum of all partition percentages must not be greater than 100',
        ),
      );
    }
  });
  return errs;
}

/** The KubeadmConfig validating webhook (no defaulter upstream). */
export class KubeadmConfigWebhook implements CustomValidator<KubeadmConfig> {
  constructor(private readonly gates: FeatureGateReader = defaultFeatureGates()) {}

  validateCreate(obj: KubeadmConfig): Warnings {
    return this.validate(obj);
  }

  validateUpdate(_oldObj: KubeadmConfig, newObj: KubeadmConfig): Warnings {
    return this.validate(newObj);
  }

  validateDelete(): Warnings {
    return [];
  }

  private validate(obj: KubeadmConfig): Warnings {
    const errs = validateKubeadmConfigSpec(obj.spec, false, 'spec', this.gates);
    if (errs.length > 0) throw invalidError(BOOTSTRAP_GROUP, 'KubeadmConfig', obj.metadata?.name ?? '', errs);
    return [];
  }
}
