// Who is asking and how: carried from the HTTP layer (or the in-process client) through the registry.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface RequestContext {
  user: UserInfo;
  dryRun: boolean;
  /** explicit ?fieldManager, or derived from the user agent */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** warnings returned to the client as `Warning: 299 - "..."` headers */
  warnings: string[];
  /** set by server-side apply, which records field ownership itself */
  managedFieldsDone?: boolean;
  /** the response is JSON text made by jsonOf (the HTTPS front), which can reuse a written object's stored text */
  respondsWithJson?: boolean;
}

export function newContext(user: UserInfo, opts: Partial<Omit<RequestContext, 'user'>> = {}): RequestContext {
  return {
    user,
    dryRun: opts.dryRun ?? false,
    fieldManager: opts.fieldManager ?? 'k1s',
    fieldValidation: opts.fieldValidation ?? 'Ignore',
    warnings: opts.warnings ?? [],
  };
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface WatchParams extends ListParams {
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const patchContentTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};
