// Kubernetes `Status` errors. Every error that reaches a client is a StatusError, created where it arises,
// so the HTTP layer only serialises it.

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | '';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Status {
    // metav1.Status's field order (clients comparing bodies see kube's bytes); reason and details are omitempty
    const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message } as Status;
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

/** A group + resource, e.g. {group:'apps', resource:'deployments'}; printed as "deployments.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

export function grString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function grDetails(gr: GroupResource, name: string): StatusDetails {
  return statusDetails(name, gr.group, gr.resource);
}

/** StatusDetails in metav1's field order (name, group, kind, then causes), empty fields omitted as Go's omitempty. */
function statusDetails(name: string, group: string, kind: string): StatusDetails {
  const d = {} as StatusDetails;
  if (name) d.name = name;
  if (group) d.group = group;
  if (kind) d.kind = kind;
  return d;
}

export const errors = {
  notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError(404, 'NotFound', `${grString(gr)} "${name}" not found`, grDetails(gr, name));
  },
  alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError(409, 'AlreadyExists', `${grString(gr)} "${name}" already exists`, grDetails(gr, name));
  },
  conflict(gr: GroupResource, name: string, why: string): StatusError {
    return new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${grString(gr)} "${name}": ${why}`,
      grDetails(gr, name),
    );
  },
  /** The optimistic-concurrency conflict kube-apiserver reports for a stale resourceVersion. */
  staleResourceVersion(gr: GroupResource, name: string): StatusError {
    return errors.conflict(
      gr,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  },
  badRequest(message: string, causes?: StatusCause[]): StatusError {
    return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  unauthorized(message = 'Unauthorized'): StatusError {
    return new StatusError(401, 'Unauthorized', message);
  },
  forbidden(gr: GroupResource, name: string, message: string): StatusError {
    return new StatusError(403, 'Forbidden', message, grDetails(gr, name));
  },
  methodNotSupported(gr: GroupResource, verb: string): StatusError {
    return new StatusError(
      405,
      'MethodNotAllowed',
      `${verb} is not supported on resources of kind "${grString(gr)}"`,
      { group: gr.group || undefined, kind: gr.resource },
    );
  },
  gone(message: string): StatusError {
    return new StatusError(410, 'Gone', message);
  },
  expired(message: string): StatusError {
    return new StatusError(410, 'Expired', message);
  },
  tooLarge(message = 'Request entity too large: limit is 3145728'): StatusError {
    return new StatusError(413, 'RequestEntityTooLarge', message);
  },
  unsupportedMediaType(contentType: string): StatusError {
    return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml` + (contentType ? '' : ''));
  },
  notAcceptable(message: string): StatusError {
    return new StatusError(406, 'NotAcceptable', message);
  },
  internal(message: string): StatusError {
    return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    });
  },
  timeout(message: string): StatusError {
    return new StatusError(504, 'Timeout', message);
  },
  serviceUnavailable(message: string): StatusError {
    return new StatusError(503, 'ServiceUnavailable', message);
  },
  /** 422 Invalid, with kube-apiserver's aggregated message: `Kind "name" is invalid: [a: ..., b: ...]`. */
  invalid(kind: string, group: string, name: string, fieldErrors: FieldError[]): StatusError {
    const causes = fieldErrors.map((e) => ({ reason: e.type, message: e.causeMessage(), field: e.field }));
    const parts = dedupe(fieldErrors.map((e) => e.toString()));
    const agg = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
    const details = statusDetails(name, group, kind);
    if (causes.length) details.causes = causes;
    const qualified = group ? `${kind}.${group}` : kind;
    return new StatusError(422, 'Invalid', `${qualified} "${name}" is invalid: ${agg}`, details);
  },
};

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

const OMIT = Symbol('omit');

/** Types whose body never shows the bad value (apimachinery field.Error.ErrorBody). */
const valueless: ReadonlySet<FieldErrorType> = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/** One validation failure at a field path, printed exactly as apimachinery's field.Error. */
export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {}

  static required(field: string, detail = ''): FieldError {
    return new FieldError('FieldValueRequired', field, OMIT, detail);
  }
  static invalid(field: string, value: unknown, detail: string): FieldError {
    return new FieldError('FieldValueInvalid', field, value, detail);
  }
  static duplicate(field: string, value: unknown): FieldError {
    return new FieldError('FieldValueDuplicate', field, value, '');
  }
  static notFound(field: string, value: unknown): FieldError {
    return new FieldError('FieldValueNotFound', field, value, '');
  }
  static notSupported(field: string, value: unknown, supported: string[]): FieldError {
    // Go: strconv.Quote(fmt.Sprint(v)) for each supported value.
    const detail = supported.length ? 'supported values: ' + supported.map((s) => goQuote(s)).join(', ') : '';
    return new FieldError('FieldValueNotSupported', field, value, detail);
  }
  static forbidden(field: string, detail: string): FieldError {
    return new FieldError('FieldValueForbidden', field, OMIT, detail);
  }
  /** 1.33 wording; a negative max means "unknown limit". */
  static tooLong(field: string, _value: unknown, max: number): FieldError {
    const detail = max >= 0 ? `may not be more than ${max} bytes` : 'value is too long';
    return new FieldError('FieldValueTooLong', field, OMIT, detail);
  }
  /** Go prints the actual count as the bad value ("Too many: 5: must have at most 3 items") unless it is negative. */
  static tooMany(field: string, actual: number, max: number): FieldError {
    const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
    return new FieldError('FieldValueTooMany', field, actual >= 0 ? actual : OMIT, detail);
  }
  static typeInvalid(field: string, value: unknown, detail: string): FieldError {
    return new FieldError('FieldValueTypeInvalid', field, value, detail);
  }
  static internal(field: string, detail: string): FieldError {
    return new FieldError('InternalError', field, OMIT, detail);
  }

  /** The message without the field path (Status cause message). */
  causeMessage(): string {
    let s = typeText[this.type];
    if (!valueless.has(this.type) && this.badValue !== OMIT) s += `: ${formatValue(this.badValue)}`;
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }

  toString(): string {
    return `${this.field}: ${this.causeMessage()}`;
  }
}

/**
 * The rendering apimachinery uses for bad values: strings %q-quoted, numbers/bools bare, values with their own
 * toString() printed through it (Go's fmt.Stringer case), string slices as Go's %#v `[]string{"a", "b"}`.
 */
export function formatValue(v: unknown): string {
  // Go substitutes the string "null" for a nil value and then %q-quotes it.
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => goQuote(x as string)).join(', ')}}`;
    return `[]interface {}{${v.map((x) => formatValue(x)).join(', ')}}`;
  }
  if (typeof v === 'object' && typeof (v as { toString?: unknown }).toString === 'function' &&
      (v as object).toString !== Object.prototype.toString) {
    return String(v);
  }
  return JSON.stringify(v);
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const shortEscapes: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v',
};

/** Go's strconv.Quote (the %q verb): printable runes kept, others escaped as \a..\v, \xNN, \uNNNN or \UNNNNNNNN. */
export function goQuote(s: string): string {
  let out = '"';
  for (let ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) ch = '\ufffd'; // lone surrogate: Go's JSON decoder would yield U+FFFD
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (printable.test(ch)) out += ch;
    else if (shortEscapes[ch]) out += shortEscapes[ch];
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}
