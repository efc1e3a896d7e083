import type { Status } from '@capi/apimachinery';

/** An HTTP error from the API server, with its Status body. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: Status,
  ) {
    super(status.message ?? `API error ${code}`);
    this.name = 'ApiError';
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
export const isNotFound = (e: unknown): boolean => isApiError(e) && e.code === 404;
export const isConflict = (e: unknown): boolean => isApiError(e) && e.code === 409;
export const isAlreadyExists = (e: unknown): boolean => isApiError(e) && e.code === 409 && e.reason === 'AlreadyExists';
export const isInvalid = (e: unknown): boolean => isApiError(e) && e.code === 422;
export const isForbidden = (e: unknown): boolean => isApiError(e) && e.code === 403;
export const isGone = (e: unknown): boolean => isApiError(e) && e.code === 410;
