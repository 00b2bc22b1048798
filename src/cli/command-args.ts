// The argument handling every cluster command shares: flags parsed strictly, --help, and the cluster's name from the
// NAME argument or --name (exit 2 on any usage error, with the command's help).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveName } from './clusters.js';

export type FlagValues = Record<string, string | boolean | undefined>;

export type ClusterArgs = { values: FlagValues; name: string } | { exit: number };

/** `options` are the command's own flags; --name and -h/--help are added. */
export function parseClusterArgs(command: string, args: string[], options: NonNullable<ParseArgsConfig['options']>, help: string): ClusterArgs {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { ...options, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    console.error(`k1s ${command}: ${(e as Error).message}\n\n${help}`);
    return { exit: 2 };
  }
  const values = parsed.values as FlagValues;
  if (values.help) {
    console.log(help);
    return { exit: 0 };
  }
  if (parsed.positionals.length > 1) {
    console.error(`k1s ${command}: one cluster name at most, got ${parsed.positionals.join(' ')}`);
    return { exit: 2 };
  }
  const r = resolveName(parsed.positionals[0], values.name as string | undefined);
  if ('error' in r) {
    console.error(`k1s ${command}: ${r.error}`);
    return { exit: 2 };
  }
  return { values, name: r.name };
}
