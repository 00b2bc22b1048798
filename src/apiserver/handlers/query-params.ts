// Query parameters decoded as kube-apiserver's parameter codec decodes them into ListOptions and DeleteOptions
// (apimachinery's url.Values conversions): booleans are true unless "false" or "0", integers are strconv.ParseInt's
// and a bad one is a 400 with strconv's own words, which clients show.
import { errors, goQuote } from '../../machinery/errors.js';

/** A boolean parameter: absent → undefined; "false"/"0" in any case → false; anything else, even empty, → true. */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  const l = v.toLowerCase();
  return !(l === 'false' || l === '0');
}

/** Go's strconv.ParseBool (stricter than the codec's booleans: ?pretty, exec's stdin/stdout); undefined if invalid. */
export function goParseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** An int64 parameter as strconv.ParseInt(v, 10, 64) reads it; absent → undefined, bad → 400 BadRequest. */
export function queryInt64(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?[0-9]+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > INT64_MAX || n < INT64_MIN) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: value out of range`);
  return Number(n);
}
