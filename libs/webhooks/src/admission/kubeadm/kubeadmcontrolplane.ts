// KubeadmControlPlane defaulting and validation (controlplane/kubeadm/webhooks/admission/kubeadmcontrolplane.go).
import { isDNS1123Subdomain, generateNameFromTemplate } from '@capi/apimachinery';
import type { KubeadmControlPlane } from '@capi/api';
import { fieldError, invalidError, type FieldError } from '../field-errors';
import type { CustomDefaulter, CustomValidator, Warnings } from '../types';
import {
  child,
  defaultFeatureGates,
  dig,
  digNumber,
  digString,
  isDefined,
  validateMachineTaints,
  validateTemplateMetadata,
  type FeatureGateReader,
} from './common';
import { singleQuoted, validUpMigration } from './coredns';
import { validateKubeadmConfigSpec } from './kubeadmconfig';
import { immutableFieldErrors } from './kubeadmcontrolplane-paths';
import {
  compareWithoutPreReleases,
  imageTagIsValid,
  majorMinorPatch,
  parseSemver,
  parseTolerant,
  parseTolerantImageTag,
  versionString,
} from './versions';
import { SemVer } from 'semver';
import { validateRolloutPolicy } from '../rollout-policy';

type KubeadmControlPlaneSpec = KubeadmControlPlane['spec'];

/** Upstream reports KCP denials under clusterv1's group (GroupVersion.WithKind("KubeadmControlPlane").GroupKind()). */
const ERROR_GROUP = 'cluster.x-k8s.io';
/** controlplanev1.SkipCoreDNSAnnotation: KCP leaves CoreDNS alone, so any CoreDNS version is accepted. */
export const SKIP_COREDNS_ANNOTATION = 'controlplane.cluster.x-k8s.io/skip-coredns';
/** util/secret DefaultCACertificatesExpiryDays. */
const DEFAULT_CA_CERTIFICATES_EXPIRY_DAYS = 3650;
const CC_PATH = 'spec.kubeadmConfigSpec.clusterConfiguration';

/** intstr.IntOrString.IntValue(): a string counts as its strconv.Atoi value, 0 when it is not a number. */
function intValue(v: number | string): number {
  if (typeof v === 'number') return v;
  return /^[+-]?[0-9]+$/.test(v) ? parseInt(v, 10) : 0;
}

export function validateKubeadmControlPlaneSpec(
  s: KubeadmControlPlaneSpec,
  path: string,
  gates: FeatureGateReader,
): FieldError[] {
  const errs: FieldError[] = [];
  const replicas = s.replicas;
  if (replicas === undefined || replicas === null) {
    errs.push(fieldError.required(child(path, 'replicas'), 'is required'));
  } else if (replicas <= 0) {
    // The scale subresource rejects negative values, but replicas 0 must be refused here anyway.
    errs.push(fieldError.forbidden(child(path, 'replicas'), 'cannot be less than or equal to 0'));
  }
  const clusterConfiguration = s.kubeadmConfigSpec?.clusterConfiguration;
  if (!isDefined(dig(clusterConfiguration, 'etcd', 'external'))) {
    if (replicas !== undefined && replicas !== null && replicas % 2 === 0) {
      errs.push(fieldError.forbidden(child(path, 'replicas'), 'cannot be an even number when etcd is stacked'));
    }
  }

  const ref = s.machineTemplate?.spec?.infrastructureRef;
  for (const key of ['apiGroup', 'kind', 'name'] as const) {
    const v = ref?.[key] ?? '';
    if (v === '')
      errs.push(fieldError.invalid(child(path, 'machineTemplate', 'infrastructure', key), v, 'cannot be empty'));
  }
  errs.push(
    ...validateMachineTaints(s.machineTemplate?.spec?.taints, child(path, 'machineTemplate', 'spec', 'taints'), gates),
  );
  errs.push(...validateTemplateMetadata(s.machineTemplate?.metadata, child(path, 'machineTemplate', 'metadata')));

  const version = s.version ?? '';
  if (!version.startsWith('v')) errs.push(fieldError.invalid(child(path, 'version'), version, 'must start with v'));
  if (parseSemver(version.replace(/^v/, '')).error !== undefined) {
    errs.push(fieldError.invalid(child(path, 'version'), version, 'must be a valid semantic version'));
  }

  errs.push(...validateRolloutAndCertValidityFields(s, path));
  errs.push(...validateNaming(s.machineNaming?.template ?? '', child(path, 'machineNaming')));
  return errs;
}

