// Turns an untrusted response body into a typed hook response, or a readable error message.
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { HOOKS_API_VERSION, type HookName } from './constants';
import {
  CanUpdateMachineResponseDto,
  CanUpdateMachineSetResponseDto,
  DiscoveryResponseDto,
  UpdateMachineResponseDto,
} from './dto';
import type { HookResponse } from './types';

const RESPONSE_DTOS: Record<HookName, new () => object> = {
  Discovery: DiscoveryResponseDto,
  CanUpdateMachine: CanUpdateMachineResponseDto,
  CanUpdateMachineSet: CanUpdateMachineSetResponseDto,
  UpdateMachine: UpdateMachineResponseDto,
};

/** Hooks whose response carries retryAfterSeconds. */
export const RETRY_HOOKS: readonly HookName[] = ['UpdateMachine'];

export const hookRequestKind = (hook: HookName): string => `${hook}Request`;
export const hookResponseKind = (hook: HookName): string => `${hook}Response`;

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; message: string };

function flatten(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out.push(`${path}: ${Object.values(e.constraints).join('; ')}`);
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

/**
 * Validates a parsed JSON body as the response of `hook`. Defaults the envelope (apiVersion, kind,
 * retryAfterSeconds=0) the way decoding into the Go type would.
 */
export function decodeHookResponse<H extends HookName>(hook: H, body: unknown): DecodeResult<HookResponse<H>> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return {
      ok: false,
      message: `expected a JSON object for ${hookResponseKind(hook)}, got ${Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body}`,
    };
  }
  const raw = body as Record<string, unknown>;
  const kind = hookResponseKind(hook);
  if (typeof raw.kind === 'string' && raw.kind !== '' && raw.kind !== kind) {
    return { ok: false, message: `expected kind ${kind}, got ${raw.kind}` };
  }
  const instance = plainToInstance(RESPONSE_DTOS[hook], raw) as object;
  const errors = validateSync(instance, { forbidUnknownValues: false });
  if (errors.length > 0) {
    return { ok: false, message: `invalid ${kind}: ${flatten(errors).join(', ')}` };
  }
  const value: Record<string, unknown> = { ...raw, apiVersion: raw.apiVersion || HOOKS_API_VERSION, kind };
  if (RETRY_HOOKS.includes(hook) && value.retryAfterSeconds === undefined) value.retryAfterSeconds = 0;
  if (hook === 'Discovery' && value.handlers === undefined) value.handlers = [];
  return { ok: true, value: value as unknown as HookResponse<H> };
}
