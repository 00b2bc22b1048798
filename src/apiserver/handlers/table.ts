// Server-side printing: objects → meta.k8s.io Table, with the columns kubectl shows for a real cluster.
import type { KObject, ResourceDefinition, TableColumn } from '../../api/types.js';
import { rfc3339 } from '../../machinery/object.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  apiVersion: string; // meta.k8s.io/v1 or meta.k8s.io/v1beta1
  includeObject: IncludeObject;
  noHeaders?: boolean;
}

const defaultColumns: TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    cell: (o) => o.metadata.name ?? '',
  },
  {
    name: 'Created At',
    type: 'date',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    cell: (o) => o.metadata.creationTimestamp ?? rfc3339(0),
  },
];

export function columnsOf(def: ResourceDefinition): TableColumn[] {
  return def.columns.length ? def.columns : defaultColumns;
}

export function partialMetadata(obj: KObject, apiVersion = 'meta.k8s.io/v1'): KObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

export function toTable(
  def: ResourceDefinition,
  items: KObject[],
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  opts: TableOptions,
): Record<string, unknown> {
  const cols = columnsOf(def);
  const now = Date.now();
  const rows = items.map((obj) => {
    const row: Record<string, unknown> = { cells: cols.map((c) => safeCell(c, obj, now)) };
    if (opts.includeObject === 'Object') row.object = obj;
    else if (opts.includeObject === 'Metadata') row.object = partialMetadata(obj, opts.apiVersion);
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;
  const t: Record<string, unknown> = { kind: 'Table', apiVersion: opts.apiVersion, metadata };
  if (!opts.noHeaders) {
    t.columnDefinitions = cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description,
      priority: c.priority ?? 0,
    }));
  }
  t.rows = rows;
  return t;
}

function safeCell(c: TableColumn, obj: KObject, now: number): unknown {
  try {
    const v = c.cell(obj, { now });
    return v === undefined ? null : v;
  } catch {
    return '<unknown>';
  }
}
