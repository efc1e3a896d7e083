// The embedded server's admission webhooks, called where kube-apiserver calls them: on create, update (patch and
// server-side apply included) and delete, mutating webhooks before the server's own defaulting and validation,
// validating webhooks after (k8s.io/apiserver pkg/admission/plugin/webhook). The REST code (server/resources.ts) is
// synchronous and the calls are not, so a write with webhooks to call runs in steps, each a dry run of the same
// write up to an admission hook: (1) up to mutation, which gives the object and the old object the webhooks see;
// (2) with their patches, up to validation; (3) the write itself, replaying the patches. Between steps the old
// object must not have changed (its resourceVersion): else the steps start over, as kube's GuaranteedUpdate retries.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@capi/apimachinery';
import type { Operation as PatchOp } from 'fast-json-patch';
import type { Registry, ResourceInfo } from '../server/registry';
import type { Resources } from '../server/resources';
import { conflict } from '../server/status';
import { ADMISSION_GROUP, MUTATING_KIND, orderedWebhooks, VALIDATING_KIND } from './config';
import { applyPatch, runMutating, runValidating } from './dispatch';
import { anyRuleFor, shouldCall } from './match';
import type { AdmissionAttributes, ConfiguredWebhook, Operation } from './types';

/** Called by the REST code around its defaulting and validation (Resources' WriteOpts.admission). */
export interface AdmissionHooks {
  /** Before the server's defaulting: returns the object to default and validate. */
  mutate(obj: KubeObject, old: KubeObject | undefined): KubeObject;
  /** After the server's validation, before the object is stored. */
  validate(obj: KubeObject, old: KubeObject | undefined): void;
}

/** What one attempt of a write gets: merged into its WriteOpts. */
export interface AttemptOptions {
  admission?: AdmissionHooks;
  /** The uid a create gives the object, the same in every step. */
  uid?: string;
  dryRun: boolean;
  warnings: string[];
  /** A step before the write itself (not counted in metrics). */
  probe: boolean;
}

export interface WriteRequest {
  info: ResourceInfo;
  namespace: string;
  /** The object's name as the request gives it ("" for a create by generateName). */
  name: string;
  subresource?: string;
  dryRun: boolean;
  /** fieldManager / fieldValidation as given, for the Create/UpdateOptions the webhooks see. */
  options: Record<string, unknown>;
  warnings: string[];
}

/** Thrown through the REST code to stop a step at an admission hook. */
class Stop {
  constructor(
    readonly obj: KubeObject,
    readonly old: KubeObject | undefined,
  ) {}
}
class Changed {}

const MAX_ATTEMPTS = 5;

export class WebhookAdmission {
  private configs = { mutating: new Map<string, KubeObject>(), validating: new Map<string, KubeObject>() };
  private ordered: { mutating: ConfiguredWebhook[]; validating: ConfiguredWebhook[] } | undefined;

  constructor(
    private readonly resources: Resources,
    private readonly registry: Registry,
  ) {
    // The configurations are cached and kept current by a watch: a write with none configured pays nothing.
    for (const [kind, plural] of [
      ['mutating', 'mutatingwebhookconfigurations'],
      ['validating', 'validatingwebhookconfigurations'],
    ] as const) {
      const info = registry.lookup(ADMISSION_GROUP, 'v1', plural)!;
      resources.watch(info, undefined, { sendInitialEvents: true }, (ev) => {
        const o = ev.object as KubeObject;
        if (ev.type === 'DELETED') this.configs[kind].delete(o.metadata.name!);
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.configs[kind].set(o.metadata.name!, o);
        this.ordered = undefined;
      });
    }
  }

  private webhooks(): { mutating: ConfiguredWebhook[]; validating: ConfiguredWebhook[] } {
    return (this.ordered ??= {
      mutating: orderedWebhooks([...this.configs.mutating.values()]),
      validating: orderedWebhooks([...this.configs.validating.values()]),
    });
  }

  private relevant({ info, subresource, namespace }: WriteRequest, operations: Operation[]) {
    const { mutating, validating } = this.webhooks();
    if (!mutating.length && !validating.length) return undefined;
    // Webhooks are never called for their own configurations (rules.IsExemptAdmissionConfigurationResource).
    if (info.group === ADMISSION_GROUP && [MUTATING_KIND, VALIDATING_KIND].includes(info.kind)) return undefined;
    const a = {
      ...resourceAttrs(info, subresource),
      namespace: info.namespaced ? namespace : '',
      name: '',
      dryRun: false,
    };
    const hooks = (l: ConfiguredWebhook[]) => l.map((c) => c.webhook);
    if (!anyRuleFor(hooks(mutating), a, operations) && !anyRuleFor(hooks(validating), a, operations)) return undefined;
    return { mutating, validating };
  }

  private namespaceLabels = (name: string): Record<string, string> | undefined => {
    const info = this.registry.lookup('', 'v1', 'namespaces')!;
    return this.resources.exists(info, '', name) ? this.resources.get(info, '', name).metadata.labels : undefined;
  };

  private matching(hooks: ConfiguredWebhook[], a: AdmissionAttributes): ConfiguredWebhook[] {
    return hooks.filter((c) => shouldCall(c.webhook, a, this.namespaceLabels));
  }

