// Bad ExtensionConfigs during an in-place rollout of the embedded default: one pointing at an https URL nothing
// listens on, one with an http:// URL (upstream's ExtensionConfig webhook allows https only:
// internal/webhooks/runtime/extensionconfig_webhook.go, so the API server refuses it). The embedded API server stays
// up, the unreachable one is reported not discovered (Discovered=False on the ExtensionConfig, as upstream's
// ExtensionConfig reconciler reports a failed discovery), and the rollout through the good reference updater
// completes: its registry warmed up before, and a failing discovery registers no handler. Then both are deleted and
// nothing stays broken: the next change, with a kill -9 in it, converges and the restarted manager's registry warm-up
// succeeds. No kill while the unreachable one exists: a restart's warm-up would wait for its discovery (upstream's
// 60 s budget; then the embedded default keeps running and retries, apps/manager/src/runtime-sdk/warm-up-exit.ts,
// tested in apps/manager/test/runtime-sdk/warm-up-exit*.spec.ts).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ApiError, type Client } from '@capi/controller-runtime';
import { DISCOVERED_CONDITION, type ExtensionConfig } from '@capi/api';
import { generateServerTls } from '@capi/runtime-client';
import { UPDATER_EXTENSION_CONFIG_NAME } from '@capi/manager';
import { changePassed, type ChangeResult } from './manager-chaos';

export const UNREACHABLE_EXTENSION_CONFIG = 'chaos-unreachable';
export const PLAIN_HTTP_EXTENSION_CONFIG = 'chaos-plain-http';
const EC = { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig' };

export interface BadExtensionConfigResult {
  /** HTTP code of the API server's answer to the http:// ExtensionConfig (201 if it took it). */
  plainHttpCode: number;
  plainHttpMessage: string;
  /** The unreachable one's Discovered condition once it was reported (undefined: not within 30 s). */
  unreachableDiscovered?: { status: string; reason?: string; message?: string };
  /** The manager (and its embedded API server) still ran, and answered, once the condition was there. */
  apiServerUp: boolean;
  /** The change rolled out while the bad ExtensionConfigs existed. */
  during: ChangeResult;
  /** The change after deleting them, with a kill -9. */
  afterDelete: ChangeResult;
  /** The good updater's Discovered status at the end. */
  updaterDiscovered?: string;
  /** Lines of the last manager run that say its registry warm-up failed. */
  warmUpFailures: number;
}

export interface BadExtensionConfigContext {
  client: () => Client;
  alive: () => boolean;
  change: (during: () => Promise<void>) => Promise<ChangeResult>;
  changeWithKill: () => Promise<ChangeResult>;
  managerLog: () => string;
  log: (line: string) => void;
}

/** Why the phase failed (empty when it passed). */
export function badExtensionConfigProblems(r: BadExtensionConfigResult): string[] {
  const p: string[] = [];
  if (r.plainHttpCode !== 422 && r.plainHttpCode !== 400)
    p.push(`http:// ExtensionConfig answered ${r.plainHttpCode}, want a 422/400 refusal`);
  if (r.unreachableDiscovered?.status !== 'False')
    p.push(`unreachable ExtensionConfig: Discovered ${JSON.stringify(r.unreachableDiscovered)}, want False`);
  if (!r.apiServerUp) p.push('the embedded API server did not stay up');
  if (!changePassed(r.during)) p.push(`change ${r.during.version} under the bad ExtensionConfig failed`);
  if (!changePassed(r.afterDelete)) p.push(`change ${r.afterDelete.version} after deleting it failed`);
  if (r.updaterDiscovered !== 'True') p.push(`the reference updater's Discovered is ${r.updaterDiscovered}`);
  if (r.warmUpFailures) p.push(`${r.warmUpFailures} registry warm-up failure lines after the deletion`);
  return p;
}

/** An https URL nothing listens on (the port of a closed server) and a CA bundle. */
async function unreachableUrl(): Promise<{ url: string; caBundle: string }> {
  const tls = await generateServerTls();
  const server = https.createServer({ cert: tls.cert, key: tls.key });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return { url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(tls.cert).toString('base64') };
}

const discovered = async (client: Client, name: string) => {
  const ec = await client.tryGet<ExtensionConfig>({ ...EC, name });
  const c = ec?.status?.conditions?.find((x) => x.type === DISCOVERED_CONDITION);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

export async function runBadExtensionConfigPhase(ctx: BadExtensionConfigContext): Promise<BadExtensionConfigResult> {
  const unreachable = await unreachableUrl();
  let plainHttpCode = 0;
  let plainHttpMessage = '';
  let unreachableDiscovered: BadExtensionConfigResult['unreachableDiscovered'];
  let apiServerUp = false;
  const during = await ctx.change(async () => {
    await ctx.client().create({
      ...EC,
      metadata: { name: UNREACHABLE_EXTENSION_CONFIG },
      spec: { clientConfig: unreachable },
    });
    try {
      await ctx.client().create({
        ...EC,
        metadata: { name: PLAIN_HTTP_EXTENSION_CONFIG },
        spec: { clientConfig: { url: 'http://127.0.0.1:1' } },
      });
      plainHttpCode = 201;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      plainHttpCode = e.code;
      plainHttpMessage = e.message;
    }
    ctx.log(`bad ExtensionConfigs: http:// answered ${plainHttpCode} ${plainHttpMessage}`);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      unreachableDiscovered = await discovered(ctx.client(), UNREACHABLE_EXTENSION_CONFIG);
      if (unreachableDiscovered) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    apiServerUp =
      ctx.alive() && (await ctx.client().tryGet({ ...EC, name: UPDATER_EXTENSION_CONFIG_NAME })) !== undefined;
    ctx.log(
      `bad ExtensionConfigs: ${UNREACHABLE_EXTENSION_CONFIG} Discovered ${JSON.stringify(unreachableDiscovered)}`,
    );
  });
  for (const name of [UNREACHABLE_EXTENSION_CONFIG, PLAIN_HTTP_EXTENSION_CONFIG])
    await ctx
      .client()
      .delete({ ...EC, name })
      .catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
  const afterDelete = await ctx.changeWithKill();
  const log = ctx.managerLog();
  return {
    plainHttpCode,
    plainHttpMessage,
    unreachableDiscovered,
    apiServerUp,
    during,
    afterDelete,
    updaterDiscovered: (await discovered(ctx.client(), UPDATER_EXTENSION_CONFIG_NAME))?.status,
    warmUpFailures: log.split('\n').filter((l) => l.includes('ExtensionConfig registry warm-up failed')).length,
  };
}
