import { ApiException } from '@kubernetes/client-node';

/** The HTTP status of a failed API call, or undefined when it never got an answer (network errors). */
export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

const isNotFound = (error: unknown): boolean => httpStatusOf(error) === 404;
/** 409: the name is taken, or the resourceVersion a write carried is stale. */
export const isConflict = (error: unknown): boolean => httpStatusOf(error) === 409;

/** The call's answer, or undefined when what it reads or writes does not exist (404). */
export async function orUndefinedIfNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A write lost a race (stale cache, or the name is taken): retry after the caches catch up. */
export class ConflictError extends Error {}

/** The resource was deleted since it was read. */
export class ResourceGoneError extends ConflictError {}