function validateRolloutAndCertValidityFields(s: KubeadmControlPlaneSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const strategy = s.rollout?.strategy;
  const maxSurge = strategy?.rollingUpdate?.maxSurge;
  // An unset strategy skips every check below, the certificate ones included (upstream returns early too).
  if (!strategy?.type && (maxSurge === undefined || maxSurge === null)) return errs;

  if (strategy?.type !== 'RollingUpdate') {
    errs.push(fieldError.required(child(path, 'rollout', 'strategy', 'type'), 'only RollingUpdate is supported'));
  }
  if (maxSurge !== undefined && maxSurge !== null) {
    const surge = intValue(maxSurge);
    if (surge === 0 && s.replicas !== undefined && s.replicas !== null && s.replicas < 3) {
      errs.push(
        fieldError.required(
          child(path, 'rollout', 'strategy', 'rollingUpdate'),
          'when KubeadmControlPlane is configured to scale-in, replica count needs to be at least 3',
        ),
      );
    }
    if (surge !== 1 && surge !== 0) {
      errs.push(
        fieldError.required(child(path, 'rollout', 'strategy', 'rollingUpdate', 'maxSurge'), 'value must be 1 or 0'),
      );
    }
  }

  const cc = s.kubeadmConfigSpec?.clusterConfiguration;
  const certDays = digNumber(cc, 'certificateValidityPeriodDays') ?? 0;
  const caDays = digNumber(cc, 'caCertificateValidityPeriodDays') ?? 0;
  if (certDays !== 0) {
    const certPath = child(path, 'kubeadmConfigSpec', 'clusterConfiguration', 'certificateValidityPeriodDays');
    if (caDays !== 0) {
      if (certDays > caDays)
        errs.push(
          fieldError.invalid(
            certPath,
            certDays,
            `must be less than or equal to caCertificateValidityPeriodDays (${caDays})`,
          ),
        );
    } else if (certDays > DEFAULT_CA_CERTIFICATES_EXPIRY_DAYS) {
      errs.push(
        fieldError.invalid(
          certPath,
          certDays,
          `must be less than or equal to the default value of caCertificateValidityPeriodDays (${DEFAULT_CA_CERTIFICATES_EXPIRY_DAYS})`,
        ),
      );
    }
    const expiryDays = s.rollout?.before?.certificatesExpiryDays ?? 0;
    if (expiryDays !== 0 && expiryDays >= certDays) {
      errs.push(
        fieldError.invalid(
          child(path, 'rollout', 'before', 'certificatesExpiryDays'),
          expiryDays,
          `must be less than certificateValidityPeriodDays (${certDays})`,
        ),
      );
    }
  }
  return errs;
}

function validateNaming(template: string, path: string): FieldError[] {
  if (template === '') return [];
  const errs: FieldError[] = [];
  const templatePath = child(path, 'template');
  if (!template.includes('{{ .random }}')) {
    errs.push(fieldError.invalid(templatePath, template, 'invalid template, {{ .random }} is missing'));
  }
  let name: string;
  try {
    name = generateNameFromTemplate(template, 'cluster', { kubeadmControlPlane: { name: 'kubeadmcontrolplane' } });
  } catch (e) {
    errs.push(fieldError.invalid(templatePath, template, `invalid template: ${(e as Error).message}`));
    return errs;
  }
  for (const msg of isDNS1123Subdomain(name)) {
    errs.push(
      fieldError.invalid(
        templatePath,
        template,
        `invalid template, generated names would not be valid Kubernetes object names: ${msg}`,
      ),
    );
  }
  return errs;
}

/** validateClusterConfiguration: image tags, local vs external etcd; `oldCC` is undefined on create. */
export function validateClusterConfiguration(
  oldCC: unknown,
  newCC: unknown,
  path: string,
  isUpdate: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const dnsTag = digString(newCC, 'dns', 'imageTag');
  if (!imageTagIsValid(dnsTag))
    errs.push(fieldError.forbidden(child(path, 'dns', 'imageTag'), `tag ${dnsTag} is invalid`));
  if (dnsTag !== '') {
    const parsed = parseTolerantImageTag(dnsTag);
    if (parsed.error !== undefined) {
      // Upstream's path here lacks the spec prefix.
      errs.push(fieldError.invalid('dns.imageTag', dnsTag, `failed to parse CoreDNS version: ${parsed.error}`));
    }
  }
  const local = dig(newCC, 'etcd', 'local');
  const external = dig(newCC, 'etcd', 'external');
  const etcdTag = digString(local, 'imageTag');
  if (isDefined(local) && !imageTagIsValid(etcdTag)) {
    errs.push(fieldError.forbidden(child(path, 'etcd', 'local', 'imageTag'), `tag ${etcdTag} is invalid`));
  }
  if (isDefined(local) && isDefined(external)) {
    errs.push(fieldError.forbidden(child(path, 'etcd', 'local'), 'cannot have both external and local etcd'));
  }
  if (isUpdate && isDefined(external) !== isDefined(dig(oldCC, 'etcd', 'external'))) {
    errs.push(fieldError.forbidden(child(path, 'etcd', 'external'), 'cannot change between external and local etcd'));
  }
  return errs;
}