  /** A create or update (PUT, patch, apply; its operation is known once the old object is). */
  async write<T>(req: WriteRequest, attempt: (o: AttemptOptions) => T): Promise<T> {
    const hooks = this.relevant(req, ['CREATE', 'UPDATE']);
    if (!hooks) return attempt({ dryRun: req.dryRun, warnings: req.warnings, probe: false });
    const uid = randomUUID();
    const scratch = () => [] as string[];
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      // (1) up to mutation.
      let seen: Stop | undefined;
      try {
        attempt({ uid, dryRun: true, warnings: scratch(), probe: true, admission: stopAt('mutate') });
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
        seen = e;
      }
      // A write that never reaches admission (none here today) is done as asked.
      if (!seen) return attempt({ dryRun: req.dryRun, warnings: req.warnings, probe: false });
      const old = seen.old;
      const operation: Operation = old ? 'UPDATE' : 'CREATE';
      const attrs = (object: KubeObject): AdmissionAttributes => ({
        ...resourceAttrs(req.info, req.subresource),
        namespace: req.info.namespaced ? req.namespace : '',
        name: req.name || (old ? old.metadata.name! : ''),
        operation,
        object,
        oldObject: old,
        dryRun: req.dryRun,
        options: operationOptions(operation, req),
      });
      const { patches } = await runMutating(
        hooks.mutating,
        { attrs: attrs(seen.obj), warnings: req.warnings },
        (c, a) => shouldCall(c.webhook, a, this.namespaceLabels),
      );
      const unchanged = (now: KubeObject | undefined) =>
        now?.metadata.resourceVersion === old?.metadata.resourceVersion;
      const mutate = (obj: KubeObject, now: KubeObject | undefined) => {
        if (!unchanged(now)) throw new Changed();
        return replay(obj, patches);
      };
      // (2) with the patches, up to validation.
      let final: KubeObject | undefined;
      try {
        attempt({
          uid,
          dryRun: true,
          warnings: scratch(),
          probe: true,
          admission: { mutate, validate: stopAt('validate').validate },
        });
      } catch (e) {
        if (e instanceof Changed) continue;
        if (!(e instanceof Stop)) throw e;
        final = e.obj;
      }
      if (final)
        await runValidating(this.matching(hooks.validating, attrs(final)), {
          attrs: attrs(final),
          warnings: req.warnings,
        });
      // (3) the write.
      try {
        return attempt({
          uid,
          dryRun: req.dryRun,
          warnings: req.warnings,
          probe: false,
          admission: {
            mutate,
            validate: (_o, now) => {
              if (!unchanged(now)) throw new Changed();
            },
          },
        });
      } catch (e) {
        if (!(e instanceof Changed)) throw e;
      }
    }
    throw conflict(
      req.info.group,
      req.info.plural,
      req.name,
      'the object kept changing while admission webhooks were called; please try again',
    );
  }

  /** A delete: validating webhooks see the object as oldObject (rest.AdmissionToValidateObjectDeleteFunc). */
  async beforeDelete(req: WriteRequest, live: () => KubeObject): Promise<void> {
    const hooks = this.relevant(req, ['DELETE']);
    if (!hooks) return;
    const a: AdmissionAttributes = {
      ...resourceAttrs(req.info, req.subresource),
      namespace: req.info.namespaced ? req.namespace : '',
      name: req.name,
      operation: 'DELETE',
      oldObject: live(),
      dryRun: req.dryRun,
      options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...req.options },
    };
    await runValidating(this.matching(hooks.validating, a), { attrs: a, warnings: req.warnings });
  }
}

function stopAt(hook: 'mutate' | 'validate'): AdmissionHooks {
  const stop = (obj: KubeObject, old: KubeObject | undefined): never => {
    throw new Stop(structuredClone(obj), old);
  };
  return hook === 'mutate' ? { mutate: stop, validate: () => undefined } : { mutate: (o) => o, validate: stop };
}

const replay = (obj: KubeObject, patches: PatchOp[][]) => patches.reduce((o, ops) => applyPatch(o, ops), obj);

function resourceAttrs(info: ResourceInfo, subresource: string | undefined) {
  return {
    group: info.group,
    version: info.version,
    kind: info.kind,
    resource: info.plural,
    subresource: subresource ?? '',
    namespaced: info.namespaced,
  };
}

/** patchToCreateOptions / patchToUpdateOptions: what the webhooks see as `options`. */
function operationOptions(op: Operation, req: WriteRequest): Record<string, unknown> {
  return {
    kind: op === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...(req.dryRun ? { dryRun: ['All'] } : {}),
    ...req.options,
  };
}

/** The fieldManager and fieldValidation a write's query gives, as its Create/UpdateOptions carry them. */
export function requestOptions(q: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['fieldManager', 'fieldValidation']) if (q.get(k)) out[k] = q.get(k);
  return out;
}

/** The DeleteOptions a delete's webhooks see: the body's, with the query's policy and dry run. */
export function deleteOptions(
  body: Record<string, any>,
  opts: { propagationPolicy?: string; gracePeriodSeconds?: number; dryRun?: boolean },
): Record<string, unknown> {
  const { kind: _k, apiVersion: _v, ...rest } = body;
  return {
    ...rest,
    ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.dryRun ? { dryRun: ['All'] } : {}),
  };
}
