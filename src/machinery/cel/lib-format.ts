// Kubernetes' format library: format.<name>() and format.named(name) return a kubernetes.NamedFormat whose
// validate(s) is optional.none() for a valid string, else optional.of(the validation messages).
import { Optional } from '@marcbachmann/cel-js';
import { isQualifiedName, isValidLabelValue, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from '../validation.js';
import { parseURL } from './lib-urls.js';
import { parseTimestamp } from './types.js';
import type { LibraryRegistrar } from './env.js';

export class NamedFormat {
  constructor(readonly name: string, readonly validate: (s: string) => readonly string[]) {}
}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function validDate(s: string): boolean {
  const d = parseTimestamp(s, true);
  return d !== undefined && d.toISOString().slice(0, 10) === s;
}

export const FORMATS: Record<string, NamedFormat> = {
  dns1123Label: new NamedFormat('DNS1123Label', (s) => nameIsDNSLabel(s, false)),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', (s) => nameIsDNSSubdomain(s, false)),
  dns1035Label: new NamedFormat('DNS1035Label', (s) => nameIsDNS1035Label(s, false)),
  qualifiedName: new NamedFormat('QualifiedName', isQualifiedName),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true)),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true)),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true)),
  labelValue: new NamedFormat('LabelValue', isValidLabelValue),
  uri: new NamedFormat('URI', (s) => {
    try {
      parseURL(s, true);
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  }),
  uuid: new NamedFormat('uuid', (s) => (UUID.test(s) ? [] : ['does not match the UUID format'])),
  byte: new NamedFormat('byte', (s) => (BASE64.test(s) ? [] : ['invalid base64'])),
  date: new NamedFormat('date', (s) => (validDate(s) ? [] : ['invalid date'])),
  datetime: new NamedFormat('datetime', (s) => (parseTimestamp(s) ? [] : ['invalid datetime'])),
};

export function registerFormat(reg: LibraryRegistrar): void {
  const F = 'kubernetes.NamedFormat';
  reg.type(F, NamedFormat, ((a: NamedFormat, b: NamedFormat) => a.name === b.name) as never);
  class FormatNamespace {}
  reg.type('k1s.FormatNamespace', FormatNamespace);
  reg.constant('format', 'k1s.FormatNamespace', new FormatNamespace());
  for (const [name, f] of Object.entries(FORMATS)) reg.fn(`k1s.FormatNamespace.${name}(): ${F}`, () => f);
  reg.fn(`k1s.FormatNamespace.named(string): optional<${F}>`, (_n: unknown, name: string) =>
    Object.hasOwn(FORMATS, name) ? Optional.of(FORMATS[name]) : Optional.none());
  reg.fn(`${F}.validate(string): optional<list<string>>`, (f: NamedFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length === 0 ? Optional.none() : Optional.of([...errs]);
  });
}