function validateCoreDNSVersion(oldK: KubeadmControlPlane, newK: KubeadmControlPlane): FieldError[] {
  const fromTag = digString(oldK.spec?.kubeadmConfigSpec?.clusterConfiguration, 'dns', 'imageTag');
  const toTag = digString(newK.spec?.kubeadmConfigSpec?.clusterConfiguration, 'dns', 'imageTag');
  if (fromTag === '' || toTag === '') return [];
  const tagPath = `${CC_PATH}.dns.imageTag`;
  const from = parseTolerantImageTag(fromTag);
  if (from.error !== undefined)
    return [fieldError.invalid(tagPath, fromTag, `failed to parse current CoreDNS version: ${from.error}`)];
  const to = parseTolerantImageTag(toTag);
  if (to.error !== undefined)
    return [fieldError.invalid(tagPath, toTag, `failed to parse target CoreDNS version: ${to.error}`)];
  // The same version is fine even when the migration library does not know it.
  if (compareWithoutPreReleases(to.version, from.version) === 0) return [];
  if (newK.metadata?.annotations && SKIP_COREDNS_ANNOTATION in newK.metadata.annotations) return [];
  const err = validUpMigration(majorMinorPatch(from.version), majorMinorPatch(to.version));
  if (err === undefined) return [];
  return [
    fieldError.forbidden(
      tagPath,
      `cannot migrate CoreDNS up to ${singleQuoted(versionString(to.version))} from ${singleQuoted(versionString(from.version))}: ${err}`,
    ),
  ];
}

/** validateVersion: an update may move at most one minor version up (skipping a minor is not allowed). */
export function validateVersionUpdate(previousVersion: string, newVersion: string): FieldError[] {
  const from = parseTolerant(previousVersion);
  if (from.error !== undefined) {
    return [
      fieldError.internal(
        'spec.version',
        `failed to parse current kubeadmcontrolplane version: ${previousVersion}: ${from.error}`,
      ),
    ];
  }
  const to = parseTolerant(newVersion);
  if (to.error !== undefined) {
    return [
      fieldError.internal(
        'spec.version',
        `failed to parse updated kubeadmcontrolplane version: ${newVersion}: ${to.error}`,
      ),
    ];
  }
  // Any patch of the next minor is fine: compare against the minor after it.
  const ceil = new SemVer(`${from.version.major}.${from.version.minor + 2}.0`);
  if (compareWithoutPreReleases(to.version, ceil) >= 0) {
    return [
      fieldError.forbidden('spec.version', `cannot update Kubernetes version from ${previousVersion} to ${newVersion}`),
    ];
  }
  return [];
}

export class KubeadmControlPlaneWebhook
  implements CustomDefaulter<KubeadmControlPlane>, CustomValidator<KubeadmControlPlane>
{
  constructor(private readonly gates: FeatureGateReader = defaultFeatureGates()) {}

  default(k: KubeadmControlPlane): void {
    k.spec.replicas ??= 1;
    if (!(k.spec.version ?? '').startsWith('v')) k.spec.version = `v${k.spec.version ?? ''}`;
    // Only RollingUpdate exists; maxSurge defaults to 1.
    const rollout = (k.spec.rollout ??= {});
    const strategy = (rollout.strategy ??= {});
    strategy.type = 'RollingUpdate';
    const rollingUpdate = (strategy.rollingUpdate ??= {});
    rollingUpdate.maxSurge ??= 1;
  }

  validateCreate(k: KubeadmControlPlane): Warnings {
    const spec = k.spec;
    const errs = [
      ...validateKubeadmControlPlaneSpec(spec, 'spec', this.gates),
      ...validateRolloutPolicy(k.metadata?.annotations),
      ...validateClusterConfiguration(undefined, spec.kubeadmConfigSpec?.clusterConfiguration, CC_PATH, false),
      ...validateKubeadmConfigSpec(spec.kubeadmConfigSpec, true, 'spec.kubeadmConfigSpec', this.gates),
    ];
    if (errs.length > 0) throw invalidError(ERROR_GROUP, 'KubeadmControlPlane', k.metadata?.name ?? '', errs);
    return [];
  }

  validateUpdate(oldK: KubeadmControlPlane, newK: KubeadmControlPlane): Warnings {
    const errs = [
      ...validateKubeadmControlPlaneSpec(newK.spec, 'spec', this.gates),
      ...validateRolloutPolicy(newK.metadata?.annotations),
      ...immutableFieldErrors(oldK, newK),
      ...validateVersionUpdate(oldK.spec?.version ?? '', newK.spec?.version ?? ''),
      ...validateClusterConfiguration(
        oldK.spec?.kubeadmConfigSpec?.clusterConfiguration,
        newK.spec?.kubeadmConfigSpec?.clusterConfiguration,
        CC_PATH,
        true,
      ),
      ...validateCoreDNSVersion(oldK, newK),
      ...validateKubeadmConfigSpec(newK.spec?.kubeadmConfigSpec, true, 'spec.kubeadmConfigSpec', this.gates),
    ];
    if (errs.length > 0) throw invalidError(ERROR_GROUP, 'KubeadmControlPlane', newK.metadata?.name ?? '', errs);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }
}
